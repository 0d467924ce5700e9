/**
 * YAML text → a located {@link PolicySource} through the `yaml` library: duplicate keys refused,
 * syntax errors and warnings recorded as issues with line:column, aliases followed (at most 32
 * hops), and every node's position kept for messages. The strict reading every error message comes
 * from. Pure.
 *
 * Source: SPEC §4.2 (strict validation with file, line:column, tool and key; "YAML syntax errors
 * likewise").
 * @module
 */

import {
  type Alias,
  type Document,
  isAlias,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
} from "yaml";
import { forEachYamlNode } from "../engine/index.ts";
import { addIssue, type PolicySource, type SourceTree } from "./policy-source.ts";

/** Aliases are followed at most this deep. */
const MAX_ALIAS_HOPS = 32;

/**
 * Parses YAML text into a located source; syntax errors and warnings become `yaml_syntax` issues.
 *
 * @param text - The file's text.
 * @param file - The file name, for messages.
 * @returns The source, with any syntax issues already recorded.
 * Source: SPEC §4.2 ("YAML syntax errors likewise").
 */
export function readYamlSource(text: string, file: string): PolicySource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const source: PolicySource = { file, tree: yamlTree(doc, lines), issues: [] };
  let tooDeep = false;
  for (const error of [...doc.errors, ...doc.warnings]) {
    let detail = error.message.split("\n")[0]?.replace(/\.$/, "") ?? "invalid YAML";
    // The parser's own stack ran out: a nesting no policy has, said once in words.
    if (/maximum call stack/i.test(detail)) {
      if (tooDeep) continue;
      tooDeep = true;
      detail = "values nest too deeply to read";
    }
    // The parser's advice is to a programmer (`please use YAML.parseAllDocuments()`): said to the
    // person who wrote the file.
    if (error.code === "MULTIPLE_DOCS")
      detail = "a policy file holds one YAML document, and a `---` line here starts another";
    addIssue(source, { at: error.pos[0], code: "yaml_syntax", message: `YAML syntax error: ${detail}` });
  }
  return source;
}

/**
 * The tree of a parsed YAML document.
 * @param doc - The document.
 * @param lines - Its line counter.
 * @returns The tree.
 */
function yamlTree(doc: Document.Parsed, lines: LineCounter): SourceTree {
  const targets = aliasTargets(doc);
  const deref = (node: unknown): unknown => {
    let current = node;
    for (let i = 0; i < MAX_ALIAS_HOPS && isAlias(current); i++) current = targets.get(current);
    return current;
  };
  return {
    root: doc.contents,
    shape: (node) => {
      const target = deref(node);
      if (isMap(target)) return "map";
      if (isSeq(target)) return "seq";
      return isScalar(target) ? "scalar" : undefined;
    },
    pairs: (node) => {
      const target = deref(node);
      return isMap(target) ? target.items.map((pair) => ({ key: pair.key, value: pair.value })) : [];
    },
    items: (node) => {
      const target = deref(node);
      return isSeq(target) ? target.items : [];
    },
    scalar: (node) => {
      const target = deref(node);
      return isScalar(target) ? target.value : undefined;
    },
    numberText: (node) => {
      const target = deref(node);
      if (!isScalar(target) || typeof target.value !== "number") return undefined;
      return typeof target.source === "string" ? target.source : undefined;
    },
    position: (at) => {
      const { line, col } = lines.linePos(typeof at === "number" ? at : nodeOffset(at));
      return { line, column: col };
    },
    leadingComment: () => {
      const root = deref(doc.contents);
      const firstKey = isMap(root) ? root.items[0]?.key : undefined;
      const rootComment = isMap(root)
        ? (root.commentBefore ?? (isScalar(firstKey) ? firstKey.commentBefore : undefined))
        : undefined;
      return doc.commentBefore ?? rootComment ?? "";
    },
  };
}

/**
 * What each alias of a document refers to, found in one walk: the last node before the alias (in
 * document order) carrying its anchor — the rule of the `yaml` library's `Alias.resolve`, which walks
 * the whole document on every call (a file with many aliases took minutes).
 *
 * @param doc - The document.
 * @returns Alias → its node (undefined for an alias without an anchor before it).
 */
function aliasTargets(doc: Document.Parsed): Map<Alias, unknown> {
  const anchors = new Map<string, unknown>();
  const targets = new Map<Alias, unknown>();
  forEachYamlNode(doc, (node) => {
    if (isAlias(node)) targets.set(node, anchors.get(node.source));
    else if ((isScalar(node) || isCollection(node)) && node.anchor) anchors.set(node.anchor, node);
  });
  return targets;
}

/**
 * The first character offset of a node, 0 when it has none.
 *
 * @param node - A YAML node, or anything else.
 * @returns Its start offset.
 */
function nodeOffset(node: unknown): number {
  if (node !== null && typeof node === "object" && Object.hasOwn(node, "range")) {
    const range = (node as Node).range;
    if (range) return range[0];
  }
  return 0;
}
