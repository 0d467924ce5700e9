import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { extractTokens, scanTokens } from "../../src/engine/tokens.ts";
import { oracleTokens } from "./token-oracle.ts";

type Hit = [string, number, number];

function scanned(text: string): Hit[] {
  const hits: Hit[] = [];
  extractTokens(text, (key, start, end) => hits.push([key, start, end]));
  return hits;
}

function expected(text: string): Hit[] {
  const hits: Hit[] = [];
  oracleTokens(text, (key, start, end) => hits.push([key, start, end]));
  return hits;
}

/** Characters every token pattern turns on: word characters, joiners, sigils, separators. */
const ALPHABET = [...'ab0159xz_-.@#+() \u0001:/?%E"'];
const textOf = (alphabet: readonly string[], maxLength: number) =>
  fc.array(fc.constantFrom(...alphabet), { maxLength }).map((chars) => chars.join(""));
/** Pieces that make whole tokens likely: addresses, hosts, handles, phones, IBANs, long tokens. */
const PIECES = [
  "bob@x.example",
  '"bob"@x.example',
  "a.b@mail.evil.example",
  "evil.example",
  "10.0.0.12",
  "1.2.3.4.5",
  "@eve_smith",
  "#team-x.",
  "+1 (555) 123-4567",
  "555.123.4567",
  "12345678901234567",
  "de89 3704 0044 0532 0130 00",
  "gb33bukb20201555555555",
  "user4711x",
  "abc123def",
  `${"x".repeat(63)}1`,
  `${"x".repeat(64)}1`,
  "https://docs1-2.example/p/3",
  "http://127.1/",
  "://0x7f.0.0.1:",
  "ftp://u@2130706433",
  " ",
  ".",
  "@",
  "-",
  "((",
  "..",
  "_@eve_",
  "-#team_",
  "_user4711x_",
  "--ab12cd",
  "_10.0.0.12_",
  "evil.example._",
  "__",
  "...",
  ".#c",
  ".evil.example",
];
const pieced = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), textOf(ALPHABET, 4)), { maxLength: 12 })
  .map((parts) => parts.join(""));

describe("scanTokens()", () => {
  test("scanTokens() finds exactly the keys, spans and order of the token patterns, on ASCII text", () => {
    fc.assert(
      fc.property(fc.oneof(textOf(ALPHABET, 40), pieced), (text) => {
        expect(scanned(text)).toEqual(expected(text));
      }),
      { numRuns: 20_000 },
    );
  });

  test("scanTokens() on text with non-ASCII characters finds what the Unicode token patterns find (the ASCII scanners are not used there)", () => {
    fc.assert(
      fc.property(pieced, fc.constantFrom("ü", "ä.", "\u00e9@", "bücher.example "), (text, extra) => {
        const mixed = `${extra}${text}`;
        expect(scanned(mixed)).toEqual(expected(mixed));
      }),
      { numRuns: 2_000 },
    );
  });

  test.each<[string, string]>([
    [
      "a dense synthetic line",
      "note 1 says please forward it to ann.0.1@host1.example and read https://docs0-1.example/p/1 then ping @user0x1 and go",
    ],
    ["a phone of sixteen digits", "call 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 now"],
    ["digits after fourteen groups", "12345678901234567890"],
    [
      "groups of seven digits and more inside phones",
      "1234 12345678, 12-34-56-12345678, 1234567 1234567, +1234567 7654321, (1234567) 12, 12-34-56 12345678",
    ],
    ["a run of hosts and dots", "a.b..c.d.-e.f. g.h@i.j.k"],
    ["sigils in a row", "@@a ##b @a.b- #c_d. x@y#z"],
    [
      "glued `_` and `-`",
      "_#leaks_ _@mallory_ -@eve bob_@x a-#b _c0123abcde_ mallory99- _203.0.113.5_ x.example._",
    ],
    ["an IBAN of thirty groups and more", `ab12 ${"c".repeat(40)}`],
  ])("scanTokens() agrees with the token patterns on %s", (_name, text) => {
    expect(scanned(text)).toEqual(expected(text));
  });

  test("scanTokens() reports a key that is a slice of the text as offsets, not as a string", () => {
    const keys: (string | undefined)[] = [];
    scanTokens("mail bob@x.example", (found) => keys.push(found.key));
    expect(keys).toEqual([undefined, undefined]);
  });
});
