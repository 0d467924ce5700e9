import { describe, expect, test } from "bun:test";
import { isNode, type Node, parseDocument, visit } from "yaml";
import { forEachYamlNode } from "../../src/engine/index.ts";

/** The nodes the `yaml` library's own visit meets, in its order. */
function visited(text: string): Node[] {
  const nodes: Node[] = [];
  visit(parseDocument(text), { Node: (_key, node) => void nodes.push(node) });
  return nodes;
}

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
  ])("forEachYamlNode() meets the nodes of %s in the yaml library's visit order", (_name, text) => {
    const a = visited(text).map((node) => String(node));
    const b = walked(text).map((node) => String(node));
    expect(b).toEqual(a);
    expect(walked(text).every((node) => isNode(node))).toBe(true);
  });

  test("forEachYamlNode() walks a document nested 3,000 levels deep, every node once", () => {
    const depth = 3000;
    expect(walked(`a: ${"[".repeat(depth)}${"]".repeat(depth)}\n`)).toHaveLength(depth + 2);
  });
});
