/**
 * YAML text → a located document, and the helpers the validators share: issues with line:column,
 * mapping walks that refuse hostile names, plain values for valibot, and value descriptions.
 * Pure.
 *
 * Source: SPEC §4.2 (strict validation with file, line:column, tool and key).
 * @module
 */

import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import type { PolicyIssue, PolicyIssueCode } from "./types.ts";

/** Names never accepted as tools, servers or keys (STYLE #6). */
const REFUSED_NAMES: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Aliases are followed at most this deep; plain values are built at most this deep. */
const MAX_DEPTH = 32;

/** A parsed YAML file with its issue list: what every validator writes into. */
export interface YamlSource {
  readonly file: string;
  readonly doc: Document.Parsed;
  readonly lines: LineCounter;
  readonly issues: PolicyIssue[];
}

/** Where an issue is about: which tool, server and key. */
export interface IssueContext {
  readonly tool?: string;
  readonly server?: string;
  readonly key?: string;
  readonly suggestion?: string;
}

/**
 * Parses YAML text into a document; syntax errors and warnings become `yaml_syntax` issues.
 *
 * @param text - The file's text.
 * @param file - The file name, for messages.
 * @returns The located source, with any syntax issues already recorded.
 * Source: SPEC §4.2 ("YAML syntax errors likewise").
 */
export function readYamlSource(text: string, file: string): YamlSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const source: YamlSource = { file, doc, lines, issues: [] };
  for (const error of [...doc.errors, ...doc.warnings]) {
    const detail = error.message.split("\n")[0]?.replace(/\.$/, "") ?? "invalid YAML";
    addIssue(source, { at: error.pos[0], code: "yaml_syntax", message: `YAML syntax error: ${detail}` });
  }
  return source;
}

/** One issue to record: where (a node, or a character offset), its code and its message. */
export interface IssueSpec extends IssueContext {
  /** The node the problem is about (located at its first character), or a character offset. */
  readonly at: unknown;
  readonly code: PolicyIssueCode;
  /** The detail, without location. */
  readonly message: string;
}

/**
 * Records an issue, located at a node's first character (or an offset; the start of the file
 * when the node has no position).
 *
 * @param source - The source being checked.
 * @param issue - Where, code, message, and the tool, server, key and suggestion it concerns.
 */
export function addIssue(source: YamlSource, issue: IssueSpec): void {
  const { at, code, message, ...context } = issue;
  const offset = typeof at === "number" ? at : nodeOffset(at);
  const { line, col } = source.lines.linePos(offset);
  source.issues.push({ code, file: source.file, line, column: col, message, ...context });
}

/**
 * The first character offset of a node, 0 when it has none.
 *
 * @param node - A YAML node, or anything else.
 * @returns Its start offset.
 */
export function nodeOffset(node: unknown): number {
  if (node !== null && typeof node === "object" && Object.hasOwn(node, "range")) {
    const range = (node as Node).range;
    if (range) return range[0];
  }
  return 0;
}

/**
 * Follows aliases to the node they stand for (at most {@link MAX_DEPTH} hops).
 *
 * @param source - The source the node belongs to.
 * @param node - A node, alias or null.
 * @returns The node itself, or the anchored node an alias points to.
 */
export function deref(source: YamlSource, node: unknown): unknown {
  let current = node;
  for (let i = 0; i < MAX_DEPTH && isAlias(current); i++) current = current.resolve(source.doc);
  return current;
}

/** One key/value pair of a mapping, with the key's text and both nodes. */
export interface Entry {
  readonly name: string;
  readonly keyNode: unknown;
  readonly valueNode: unknown;
}

/**
 * The entries of a mapping node, in order. Keys that are not strings or numbers, and the refused
 * names `__proto__`, `constructor`, `prototype` (and the empty name), are recorded as issues and
 * skipped.
 *
 * @param source - The source being checked.
 * @param mapNode - A YAML mapping node.
 * @param options - `what` the keys name, for messages (`tool`, `server`, `key`), and the issue
 * context of the enclosing entry.
 * @returns The accepted entries.
 */
export function mappingEntries(
  source: YamlSource,
  mapNode: unknown,
  options: { readonly what: string; readonly context?: IssueContext },
): Entry[] {
  const { what, context = {} } = options;
  const entries: Entry[] = [];
  if (!isMap(mapNode)) return entries;
  for (const pair of mapNode.items) {
    const keyNode = deref(source, pair.key);
    const raw = isScalar(keyNode) ? keyNode.value : undefined;
    if (typeof raw !== "string" && typeof raw !== "number") {
      addIssue(source, {
        ...context,
        at: pair.key,
        code: "wrong_type",
        message: `refused ${what} name: expected a string`,
      });
      continue;
    }
    const name = String(raw);
    if (name === "" || REFUSED_NAMES.has(name)) {
      addIssue(source, {
        ...context,
        at: pair.key,
        code: "refused_name",
        message: `refused ${what} name "${name}"`,
      });
      continue;
    }
    entries.push({ name, keyNode: pair.key, valueNode: pair.value });
  }
  return entries;
}

/** What {@link plainValue} returns for a value that expands past {@link MAX_NODES} nodes. */
export const TOO_LARGE: unique symbol = Symbol("too large");

/** A value may expand to at most this many nodes (aliases can multiply a small file). */
const MAX_NODES = 100_000;

/**
 * A node as a plain value for valibot: scalars as their value, lists as arrays, mappings as
 * null-prototype objects (so no key can reach `Object.prototype`). A value that expands past
 * 100,000 nodes through aliases gives {@link TOO_LARGE} instead.
 *
 * @param source - The source the node belongs to.
 * @param node - A YAML node.
 * @returns The plain value, or {@link TOO_LARGE}.
 */
export function plainValue(source: YamlSource, node: unknown): unknown {
  const budget = { left: MAX_NODES };
  const value = toPlain(source, node, { depth: 0, budget });
  return budget.left < 0 ? TOO_LARGE : value;
}

function toPlain(
  source: YamlSource,
  node: unknown,
  walk: { depth: number; budget: { left: number } },
): unknown {
  const target = deref(source, node);
  walk.budget.left -= 1;
  if (walk.depth > MAX_DEPTH || walk.budget.left < 0) return undefined;
  const next = { depth: walk.depth + 1, budget: walk.budget };
  if (isScalar(target)) return target.value;
  if (isSeq(target)) return target.items.map((item) => toPlain(source, item, next));
  if (isMap(target)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const pair of target.items) {
      const key = deref(source, pair.key);
      const name = isScalar(key) ? String(key.value) : "";
      Object.defineProperty(out, name, { value: toPlain(source, pair.value, next), enumerable: true });
    }
    return out;
  }
  return null;
}

/**
 * Describes a node's value for an error message: `the string "./out"`, `the number 3.5`, `a list`.
 *
 * @param source - The source the node belongs to.
 * @param node - A YAML node.
 * @returns A short phrase.
 */
export function describeNode(source: YamlSource, node: unknown): string {
  const target = deref(source, node);
  if (isMap(target)) return "a mapping";
  if (isSeq(target)) return "a list";
  const value = isScalar(target) ? target.value : null;
  if (value === null || value === undefined) return "nothing";
  if (typeof value === "string") return `the string ${JSON.stringify(cut(value))}`;
  if (typeof value === "number" || typeof value === "bigint") return `the number ${String(value)}`;
  if (typeof value === "boolean") return `the boolean ${String(value)}`;
  return "an unsupported value";
}

function cut(value: string): string {
  return value.length > 60 ? `${value.slice(0, 60)}…` : value;
}
