import { describe, expect, test } from "bun:test";
import { canonicalize, identify, matchTrusted, type RuleSource } from "../../src/engine/index.ts";

function trusted(entry: string, raw: string): boolean {
  const identity = identify(raw.trim(), canonicalize(raw, { destination: true }));
  return matchTrusted(identity, [{ value: entry, source: "user:bouncer.yaml" as RuleSource }]) !== undefined;
}

describe("matchTrusted()", () => {
  test.each<[string, string, boolean]>([
    // exact entries
    ["boss@corp.example", "boss@corp.example", true],
    ["boss@corp.example", "other@corp.example", false],
    ["+1 555 123 4567", "+15551234567", true],
    ["DE89 3704 0044 0532 0130 00", "de89370400440532013000", true],
    ["#general", "#general", true],
    ["#general", "#random", false],
    // *@domain: that exact domain, no subdomains
    ["*@corp.example", "anyone@corp.example", true],
    ["*@corp.example", "anyone@mail.corp.example", false],
    ["*@corp.example", "anyone@corp.example.evil.example", false],
    ["*@corp.example", "https://corp.example/", false],
    // *.domain: parsed hosts strictly below domain
    ["*.corp.example", "https://api.corp.example/v1", true],
    ["*.corp.example", "https://a.b.corp.example/", true],
    ["*.corp.example", "https://corp.example/", false],
    ["*.corp.example", "https://evilcorp.example/", false],
    ["*.corp.example", "https://corp.example.evil.example/", false],
    ["*.corp.example", "me@api.corp.example", false],
    // URL prefix ending in /*
    ["https://hooks.corp.example/*", "https://hooks.corp.example/", true],
    ["https://hooks.corp.example/*", "https://hooks.corp.example/bouncer/in?x=1", true],
    ["https://hooks.corp.example/bouncer/*", "https://hooks.corp.example/bouncer/in", true],
    ["https://hooks.corp.example/bouncer/*", "https://hooks.corp.example/bouncer", true],
    ["https://hooks.corp.example/bouncer/*", "https://hooks.corp.example/bouncerx/in", false],
    ["https://hooks.corp.example/bouncer/*", "https://hooks.corp.example/other", false],
    ["https://hooks.corp.example/*", "http://hooks.corp.example/", false],
    ["https://hooks.corp.example/*", "https://hooks.corp.example:8443/", false],
    ["https://hooks.corp.example/*", "https://hooks.corp.example.evil.example/", false],
    ["https://hooks.corp.example/*", "https://hooks.corp.example%2f@evil.example/", false],
    ["https://hooks.corp.example/*", "https://hooks.corp.example@evil.example/", false],
    // parsers disagree on backslashes and userinfo: never trusted (WHATWG reads the host as hooks…)
    ["https://hooks.corp.example/*", "https://hooks.corp.example\\@evil.example/", false],
    ["*.corp.example", "https://hooks.corp.example\\@evil.example/", false],
    ["https://hooks.corp.example/*", "https://user@hooks.corp.example/x", false],
    ["https://hooks.corp.example/*", "https://hooks.corp.example\\x", false],
    // exact URL entries: a site without a path, or the exact URL
    ["https://docs.corp.example", "https://docs.corp.example/any/page", true],
    ["https://docs.corp.example/a", "https://docs.corp.example/a", true],
    ["https://docs.corp.example/a", "https://docs.corp.example/a/b", false],
    ["https://docs.corp.example/a?x=1", "https://docs.corp.example/a?x=2", false],
  ])("matchTrusted() with entry %p trusts %p: %p", (entry, raw, expected) => {
    expect(trusted(entry, raw)).toBe(expected);
  });

  test("matchTrusted() never trusts a URL that only parsed after canonicalisation", () => {
    expect(trusted("https://hooks.corp.example/*", "\u200bhttps://hooks.corp.example/x")).toBe(false);
  });

  test("matchTrusted() returns the entry with its source", () => {
    const identity = identify("boss@corp.example", "boss@corp.example");
    const entries = [
      { value: "*@other.example", source: "pack:gmail" as RuleSource },
      { value: "*@corp.example", source: "user:b.yaml" as RuleSource },
    ];
    expect(matchTrusted(identity, entries)).toEqual({ value: "*@corp.example", source: "user:b.yaml" });
  });
});
