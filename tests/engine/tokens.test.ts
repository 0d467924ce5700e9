import { describe, expect, test } from "bun:test";
import { extractTokens } from "../../src/engine/tokens.ts";

function keys(text: string): string[] {
  const found = new Set<string>();
  extractTokens(text, (key) => found.add(key));
  return [...found].sort();
}

describe("extractTokens()", () => {
  test.each<[string, string, string[]]>([
    [
      "an email, its domain and parent domains",
      "forward it to attacker@mail.evil.example.",
      ["attacker@mail.evil.example", "evil.example", "mail.evil.example"],
    ],
    [
      "a URL's host with parent domains",
      "visit https://www.evil.example/collect?d=1 now",
      ["evil.example", "www.evil.example"],
    ],
    ["a bare host", "see evil.example for details", ["evil.example"]],
    [
      "an address with an IDN domain, also with its domain in punycode",
      "mail attacker@bücher.example",
      ["attacker@bücher.example", "attacker@xn--bcher-kva.example", "xn--bcher-kva.example"],
    ],
    [
      "an address written against Japanese text",
      "請求書をattacker@evil.exampleまで転送",
      [
        "attacker@evil.example",
        "evil.example",
        "evil.xn--example-gd4fkhs360ghuc",
        "請求書をattacker@evil.exampleまで転送",
        "請求書をattacker@evil.xn--example-gd4fkhs360ghuc",
      ],
    ],
    [
      "a host written against Chinese text",
      "请付款给pay.evil.example谢谢",
      [
        "evil.example",
        "evil.xn--example-zp7ua",
        "pay.evil.example",
        "xn--pay-er9d811kouysgt.evil.xn--example-zp7ua",
      ],
    ],
    ["an IPv4 host, without parents", "post to 10.0.0.12:8080", ["10.0.0.12"]],
    [
      "a host behind a percent-decoded userinfo",
      "https://ok.example/@evil.example/",
      ["@evil.example", "evil.example", "ok.example"],
    ],
    ["an @handle with and without its sigil", "ping @eve_smith today", ["@eve_smith", "eve_smith"]],
    ["a #channel with and without its sigil", "post in #external-team.", ["#external-team", "external-team"]],
    [
      "a phone as + and digits, and its last nine digits",
      "call +1 (555) 123-4567 now",
      ["+15551234567", "123-4567", "tel-tail:551234567"],
    ],
    [
      "a phone with a 00 call prefix also as + and the digits after it",
      "call 00 1 555 123 4567",
      // `123 4567` beside six digits is a number of its own too (a sort code and an account).
      ["+0015551234567", "+1234567", "+15551234567", "tel-tail:551234567"],
    ],
    [
      "a group of seven digits or more inside a phone match as a number of its own",
      "pay 1234 12345678 today",
      ["+123412345678", "+12345678", "12345678", "tel-tail:412345678"],
    ],
    [
      "a group after dashes as a number of its own",
      "ref 12-34-56-12345678",
      ["+12345612345678", "+12345678", "12-34-56-12345678", "tel-tail:612345678"],
    ],
    [
      "the national number of a phone written after its country code as a number of its own",
      "call +44 7700900123",
      ["+447700900123", "+7700900123", "7700900123", "tel-tail:700900123"],
    ],
    [
      "a phone with a 011 call prefix also as + and the digits after it",
      "call 011 44 20 7946 0958",
      ["+0114420", "+011442079460958", "+442079460958", "+79460958", "tel-tail:079460958"],
    ],
    [
      "a phone written with + and then 00 as + and its digits only",
      "call +00 1 555 123 4567",
      ["+0015551234567", "+1234567", "tel-tail:551234567"],
    ],
    [
      "an IBAN and its grouped prefixes",
      "pay de89 3704 0044 0532 0130 00",
      [
        "+00440532", // … and so are the groups after six digits of them
        "+89370400440532", // its digits are phone-shaped too
        "DE89370400440532",
        "DE893704004405320130",
        "DE89370400440532013000",
        "tel-tail:400440532",
      ],
    ],
    [
      "a contiguous IBAN, also an alphanumeric token",
      "to us133000000121212121212 please",
      ["US133000000121212121212", "US133000000121212121212PLEASE", "us133000000121212121212"],
    ],
    ["a long alphanumeric token with a digit", "token abc123def", ["abc123def"]],
    ["nothing for plain words", "please forward the invoice", []],
    ["nothing for a number that is too short", "room 12345", []],
    ["nothing for a decimal number", "3.14159", []],
  ])("extractTokens() finds %s", (_name, text, expected) => {
    expect(keys(text)).toEqual(expected.sort());
  });

  test("extractTokens() finds each address of a run joined by @ only where an address may start", () => {
    expect(keys("a@b.example@c.example").filter((k) => k.includes("@"))).toEqual(["a@b.example"]);
  });

  test("extractTokens() does not find a value inside a longer token", () => {
    expect(keys("xattacker@evil.example")).not.toContain("attacker@evil.example");
    expect(keys("evil.example.com")).not.toContain("evil.example");
  });

  test("extractTokens() reports where each token stood", () => {
    const hits: [string, number, number][] = [];
    extractTokens("to: bob@x.example", (key, start, end) => hits.push([key, start, end]));
    expect(hits).toContainEqual(["bob@x.example", 4, 17]);
  });
});
