/**
 * A parsed plain value as a policy document (SPEC §4.2): mappings, lists and scalars as the
 * validators see them, and a pack's leading comment read from its text.
 */

import { describe, expect, test } from "bun:test";
import { leadingComment, valueSource } from "../../src/policy/value-source.ts";

describe("valueSource()", () => {
  test("valueSource() shows plain objects as mappings, arrays as lists and the rest as scalars or nothing", () => {
    const { tree } = valueSource({ a: [1, "x"], b: null }, { file: "p.yaml", text: "" });
    expect(tree.shape(tree.root)).toBe("map");
    expect(tree.pairs(tree.root).map((pair) => pair.key)).toEqual(["a", "b"]);
    expect(tree.shape([1])).toBe("seq");
    expect(tree.items([1, "x"])).toEqual([1, "x"]);
    expect(tree.shape("x")).toBe("scalar");
    expect(tree.scalar(null)).toBeNull();
    expect(tree.shape(new Map())).toBeUndefined();
    expect(tree.shape(undefined)).toBeUndefined();
    expect(tree.position(tree.root)).toEqual({ line: 1, column: 1 });
  });
});

describe("leadingComment()", () => {
  test("leadingComment() returns the comment lines a text starts with, without their #", () => {
    expect(leadingComment("# one\n#two\n\nversion: 1\n# later\n")).toBe(" one\ntwo");
  });

  test("leadingComment() is empty for a text that starts with content", () => {
    expect(leadingComment("version: 1 # not a header\n")).toBe("");
  });

  test("leadingComment() cannot tell where a header of two comment blocks ends", () => {
    expect(leadingComment("# one\n\n# two\n\nversion: 1\n")).toBeUndefined();
  });
});
