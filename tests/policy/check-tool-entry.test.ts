import { describe, expect, test } from "bun:test";
import { compilePattern } from "../../src/policy/check-tool-entry.ts";

describe("compilePattern() (SPEC §2.4: anchored, Unicode, at most 1,000 characters)", () => {
  test.each([
    ["read|write", "read", true],
    ["read|write", "write", true],
    ["read|write", "readwrite", false],
    ["read|write", "xread", false],
    ["[a-z]+", "abc\ndef", false],
    ["\\p{L}+", "été", true],
    [".", "😀", true],
  ] as const)("compilePattern(%p) tests %p as %p", (pattern, value, expected) => {
    const compiled = compilePattern(pattern);
    expect(compiled).toBeInstanceOf(RegExp);
    expect((compiled as RegExp).test(value)).toBe(expected);
  });

  test.each([
    ["(read", "unbalanced group"],
    ["a)(b", "valid only inside the wrapper"],
    ["\\p{Nope}", "an unknown Unicode property"],
    ["a{", "a lone brace (invalid under the u flag)"],
    ["x".repeat(1001), "over 1,000 characters"],
  ])("compilePattern(%p) refuses %s", (pattern) => {
    expect(typeof compilePattern(pattern)).toBe("string");
  });

  test("compilePattern() accepts exactly 1,000 characters", () => {
    expect(compilePattern("x".repeat(1000))).toBeInstanceOf(RegExp);
  });
});
