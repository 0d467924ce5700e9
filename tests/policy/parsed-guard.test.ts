/**
 * When another parser's value may stand for the `yaml` library's reading of a text (SPEC §4.2):
 * only in the plain subset, with every key counted and every string written verbatim.
 */

import { describe, expect, test } from "bun:test";
import { parsedValueStandsForText } from "../../src/policy/parsed-guard.ts";

describe("parsedValueStandsForText()", () => {
  test.each([
    ["a block mapping", "a:\n  b: [x, y]\n", { a: { b: ["x", "y"] } }],
    ["a flow mapping with a trailing comment", "a: { b: 1 } # c: d | e\n", { a: { b: 1 } }],
    [
      "a quoted glob and URL",
      'a: ["*@x.example", "https://h.example/p/*"]\n',
      { a: ["*@x.example", "https://h.example/p/*"] },
    ],
    ["an empty text", "", null],
  ])("parsedValueStandsForText() accepts %s", (_name, text, value) => {
    expect(parsedValueStandsForText(value, text)).toBe(true);
  });

  test.each([
    ["one key fewer than written (a duplicate)", "a: 1\na: 2\n", { a: 2 }],
    ["a string not in the text (an escape)", 'a: "\\u00e9"\n', { a: "é" }],
    ["a folded string", "a: x\n  y\n", { a: "x y" }],
    ["a null value", "a:\n", { a: null }],
    ["a number-like key", "1: x\n", { 1: "x" }],
    ["a boolean-like key", "True: x\n", { True: "x" }],
    ["an alias", "a: &x 1\nb: *x\n", { a: 1, b: 1 }],
    ["a tag", "a: !!str 1\n", { a: "1" }],
    ["a block scalar", "a: >\n  x\n", { a: "x\n" }],
    ["an explicit key", "? a\n: 1\n", { a: 1 }],
    ["a merge key", "<<: { a: 1 }\n", { a: 1 }],
    ["a document marker", "---\na: 1\n", { a: 1 }],
    ["a tab", "a:\t1\n", { a: 1 }],
    ["a line separator", "a: x\u2028y\n", { a: "x\u2028y" }],
    ["a prototype name", "__proto__: 1\n", {}],
    ["a line starting with a flow indicator", "a: 1\n,b: 2\n", { a: 1, ",b": 2 }],
    ["a flow collection over two lines", "a: { b: 1,\n  c: 2 }\n", { a: { b: 1, c: 2 } }],
    ["an infinite number", "a: .inf\n", { a: Number.POSITIVE_INFINITY }],
    ["a signed hex number (the parsers disagree)", "a: { max_calls: +0x10 }\n", { a: { max_calls: 16 } }],
    ["a signed octal number", "a: -0o7\n", { a: -7 }],
    ["a hex number beyond 64 bits", "a: [0x7fffffffffffffffffff]\n", { a: ["0x7fffffffffffffffffff"] }],
    ["a number with an exponent", "a: 1e2\n", { a: 100 }],
    ["a non-plain object", "a: 1\n", new Map([["a", 1]])],
    ["content where there is none", "a: 1\n", null],
  ])("parsedValueStandsForText() declines %s", (_name, text, value) => {
    expect(parsedValueStandsForText(value, text)).toBe(false);
  });
});
