import { describe, expect, test } from "bun:test";
import { scanUrlIpv4Hosts } from "../../src/engine/url-ipv4.ts";

/** Every key `scanUrlIpv4Hosts` reports for a text, with the host as written at its span. */
function reported(text: string): [string, string][] {
  const found: [string, string][] = [];
  scanUrlIpv4Hosts(text, (key, span) => found.push([key, text.slice(span.start, span.start + span.length)]));
  return found;
}

describe("scanUrlIpv4Hosts()", () => {
  test.each([
    ["see http://127.1/x", [["127.0.0.1", "127.1"]]],
    ["see http://0177.0.0.1/x", [["127.0.0.1", "0177.0.0.1"]]],
    ["see https://0x7f.0.0.1:8443/x", [["127.0.0.1", "0x7f.0.0.1"]]],
    ["see http://2130706433", [["127.0.0.1", "2130706433"]]],
    ["see ftp://user:pw@203.0.29957/x", [["203.0.117.5", "203.0.29957"]]],
    [
      "see http://127.1./x and http://10.1/y",
      [
        ["127.0.0.1", "127.1."],
        ["10.0.0.1", "10.1"],
      ],
    ],
    ["see http://0x/ (the number 0, as the WHATWG parser reads it)", [["0.0.0.0", "0x"]]],
  ] as const)("scanUrlIpv4Hosts() reports %p as the dotted quad the WHATWG parser reads", (text, keys) => {
    expect(reported(text)).toEqual(keys.map(([key, host]) => [key, host]));
  });

  test.each([
    "version 3.14 and 10.1 are numbers, not hosts",
    "http://192.168.1.1/ is already a dotted quad",
    "http://127.1.evil.example/ has a name",
    "http://999.1/ is no address",
  ])("scanUrlIpv4Hosts() reports nothing for %p", (text) => {
    expect(reported(text)).toEqual([]);
  });
});
