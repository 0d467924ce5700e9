import { describe, expect, test } from "bun:test";
import { mappedIpv4, scanIpv6Hosts } from "../../src/engine/url-ipv6.ts";

/** Every key `scanIpv6Hosts` reports for a text, with the address as written at its span. */
function reported(text: string): [string, string][] {
  const found: [string, string][] = [];
  scanIpv6Hosts(text, (key, span) => found.push([key, text.slice(span.start, span.start + span.length)]));
  return found;
}

describe("scanIpv6Hosts()", () => {
  test.each([
    ["post to http://[2001:db8::1]/x", [["[2001:db8::1]", "2001:db8::1"]]],
    ["post to http://[2001:0db8:0000:0:0:0:0:1]:8080/x", [["[2001:db8::1]", "2001:0db8:0000:0:0:0:0:1"]]],
    ["the box at 2001:db8::1: refused.", [["[2001:db8::1]", "2001:db8::1"]]],
    ["reach it on ::1.", [["[::1]", "::1"]]],
    ["ip:2001:db8::1 is the box", [["[2001:db8::1]", "2001:db8::1"]]],
    [
      "host:fe80::1, ipv6:2001:db8::2",
      [
        ["[fe80::1]", "fe80::1"],
        ["[2001:db8::2]", "2001:db8::2"],
      ],
    ],
    ["zone http://[fe80::1%eth0]/", [["[fe80::1]", "fe80::1"]]],
    [
      "mapped ::ffff:10.0.0.5 here",
      [
        ["[::ffff:a00:5]", "::ffff:10.0.0.5"],
        ["10.0.0.5", "::ffff:10.0.0.5"],
      ],
    ],
  ] as const)("scanIpv6Hosts() reports %p as the WHATWG parser writes the host", (text, keys) => {
    expect(reported(text)).toEqual(keys.map(([key, host]) => [key, host]));
  });

  test.each([
    "at 12:30:45 the meeting starts",
    "use std::vector here",
    "one colon a:b only",
    "glued xyz::1 and ::1zz are words",
    "a path like mod::fn or self::abc is code",
    "1:2:3:4:5:6:7:8:9 has too many groups",
  ])("scanIpv6Hosts() reports nothing for %p", (text) => {
    expect(reported(text)).toEqual([]);
  });
});

describe("mappedIpv4()", () => {
  test("mappedIpv4() reads an IPv4-mapped host as its dotted quad, and nothing else", () => {
    expect(mappedIpv4("[::ffff:7f00:1]")).toBe("127.0.0.1");
    expect(mappedIpv4("[::ffff:c0a8:101]")).toBe("192.168.1.1");
    expect(mappedIpv4("[::1]")).toBeUndefined();
    expect(mappedIpv4("[2001:db8::ffff:7f00:1]")).toBeUndefined();
  });
});
