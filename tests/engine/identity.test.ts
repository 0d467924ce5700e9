import { describe, expect, test } from "bun:test";
import { canonicalize, identify, isUrlShaped } from "../../src/engine/index.ts";

function identityOf(raw: string): ReturnType<typeof identify> {
  return identify(raw.trim(), canonicalize(raw, { destination: true }));
}

describe("identify()", () => {
  test.each<[string, string, string, string]>([
    ["an email is the address", "Bob@Partner.Example", "email", "bob@partner.example"],
    ["a Name <addr> is the address", "Bob <bob@partner.example>", "email", "bob@partner.example"],
    [
      "a mailto: value is the address, never a URL",
      "mailto:bob@partner.example",
      "email",
      "bob@partner.example",
    ],
    ["a URL is its origin", "https://Hooks.Corp.Example/a/b?x=1#f", "url", "https://hooks.corp.example"],
    [
      "a URL keeps a non-default port in its origin",
      "https://hooks.example:8443/x",
      "url",
      "https://hooks.example:8443",
    ],
    ["a scheme-less dotted host is https", "evil.example/collect?d=1", "url", "https://evil.example"],
    ["a scheme-less host with a port is https", "evil.example:8080", "url", "https://evil.example:8080"],
    ["a special scheme without slashes is a URL", "http:evil.example/x", "url", "http://evil.example"],
    ["a phone is + and its digits", "+1 (555) 123-4567", "phone", "+15551234567"],
    ["a tel: phone is + and its digits", "tel:+15551234567", "phone", "+15551234567"],
    ["an IBAN is upper case without spaces", "de89 3704 0044 0532 0130 00", "iban", "DE89370400440532013000"],
    ["anything else is the canonical string", "  Riverside   View Hotel ", "string", "riverside view hotel"],
    ["a dotted name without a letter TLD is a string", "3.14", "string", "3.14"],
  ])("identify() treats %s", (_name, raw, kind, id) => {
    const identity = identityOf(raw);
    expect(identity.kind).toBe(kind as typeof identity.kind);
    expect(identity.id).toBe(id);
  });

  test("identify() parses the raw value, not its percent-decoded form", () => {
    const raw = "https://hooks.corp.example%2f@evil.example/";
    const identity = identityOf(raw);
    expect(identity.kind).toBe("url");
    if (identity.kind !== "url") return;
    expect(identity.host).toBe("evil.example");
    expect(identity.origin).toBe("https://evil.example");
    expect(identity.fromCanonical).toBe(false);
    // The decoded form would have pointed at hooks.corp.example: that host is probed for taint too.
    expect(identity.keys).toEqual(["evil.example", "hooks.corp.example"]);
  });

  test("identify() gives a URL its prefix (no query) and its href (with query)", () => {
    const identity = identityOf("https://x.example/a/b?q=1#frag");
    expect(identity.kind === "url" && [identity.prefix, identity.href]).toEqual([
      "https://x.example/a/b",
      "https://x.example/a/b?q=1",
    ]);
  });

  test("identify() falls back to the canonical form when the raw value does not parse (taint only)", () => {
    const identity = identityOf("\u200bhttps://evil.example/x");
    expect(identity.kind === "url" && [identity.host, identity.fromCanonical]).toEqual([
      "evil.example",
      true,
    ]);
  });

  test("identify() gives an international host in punycode", () => {
    const identity = identityOf("https://bücher.example/");
    expect(identity.kind === "url" && identity.host).toBe("xn--bcher-kva.example");
  });

  test.each<[string, boolean]>([
    ["@bob", true],
    ["user-4711", true],
    ["general", false],
    ["riverside view hotel", false],
  ])("identify() marks %p token-shaped: %p", (raw, token) => {
    expect(identityOf(raw).token).toBe(token);
  });
});

describe("isUrlShaped()", () => {
  test.each<[string, boolean]>([
    ["https://x.example", true],
    ["ftp://x.example/a", true],
    ["custom+scheme://x", true],
    ["evil.example", true],
    ["evil.example/path", true],
    ["mailto:bob@x.example", false],
    ["mailto://bob@x.example", false],
    ["bob@x.example", false],
    ["localhost", false],
    ["plain words", false],
  ])("isUrlShaped(%p) is %p", (value, expected) => {
    expect(isUrlShaped(value)).toBe(expected);
  });
});
