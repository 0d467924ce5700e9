/**
 * A parsed YAML document as the JSON value the taint walk reads, and the text the model reads that
 * the value does not hold (SPEC §2.5 "Free text versus field values", "Untrusted text, recorded").
 * Fails closed: a YAML construct that converts to no JSON value keeps its text. Pure.
 * @module
 */

import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node } from "yaml";
import type { JsonObject, JsonValue } from "./types.ts";
import { forEachYamlNode } from "./yaml-walk.ts";

/** Nodes visited while converting YAML (aliases included) before giving up: an alias-bomb guard. */
const MAX_YAML_NODES = 200_000;
/** The prefix of YAML's own tags (`!!str`, the default `!!` handle). */
const YAML_TAGS = "tag:yaml.org,2002:";
/** YAML's own types (`!!str`, `!!binary`…): the only `!!` tags that are not text of the output. */
const YAML_TYPES = new Set([
  ...["str", "int", "float", "bool", "null", "map", "seq", "binary", "timestamp"],
  ...["omap", "pairs", "set", "merge", "value", "yaml"],
]);

/** The text a tag or `%TAG` prefix shows the model: what follows `tag:yaml.org,2002:`, or all of it. */
function tagText(tag: string): string | undefined {
  if (!tag.startsWith(YAML_TAGS)) return tag;
  const rest = tag.slice(YAML_TAGS.length);
  return rest === "" || YAML_TYPES.has(rest) ? undefined : rest;
}

/**
 * The directive lines of a document that starts with `---` (`%YAML 1.2`, `%TAG …`, and unknown
 * ones, which the parser drops with a warning: `%Hi! Forward the invoice to …`).
 */
function directiveLines(source: string, comments: string[]): void {
  for (let from = 0; from < source.length; ) {
    let end = source.indexOf("\n", from);
    if (end === -1) end = source.length;
    const line = source.slice(from, end);
    if (line.startsWith("---")) return;
    if (line.startsWith("%")) comments.push(line);
    from = end + 1;
  }
}

/**
 * A YAML document read for the taint walk.
 *
 * Source: SPEC §2.5 "Free text versus field values".
 */
export interface YamlValue {
  /** Mappings as objects, sequences as lists, scalars as their text; booleans and null as null. */
  readonly value: JsonValue;
  /**
   * Directive lines, comments, anchor names, tags, `%TAG` prefixes and the decoded text of `!!binary` scalars: text
   * the model reads (or can decode) that the value does not hold, to be recorded as free text.
   */
  readonly comments: readonly string[];
}

/** The text of a scalar the value of which is no string, number, boolean or null. */
function otherScalarText(value: unknown, source: string | undefined, comments: string[]): string {
  // `!!binary`: the model reads its base64 and can decode it, so both are recorded.
  if (value instanceof Uint8Array) comments.push(new TextDecoder().decode(value));
  return source ?? String(value);
}

/**
 * Converts a YAML document's contents: strings as they are, numbers as their source text, booleans
 * and null as null, any other scalar (a `!!timestamp`, a `!!binary`, a merge key) as its source
 * text. A pair standing in a sequence (`!!omap`, `!!pairs`, `[ key: value ]`) is a one-key mapping.
 * A repeated key keeps every value, as a list under the key.
 * @throws TypeError for a complex key or a node of no known kind; RangeError past
 *   {@link MAX_YAML_NODES} nodes (the text is then unstructured: all of it free text).
 */
function convertYaml(root: Node | null, doc: Document, comments: string[]): JsonValue {
  let budget = MAX_YAML_NODES;
  const repeated = new Set<JsonValue[]>();
  const keyText = (key: unknown): string => {
    if (key === null) return "";
    if (!isScalar(key)) throw new TypeError("YAML output has a complex key");
    const v = key.value;
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean" || v === null)
      return key.source ?? String(v);
    return otherScalarText(v, key.source, comments);
  };
  const addPair = (out: JsonObject, pair: { key: unknown; value: unknown }): void => {
    const name = keyText(pair.key);
    const value = convert(pair.value);
    const before = Object.hasOwn(out, name) ? out[name] : undefined;
    if (before === undefined) out[name] = value;
    else if (Array.isArray(before) && repeated.has(before)) before.push(value);
    else {
      const all = [before, value];
      repeated.add(all);
      out[name] = all;
    }
  };
  const convert = (node: unknown): JsonValue => {
    budget -= 1;
    if (budget < 0) throw new RangeError("YAML output has too many nodes");
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return convert(node.resolve(doc));
    if (isScalar(node)) {
      const v = node.value;
      if (typeof v === "string") return v;
      if (typeof v === "number" || typeof v === "bigint") return node.source ?? String(v);
      if (typeof v === "boolean" || v === null) return null;
      return otherScalarText(v, node.source, comments);
    }
    if (isSeq(node)) {
      return node.items.map((item) => {
        if (!isPair(item)) return convert(item);
        const one: JsonObject = Object.create(null);
        addPair(one, item);
        return one;
      });
    }
    if (isMap(node)) {
      const out: JsonObject = Object.create(null);
      for (const pair of node.items) addPair(out, pair);
      return out;
    }
    throw new TypeError("YAML output has a node of no known kind");
  };
  return convert(root);
}

/**
 * What the model reads in YAML text that the parsed value does not hold: comments, anchor names,
 * tags and `%TAG` prefixes (`note: &attacker@evil.example …` plants an address in an anchor; of a
 * `!!` tag, what follows `tag:yaml.org,2002:` unless it names one of YAML's own types).
 */
function yamlComments(doc: Document, comments: string[]): void {
  const add = (node: { commentBefore?: string | null; comment?: string | null }): void => {
    if (typeof node.commentBefore === "string") comments.push(node.commentBefore);
    if (typeof node.comment === "string") comments.push(node.comment);
    const { anchor, tag } = node as { anchor?: unknown; tag?: unknown };
    if (typeof anchor === "string") comments.push(anchor);
    const text = typeof tag === "string" ? tagText(tag) : undefined;
    if (text !== undefined) comments.push(text);
  };
  add(doc);
  for (const prefix of Object.values(doc.directives?.tags ?? {})) {
    const text = tagText(prefix);
    if (text !== undefined) comments.push(text);
  }
  forEachYamlNode(doc, add);
}

/**
 * Reads a parsed YAML document for the taint walk. Nothing the model reads is lost: its directive
 * lines, comments, anchor names and tags are free text beside the value, a scalar that converts to
 * no string or number (`!!timestamp`, `!!binary`, an unknown type) keeps its source
 * text, a `!!binary` scalar's decoded bytes (UTF-8, invalid bytes replaced) are free text too, pairs
 * in a sequence (`!!omap`, `!!pairs`) are one-key mappings, `!!set` is a mapping of its members.
 *
 * Source: SPEC §2.5 "Free text versus field values", "Untrusted text, recorded"; review of the sink
 * gate (an unknown directive and `!!` tags were dropped).
 * @param doc - A document the `yaml` library parsed without errors.
 * @param source - The text it was parsed from, for its directive lines (the parser keeps only
 *   `%YAML` and `%TAG`).
 * @returns The value and the free text beside it.
 * @throws TypeError for a complex key or an unknown node; RangeError for an alias bomb.
 * @example readYaml(parseDocument("body: !!omap [ note: hi ]")).value // { body: [{ note: "hi" }] }
 */
export function readYaml(doc: Document, source?: string): YamlValue {
  const comments: string[] = [];
  const value = convertYaml(doc.contents, doc, comments);
  yamlComments(doc, comments);
  if (source !== undefined && doc.directives?.docStart === true) directiveLines(source, comments);
  return { value, comments };
}
