import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { terminalJson } from "../../src/platform/terminal-json.ts";

/** What a terminal acts on or hides and JSON.stringify leaves raw. */
const RAW = /[\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|\u{e0041}/u;

describe("terminalJson()", () => {
  test("terminalJson() escapes C1 controls, DEL, bidi and zero-width characters and separators, and a tag character as its surrogates", () => {
    const value = { tool: "a\u009b2Jb\u007f\u202egnp\u200b\u2028\u{e0041}", n: 1 };
    const text = terminalJson(value);
    expect(text).not.toMatch(RAW);
    expect(text).toBe('{"tool":"a\\u009b2Jb\\u007f\\u202egnp\\u200b\\u2028\\udb40\\udc41","n":1}');
  });

  test("terminalJson() keeps the layout's line feeds when indenting", () => {
    expect(terminalJson({ a: ["\u0085"] }, 2)).toBe('{\n  "a": [\n    "\\u0085"\n  ]\n}');
  });

  test("terminalJson() reads back as the value JSON.stringify gives, for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, indent) => {
        const text = terminalJson(value, indent);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(text).not.toMatch(RAW);
      }),
    );
  });
});
