import { describe, expect, test } from "bun:test";
import { patternText, renderPattern } from "../../src/engine/index.ts";
import { compilePattern } from "../../src/policy/check-tool-entry.ts";

function compiled(text: string): RegExp {
  const regex = compilePattern(text);
  if (typeof regex === "string") throw new Error(regex);
  return regex;
}

describe("patternText() and renderPattern() (SPEC §2.4: the reason names the rule)", () => {
  test.each([
    ["a backslash escape as written", "a\\.b", '"a\\.b"'],
    ["a slash, which RegExp.source escapes", "https://x/y", '"https://x/y"'],
    ["an escaped backslash before a slash", "a\\\\/b", '"a\\\\/b"'],
    ["an alternation", "share|unshare", '"share|unshare"'],
  ])("renderPattern() shows %s", (_name, text, shown) => {
    expect(patternText(compiled(text))).toBe(text);
    expect(renderPattern(compiled(text))).toBe(shown);
  });

  test("renderPattern() escapes control characters and cuts a long pattern at 200 code points", () => {
    expect(renderPattern(compiled("a\u001bb"))).toBe('"a\\u{1b}b"');
    const long = renderPattern(compiled("x".repeat(300)));
    expect(long).toBe(`"${"x".repeat(200)}…"`);
  });
});
