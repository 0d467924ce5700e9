import { describe, expect, test } from "bun:test";
import { parse } from "smol-toml";
import { decodeBasicString, tomlString } from "../../src/init/toml-string.ts";

describe("tomlString()", () => {
  test.each([
    ["plain", "plain"],
    ['quote " and backslash \\', '"quote \\" and backslash \\\\"'],
    ["tab\tnewline\nDEL\u007f", '"tab\\tnewline\\nDEL\\u007f"'],
    ["日本 é", '"日本 é"'],
  ])("tomlString() encodes %j so that TOML reads it back", (value, literal) => {
    const encoded = tomlString(value);
    if (literal !== "plain") expect(encoded).toBe(literal);
    expect(parse(`v = ${encoded}`).v).toBe(value);
  });
});

describe("decodeBasicString()", () => {
  test.each([
    ['"plain"', "plain"],
    ['"tab\\tquote\\"back\\\\"', 'tab\tquote"back\\'],
    ['"\\u00e9\\U0001F600"', "é😀"],
  ])("decodeBasicString(%j) is %j", (literal, value) => {
    expect(decodeBasicString(literal)).toBe(value);
  });
});
