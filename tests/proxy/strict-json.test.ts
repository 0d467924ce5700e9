import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { checkStrictJson, repeatsAKey } from "../../src/proxy/strict-json.ts";

describe("checkStrictJson", () => {
  test.each([
    ["a clean call", '{"name":"send","arguments":{"to":"a@b.example","n":[1,2,3]}}', false, false],
    ["a repeated top-level key", '{"name":"a","name":"b"}', true, false],
    ["a repeated key deep in the arguments", '{"arguments":{"x":[{"to":"a","to":"b"}]}}', true, false],
    ["a key repeated through escapes", '{"arguments":{"to":"a","\\u0074o":"b"}}', true, false],
    ["the same key in sibling objects (allowed)", '{"a":{"to":1},"b":{"to":2}}', false, false],
    ["a key equal to a value (allowed)", '{"to":"to","x":"to"}', false, false],
    [
      "a key named like Object.prototype members",
      '{"constructor":1,"toString":2,"__proto__":3}',
      false,
      false,
    ],
    ["2^53 - 1", '{"n":9007199254740991}', false, false],
    ["-(2^53 - 1)", '{"n":-9007199254740991}', false, false],
    ["2^53 + 1", '{"n":9007199254740993}', false, true],
    ["-(2^53 + 1)", '{"n":[-9007199254740993]}', false, true],
    ["an integer in exponent form beyond 2^53", '{"n":1e16}', false, true],
    ["a number that overflows a double", '{"n":1e400}', false, true],
    ["a fraction (allowed)", '{"n":3.14159}', false, false],
    ["digits inside a string (allowed)", '{"n":"9007199254740993"}', false, false],
  ] as const)("checkStrictJson() on %s", (_name, text, duplicateKeys, unsafeIntegers) => {
    expect(checkStrictJson(text)).toEqual({ duplicateKeys, unsafeIntegers, tooDeep: false });
    expect(repeatsAKey(text, JSON.parse(text))).toBe(duplicateKeys);
    expect(checkStrictJson(text, { repeatsKey: duplicateKeys })).toEqual({
      duplicateKeys,
      unsafeIntegers,
      tooDeep: false,
    });
  });

  test("checkStrictJson() reports nesting past 1,000 levels, brackets inside strings not counted", () => {
    const at = (depth: number): string => `{"a":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
    expect(checkStrictJson(at(1000)).tooDeep).toBe(false);
    expect(checkStrictJson(at(1001)).tooDeep).toBe(true);
    expect(checkStrictJson(JSON.stringify({ a: "[".repeat(5000) })).tooDeep).toBe(false);
    expect(checkStrictJson(at(1001), { repeatsKey: false, value: {} }).tooDeep).toBe(true);
  });

  test("checkStrictJson() survives deep nesting without recursion", () => {
    const depth = 100_000;
    const text = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    expect(checkStrictJson(text)).toEqual({ duplicateKeys: false, unsafeIntegers: false, tooDeep: true });
    expect(repeatsAKey(text, JSON.parse(text))).toBe(false);
    const repeated = `${'{"a":'.repeat(depth)}{"b":1,"b":2}${"}".repeat(depth)}`;
    expect(repeatsAKey(repeated, JSON.parse(repeated))).toBe(true);
  });
});

/** JSON texts built from pieces, with keys that repeat (directly or through escapes) and odd numbers. */
const keys = fc.constantFrom("a", "b", "\\u0061", "__proto__", "constructor", 'a\\"b', "", " a", "0");
const numbers = fc.constantFrom(
  "0",
  "-1",
  "3.5",
  "9007199254740991",
  "9007199254740992",
  "-9007199254740993",
  "1e5",
  "2E+400",
  "1.5e-7",
  "9007199254740991.9",
  "123456789012345",
);
const strings = fc.constantFrom('"x"', '"1e5"', '"\\"a\\":"', '"9007199254740993"', '"{\\"a\\":1}"', '""');
const json: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    numbers,
    strings,
    fc.constantFrom("true", "null"),
    tie("object"),
    tie("array"),
  ),
  object: fc
    .array(fc.tuple(keys, tie("value"), fc.constantFrom("", " ", "\n")), { maxLength: 5 })
    .map(
      (members) => `{${members.map(([key, value, space]) => `"${key}"${space}:${space}${value}`).join(",")}}`,
    ),
  array: fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(", ")}]`),
})).value as fc.Arbitrary<string>;

describe("checkStrictJson() with what the caller knows", () => {
  test("repeatsAKey() agrees with the walk on any JSON text", () => {
    fc.assert(
      fc.property(json, (text) => {
        expect(repeatsAKey(text, JSON.parse(text))).toBe(checkStrictJson(text).duplicateKeys);
      }),
      { numRuns: 3000 },
    );
  });

  test("checkStrictJson() given whether a key repeats reports what the walk reports", () => {
    fc.assert(
      fc.property(json, (text) => {
        const repeatsKey = repeatsAKey(text, JSON.parse(text));
        expect(checkStrictJson(text, { repeatsKey })).toEqual(checkStrictJson(text));
      }),
      { numRuns: 3000 },
    );
  });

  test("checkStrictJson() given the parsed value too (its numbers looked at, no walk) reports what the walk reports", () => {
    fc.assert(
      fc.property(json, (text) => {
        const value: unknown = JSON.parse(text);
        const repeatsKey = repeatsAKey(text, value);
        expect(checkStrictJson(text, { repeatsKey, value })).toEqual(checkStrictJson(text));
      }),
      { numRuns: 5000 },
    );
    // A string shaped like an unsafe number is no number: only the walk used to tell them apart.
    const text = '{"id":"9007199254740993e1","n":1}';
    expect(checkStrictJson(text, { repeatsKey: false, value: JSON.parse(text) })).toEqual({
      duplicateKeys: false,
      unsafeIntegers: false,
      tooDeep: false,
    });
    const big = '{"a":[{"b":12345678901234567890}]}';
    expect(checkStrictJson(big, { repeatsKey: false, value: JSON.parse(big) }).unsafeIntegers).toBe(true);
  });
});
