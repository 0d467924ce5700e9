import { describe, expect, test } from "bun:test";
import { isNode, type Node, parseDocument, visit } from "yaml";
import { forEachYamlNode } from "../../src/engine/index.ts";

function walked(text: string): Node[] {
  const nodes: Node[] = [];
  forEachYamlNode(parseDocument(text), (node) => nodes.push(node));
  return nodes;
}

describe("forEachYamlNode()", () => {
  test.each([
    ["a mapping with a nested sequence", "a: [1, 2]\nb: { c: d }\n"],
    ["anchors and aliases", "x: &k [1, { y: *k }]\nz: *k\n"],
    ["complex keys", "? [a, b]\n: c\n"],
    ["a bare scalar", "hello\n"],
    ["an empty document", ""],
    ["tags and comments", "# c\n!t a: !!str 1 # d\n"],
    ["a redefined anchor (alias resolution depends on the order)", "a: &x 1\nb: &x 1\nc: *x\n"],
  ])("forEachYamlNode() meets the very nodes of %s in the yaml library's visit order", (_name, text) => {
    const doc = parseDocument(text);
    const expected: Node[] = [];
    visit(doc, { Node: (_key, node) => void expected.push(node) });
    const got: Node[] = [];
    forEachYamlNode(doc, (node) => got.push(node));
    expect(got).toHaveLength(expected.length);
    for (const [index, node] of got.entries()) expect(node).toBe(expected[index] as Node);
    expect(got.every((node) => isNode(node))).toBe(true);
  });

  test("forEachYamlNode() walks a document nested 3,000 levels deep, every node once", () => {
    const depth = 3000;
    expect(walked(`a: ${"[".repeat(depth)}${"]".repeat(depth)}\n`)).toHaveLength(depth + 2);
  });
});
