import { describe, expect, test } from "bun:test";
import { renderChangedLine } from "../../src/engine/changed-line.ts";

describe("renderChangedLine()", () => {
  test.each<[string, string, string]>([
    ["keeps single spaces inside the quotes", "a b  c", '"a b  c"'],
    ["counts whitespace runs other than spaces", "a\t\t\tb", '"a" <3 whitespace characters> "b"'],
    ["shows an empty line as an empty string", "", '""'],
  ])("renderChangedLine() %s", (_rule, line, expected) => {
    expect(renderChangedLine(line, { budget: 200 })).toEqual({ text: expected, notShown: 0 });
  });
});
