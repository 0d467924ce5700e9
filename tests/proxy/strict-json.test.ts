import { describe, expect, test } from "bun:test";
import { checkStrictJson } from "../../src/proxy/strict-json.ts";

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
    expect(checkStrictJson(text)).toEqual({ duplicateKeys, unsafeIntegers });
  });

  test("checkStrictJson() survives deep nesting without recursion", () => {
    const depth = 100_000;
    const text = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    expect(checkStrictJson(text)).toEqual({ duplicateKeys: false, unsafeIntegers: false });
  });
});
