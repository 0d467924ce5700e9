/**
 * A policy or pack document as the validators see it — a tree of mappings, lists and scalars behind
 * a small interface — and the helpers they share: issues with line:column, mapping walks that
 * refuse hostile names, plain values for valibot, and value descriptions. Two trees implement it: a
 * YAML library document with positions (`yaml-source.ts`, what every error message comes from) and
 * an already parsed plain value without positions (`value-source.ts`, the fast path). One validator
 * over both, so the same tree gives the same result. Pure; no YAML library here.
 *
 * Source: SPEC §4.2 (strict validation with file, line:column, tool and key).
 * @module
 */

import type { PolicyIssue, PolicyIssueCode } from "./types.ts";

/** Names never accepted as tools, servers or keys (STYLE #6). */
const REFUSED_NAMES: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** The YAML 1.1 merge key, which the policy's YAML 1.2 reading takes as a plain key. */
const MERGE_KEY = "<<";

/** Plain values are built at most this deep. */
const MAX_DEPTH = 32;

/** What a node is, aliases followed. */
export type NodeShape = "map" | "seq" | "scalar";

/** The nodes of one document; every method follows aliases itself. */
export interface SourceTree {
  /** The document's root node (`undefined` or `null` for an empty document). */
  readonly root: unknown;
  /** The node's shape, or `undefined` for nothing (no node, or an unknown kind). */
  shape(node: unknown): NodeShape | undefined;
  /** A mapping's key and value nodes, in order; `[]` for anything else. */
  pairs(node: unknown): readonly { readonly key: unknown; readonly value: unknown }[];
  /** A list's item nodes, in order; `[]` for anything else. */
  items(node: unknown): readonly unknown[];
  /** A scalar's value; `undefined` for anything else. */
  scalar(node: unknown): unknown;
  /**
   * A number scalar's text as written (`008` for the number 8), when the tree keeps it; `undefined`
   * otherwise.
   */
  numberText(node: unknown): string | undefined;
  /**
   * The 1-based line and column of a node's first character, or of a character offset (1:1 when
   * unknown).
   */
  position(at: unknown): { readonly line: number; readonly column: number };
  /** The comment before the document's first content (a pack's header), `""` when none. */
  leadingComment(): string;
}

/** A document with its issue list: what every validator writes into. */
export interface PolicySource {
  readonly file: string;
  readonly tree: SourceTree;
  readonly issues: PolicyIssue[];
}

/** Where an issue is about: which tool, server and key. */
export interface IssueContext {
  readonly tool?: string;
  readonly server?: string;
  readonly key?: string;
  readonly suggestion?: string;
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
 * Records an issue, located at a node's first character or an offset (the start of the file when
 * the node has no position).
 *
 * @param source - The source being checked.
 * @param issue - Where, code, message, and the tool, server, key and suggestion it concerns.
 */
export function addIssue(source: PolicySource, issue: IssueSpec): void {
  const { at, code, message, ...context } = issue;
  const { line, column } = source.tree.position(at);
  source.issues.push({ code, file: source.file, line, column, message, ...context });
}

/** One key/value pair of a mapping, with the key's text and both nodes. */
export interface Entry {
  readonly name: string;
  readonly keyNode: unknown;
  readonly valueNode: unknown;
}

/**
 * The entries of a mapping node, in order. Keys that are not strings or numbers, numbers written
 * otherwise than as their own text (`008`, `1.0`, `0x1F`: the name would change), the refused
 * names `__proto__`, `constructor`, `prototype` (and the empty name), and a name given a second
 * time (through an alias, or as `1` beside `"1"`) are recorded as issues and skipped.
 *
 * @param source - The source being checked.
 * @param mapNode - A mapping node.
 * @param options - `what` the keys name, for messages (`tool`, `server`, `key`), and the issue
 * context of the enclosing entry.
 * @returns The accepted entries.
 */
export function mappingEntries(
  source: PolicySource,
  mapNode: unknown,
  options: { readonly what: string; readonly context?: IssueContext },
): Entry[] {
  const { what, context = {} } = options;
  const { tree } = source;
  const entries: Entry[] = [];
  const seen = new Set<string>();
  if (tree.shape(mapNode) !== "map") return entries;
  for (const pair of tree.pairs(mapNode)) {
    const raw = tree.shape(pair.key) === "scalar" ? tree.scalar(pair.key) : undefined;
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
    const written = typeof raw === "number" ? tree.numberText(pair.key) : undefined;
    if (written !== undefined && written !== name) {
      // `008:` is the number 8 to YAML: its entry would be kept under the name "8", not "008".
      addIssue(source, {
        ...context,
        at: pair.key,
        code: "wrong_type",
        message: `refused ${what} name ${written}: YAML reads it as the number ${name}; write the name in quotes ("${written}")`,
      });
      continue;
    }
    if (seen.has(name)) {
      // The `yaml` library refuses a repeated plain key, but not one written through an alias
      // (`*k : false` after `&k exfiltrating: true`) nor `1` beside `"1"`: the later would win.
      addIssue(source, {
        ...context,
        at: pair.key,
        code: "duplicate_key",
        message: `${what} name "${name}" is given twice in this mapping`,
      });
      continue;
    }
    seen.add(name);
    if (name === MERGE_KEY) {
      // Read as a plain key (YAML 1.2 has no merge keys): it would be "unknown key" or a tool "<<".
      const tool = context.tool === undefined ? "" : ` in tool "${context.tool}"`;
      const server = context.server === undefined ? "" : ` of server "${context.server}"`;
      addIssue(source, {
        ...context,
        key: MERGE_KEY,
        at: pair.key,
        code: "unknown_key",
        message: `merge key "<<"${tool}${server} is not supported: YAML merge keys are not read, so write the keys out in each entry (anchors and aliases of whole values still work)`,
      });
      continue;
    }
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

/** What {@link plainValue} returns for a value holding a mapping with a key given twice. */
export const REPEATED_KEY: unique symbol = Symbol("repeated key");

/** A value may expand to at most this many nodes (aliases can multiply a small file). */
const MAX_NODES = 100_000;

/** All values of one file together may expand to at most this many nodes. */
const MAX_FILE_NODES = 10_000_000;

/** The nodes each source may still expand to, over all {@link plainValue} calls. */
const fileBudgets = new WeakMap<PolicySource, { left: number }>();

/**
 * A node as a plain value for valibot: scalars as their value, lists as arrays, mappings as
 * null-prototype objects (so no key can reach `Object.prototype`). A value that expands past
 * 100,000 nodes through aliases, or past what is left of the file's 10,000,000 (all its values
 * together), gives {@link TOO_LARGE} instead; one holding a mapping with a key given twice (through
 * an alias, or `1` beside `"1"`), {@link REPEATED_KEY}.
 *
 * @param source - The source the node belongs to.
 * @param node - A node.
 * @returns The plain value, or {@link TOO_LARGE}.
 */
export function plainValue(source: PolicySource, node: unknown): unknown {
  const file = fileBudgets.get(source) ?? { left: MAX_FILE_NODES };
  fileBudgets.set(source, file);
  const budget = { left: Math.min(MAX_NODES, file.left), repeated: false };
  const before = budget.left;
  const value = toPlain(source.tree, node, { depth: 0, budget });
  file.left -= before - budget.left;
  if (budget.left < 0) return TOO_LARGE;
  return budget.repeated ? REPEATED_KEY : value;
}

function toPlain(
  tree: SourceTree,
  node: unknown,
  walk: { depth: number; budget: { left: number; repeated: boolean } },
): unknown {
  walk.budget.left -= 1;
  if (walk.depth > MAX_DEPTH || walk.budget.left < 0) return undefined;
  const next = { depth: walk.depth + 1, budget: walk.budget };
  const shape = tree.shape(node);
  if (shape === "scalar") return tree.scalar(node);
  if (shape === "seq") return tree.items(node).map((item) => toPlain(tree, item, next));
  if (shape === "map") {
    const out: Record<string, unknown> = Object.create(null);
    for (const pair of tree.pairs(node)) {
      const name = tree.shape(pair.key) === "scalar" ? String(tree.scalar(pair.key)) : "";
      if (Object.hasOwn(out, name)) {
        walk.budget.repeated = true;
        continue;
      }
      Object.defineProperty(out, name, { value: toPlain(tree, pair.value, next), enumerable: true });
    }
    return out;
  }
  return null;
}

/**
 * Describes a node's value for an error message: `the string "./out"`, `the number 3.5`, `a list`.
 *
 * @param source - The source the node belongs to.
 * @param node - A node.
 * @returns A short phrase.
 */
export function describeNode(source: PolicySource, node: unknown): string {
  const shape = source.tree.shape(node);
  if (shape === "map") return "a mapping";
  if (shape === "seq") return "a list";
  const value = shape === "scalar" ? source.tree.scalar(node) : null;
  if (value === null || value === undefined) return "nothing";
  if (typeof value === "string") return `the string ${JSON.stringify(cut(value))}`;
  if (typeof value === "number" || typeof value === "bigint") return `the number ${String(value)}`;
  if (typeof value === "boolean") return `the boolean ${String(value)}`;
  return "an unsupported value";
}

function cut(value: string): string {
  return value.length > 60 ? `${value.slice(0, 60)}…` : value;
}
