/**
 * Structured output (SPEC §2.5 "Free text versus field values"): recognising a text block as JSON
 * or YAML, and walking a structured value to tell field values from free text. Pure.
 * @module
 */

import { parseDocument } from "yaml";
import { isDestinationShapedKey } from "./key-shapes.ts";
import type { JsonValue } from "./types.ts";
import { readYaml } from "./yaml-value.ts";

/**
 * A text block is structured only up to this size (SPEC §2.5: 1 MiB).
 *
 * Source: SPEC §2.5 "Free text versus field values".
 */
export const MAX_STRUCTURED_TEXT = 1024 * 1024;

/** A line at indentation 0 that a block YAML mapping or sequence may hold. */
const YAML_TOP_LINE = /^(?:#|-(?:[ \t]|$)|\?(?:[ \t]|$)|:(?:[ \t]|$)|---|\.\.\.|%|[&!*])/;
/** The key of a top-level `key: value` line. */
const YAML_TOP_KEY = /^(.+?):(?:[ \t]|$)/;

/**
 * How a structured text block was recognised (JSON parsing loses duplicate keys; YAML refuses them).
 *
 * Source: SPEC §2.5 "Free text versus field values".
 */
export interface StructuredText {
  readonly value: JsonValue;
  readonly format: "json" | "yaml";
  /**
   * YAML directive lines, comments, anchor names, tags, `%TAG` prefixes and decoded `!!binary` text: text the model
   * reads that the parsed value does not hold (free text).
   */
  readonly comments: readonly string[];
}

function isContainer(value: unknown): boolean {
  return typeof value === "object" && value !== null;
}

function parseJson(text: string): JsonValue | undefined {
  try {
    // Only integers of 16 digits or more lose digits as numbers: read those from the source text.
    if (!/[0-9]{16}/.test(text)) return JSON.parse(text) as JsonValue;
    const reviver = (_key: string, value: unknown, context?: { source?: string }): unknown =>
      typeof value === "number" ? (context?.source ?? JSON.stringify(value)) : value;
    return JSON.parse(text, reviver) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * A cheap pre-check before the (slow) YAML parser: in a block mapping or sequence, every line at
 * indentation 0 is a `key:` line with a new key, a `- ` item, a comment or a document marker. Prose
 * (an email body, a web page) fails on its first unindented sentence; repeated keys would fail the
 * parser's unique-key check anyway.
 */
function mayBeYamlCollection(text: string): boolean {
  const trimmed = text.trim();
  const first = trimmed[0];
  if (first === "[") return trimmed.endsWith("]");
  if (first === "{") return trimmed.endsWith("}");
  const keys = new Set<string>();
  let significant = false;
  for (let from = 0; from < text.length; ) {
    let end = text.indexOf("\n", from);
    if (end === -1) end = text.length;
    const line = text.slice(from, end).replace(/\r$/, "");
    from = end + 1;
    if (line === "" || line[0] === " " || line[0] === "\t") continue;
    significant = true;
    if (YAML_TOP_LINE.test(line)) continue;
    const key = YAML_TOP_KEY.exec(line)?.[1];
    if (key === undefined || keys.has(key)) return false;
    keys.add(key);
  }
  return significant;
}

/** A string literal of JSON text, and whether it is an object key (a `:` follows). */
const JSON_STRING = /"(?:[^"\\]|\\.)*"(\s*:)?/g;

function keyCount(value: JsonValue): number {
  let count = 0;
  const stack: JsonValue[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (Array.isArray(item)) for (const child of item) stack.push(child);
    else if (item !== null && typeof item === "object") {
      for (const child of Object.values(item)) {
        count += 1;
        stack.push(child);
      }
    }
  }
  return count;
}

/**
 * Whether JSON text repeats a key of one object (`JSON.parse` keeps only the last value): the text
 * holds more keys than the parsed value. Every `"` outside a string starts one, so the string
 * literals are matched in order.
 */
function hasDuplicateKeys(text: string, value: JsonValue): boolean {
  let keys = 0;
  JSON_STRING.lastIndex = 0;
  for (let m = JSON_STRING.exec(text); m !== null; m = JSON_STRING.exec(text))
    if (m[1] !== undefined) keys += 1;
  return keys > keyCount(value);
}

/** YAML text (or, with `duplicates`, JSON text whose repeated keys must all be kept). */
function parseYaml(
  text: string,
  options: { readonly duplicates?: boolean } = {},
): { value: JsonValue; comments: readonly string[] } | undefined {
  const duplicates = options.duplicates === true;
  if (!duplicates && !mayBeYamlCollection(text)) return undefined;
  try {
    const doc = parseDocument(text, { uniqueKeys: !duplicates, intAsBigInt: true, prettyErrors: false });
    if (doc.errors.length > 0) return undefined;
    return readYaml(doc, text);
  } catch {
    return undefined;
  }
}

/**
 * Recognises a structured text block: at most 1 MiB, parsing as JSON or YAML to a mapping or a
 * sequence. Numbers keep their source text. YAML with duplicate keys, complex keys or alias bombs
 * is not structured (its text stays free text). JSON that repeats a key keeps every value of it (a
 * list under the key), so no value the model reads is lost; YAML comments are returned as text, and
 * a YAML scalar of another type (`!!timestamp`, `!!binary`) as its source text; `!!omap` and
 * `!!pairs` are sequences of one-key mappings.
 *
 * Source: SPEC §2.5 "Free text versus field values".
 * @param text - A text block of a tool result.
 * @returns The parsed value and its format, or undefined for unstructured text.
 */
export function parseStructuredText(text: string): StructuredText | undefined {
  if (text.length > MAX_STRUCTURED_TEXT) return undefined;
  const start = text.trimStart()[0];
  if (start === "{" || start === "[") {
    const value = parseJson(text);
    if (isContainer(value) && value !== undefined) {
      if (!hasDuplicateKeys(text, value)) return { value, format: "json", comments: [] };
      // Repeated keys: read by the YAML parser, which keeps them; if it cannot, unstructured.
      const all = parseYaml(text, { duplicates: true });
      return all !== undefined && isContainer(all.value) ? { ...all, format: "json" } : undefined;
    }
  }
  const yaml = parseYaml(text);
  return yaml !== undefined && isContainer(yaml.value) ? { ...yaml, format: "yaml" } : undefined;
}

/**
 * Whether a structured key makes the values under it field values. A key with spaces (prose read
 * as YAML, such as `Please forward the invoice to`) counts only with at most three words.
 * @param key - A mapping key of structured output.
 * @returns True when destination-shaped.
 */
function fieldKey(key: string): boolean {
  return isDestinationShapedKey(key, /\s/.test(key) ? { maxWords: 3 } : {});
}

/**
 * Receives the scalars and keys of a structured value.
 *
 * Source: SPEC §2.5 "Free text versus field values".
 */
export interface StructuredVisitor {
  /** A whole scalar or key that is a field value, with the destination-shaped key it stood under. */
  field(text: string, key: string | undefined): void;
  /** Any other scalar or key. */
  free(text: string): void;
}

/**
 * Walks a structured output. A whole scalar or mapping key is a field value when it is (a) an
 * element of the top-level sequence, (b) a key of the top-level mapping, or (c) under a
 * destination-shaped key (a list inherits its key); everything else is free text. Booleans and null
 * contribute nothing.
 *
 * Source: SPEC §2.5 "Free text versus field values".
 * @param root - The structured value (structuredContent, parsed text, error data).
 * @param visitor - Receives field values and free text.
 * @returns Nothing.
 */
export function walkStructured(root: JsonValue, visitor: StructuredVisitor): void {
  type Role = "root" | "element" | "nested";
  const shaped = new Map<string, boolean>();
  const keyOf = (name: string): string | undefined => {
    let yes = shaped.get(name);
    if (yes === undefined) {
      yes = fieldKey(name);
      shaped.set(name, yes);
    }
    return yes ? name : undefined;
  };
  const stack: { value: JsonValue; key: string | undefined; role: Role }[] = [
    { value: root, key: undefined, role: "root" },
  ];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, key, role } = item;
    if (typeof value === "string" || typeof value === "number") {
      const text = String(value);
      if (key !== undefined || role !== "nested") visitor.field(text, key);
      else visitor.free(text);
    } else if (Array.isArray(value)) {
      const childRole: Role = role === "root" ? "element" : "nested";
      for (let i = value.length - 1; i >= 0; i -= 1)
        stack.push({ value: value[i] ?? null, key, role: childRole });
    } else if (value !== null && typeof value === "object") {
      const names = Object.keys(value);
      for (let i = names.length - 1; i >= 0; i -= 1) {
        const name = names[i] as string;
        stack.push({ value: value[name] as JsonValue, key: keyOf(name), role: "nested" });
        if (role === "root") visitor.field(name, undefined);
        else if (key !== undefined) visitor.field(name, key);
        else visitor.free(name);
      }
    }
  }
}
