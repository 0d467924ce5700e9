import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { canonicalJson } from "../../src/engine/index.ts";

describe("canonicalJson()", () => {
  test.each<[string, unknown, string]>([
    [
      "sorts keys at every level",
      { b: 1, a: { d: [1, { z: 0, y: 1 }], c: null } },
      '{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}',
    ],
    ["uses fixed separators without whitespace", { a: [1, 2] }, '{"a":[1,2]}'],
    ["leaves out undefined members", { a: undefined, b: 1 }, '{"b":1}'],
    ["writes non-finite numbers as null", [Number.NaN, Number.POSITIVE_INFINITY], "[null,null]"],
    ["sorts keys by UTF-16 code units", { é: 1, z: 2, Z: 3 }, '{"Z":3,"z":2,"é":1}'],
    ["escapes strings as JSON does", { s: 'a"\n' }, '{"s":"a\\"\\n"}'],
  ])("canonicalJson() %s", (_rule, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  test("canonicalJson() serialises an own __proto__ key like any other", () => {
    const value: unknown = JSON.parse('{"__proto__": {"x": 1}, "a": 2}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"a":2}');
  });

  test("canonicalJson() is stable under key order and round-trips through JSON.parse (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        const reordered: unknown = JSON.parse(JSON.stringify(value, null, 1));
        return canonicalJson(JSON.parse(text)) === text && canonicalJson(reordered) === text;
      }),
    );
  });

  test("canonicalJson() writes values nested 100,000 levels deep, lists and objects, without running out of stack", () => {
    const depth = 100_000;
    let value: unknown = { b: 1, a: "x" };
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value, i] : { z: value, y: null };
    const text = canonicalJson(value);
    expect(text.startsWith('{"y":null,"z":[{"y":null,"z":[')).toBe(true);
    expect(text).toContain('{"a":"x","b":1}');
    expect(text.endsWith(`,${depth - 2}]}`)).toBe(true);
    expect(text.length).toBeGreaterThan(depth * 10);
  });
});
