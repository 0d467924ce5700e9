/**
 * Reading a tool's input schema the way servers write it: local `$ref`s (`#/$defs/Message`, as
 * Python's pydantic and FastMCP emit nested models) and the alternatives of `anyOf`/`oneOf`/`allOf`.
 * Used by the schema heuristics (sink-shaped names at any depth, SPEC §4.4) and by destination
 * selection (which keys an object's schema lists, SPEC §2.5). Bounded: each schema node is visited
 * once however many references lead to it, so a hostile schema costs linear time. Pure.
 * @module
 */

import { isJsonObject, member } from "./json-access.ts";
import type { JsonObject, JsonValue } from "./types.ts";

/**
 * Schema nodes walked at most (each node is walked once, at any depth: a depth limit would let a
 * model first reached deep, and skipped there, hide from a shallow reference to it).
 */
const MAX_SCHEMA_NODES = 100_000;
/** References followed in a chain (`$ref` to a `$ref` …) before giving up. */
const MAX_REF_CHAIN = 16;

/**
 * The node a local JSON Pointer names (`#`, `#/$defs/Message`, `#/definitions/A~1B`), or undefined
 * for any other reference (remote, relative, malformed).
 * @param root - The whole input schema.
 * @param ref - The `$ref` value.
 * @returns The node.
 */
function pointer(root: JsonObject, ref: string): JsonValue | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: JsonValue | undefined = root;
  for (const raw of ref.slice(2).split("/")) {
    let key: string;
    try {
      key = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    key = key.replaceAll("~1", "/").replaceAll("~0", "~");
    node = isJsonObject(node) ? member(node, key) : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * A schema node with its local `$ref` chain followed (at most 16 links): the node itself when it
 * has no `$ref`, or the node the chain ends on.
 *
 * Source: SPEC §2.5, §4.4 (the pinned input schema).
 * @param root - The whole input schema.
 * @param node - Any node of it.
 * @returns The node it stands for (the input when a reference cannot be followed).
 */
function resolveRef(root: JsonObject | undefined, node: JsonValue | undefined): JsonValue | undefined {
  let current = node;
  for (let links = 0; links < MAX_REF_CHAIN && root !== undefined && isJsonObject(current); links += 1) {
    const ref = member(current, "$ref");
    if (typeof ref !== "string") return current;
    const next = pointer(root, ref);
    if (next === undefined) return current;
    current = next;
  }
  return current;
}

/**
 * The object schemas a node stands for: itself (its `$ref` followed) and the alternatives of its
 * `anyOf`/`oneOf`/`allOf`, one level deep, each followed too.
 *
 * Source: SPEC §2.5.
 * @param root - The whole input schema.
 * @param node - A schema node.
 * @returns The object nodes.
 */
export function schemaAlternatives(root: JsonObject | undefined, node: JsonValue | undefined): JsonObject[] {
  const self = resolveRef(root, node);
  if (!isJsonObject(self)) return [];
  const out = [self];
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const list = member(self, key);
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const resolved = resolveRef(root, item);
      if (isJsonObject(resolved)) out.push(resolved);
    }
  }
  return out;
}

/**
 * The properties a node's schema lists (its own, its `$ref`'s and its alternatives'), or undefined
 * when none of them lists any: a free-form object.
 *
 * Source: SPEC §2.5 "Which arguments are destinations".
 * @param root - The whole input schema.
 * @param node - A schema node.
 * @returns Property name → its schema node.
 */
export function listedProperties(
  root: JsonObject | undefined,
  node: JsonValue | undefined,
): Map<string, JsonValue> | undefined {
  // Asked once per object of a call's value: computed once per schema node (a list of 8,000
  // objects against a schema of 8,000 properties would otherwise rebuild the map 8,000 times).
  if (isJsonObject(node)) {
    const cached = LISTED.get(node);
    if (cached !== undefined) return cached.listed;
    const listed = listedUncached(root, node);
    LISTED.set(node, { listed });
    return listed;
  }
  return listedUncached(root, node);
}

/** {@link listedProperties} by schema node (a schema is pinned: its nodes do not change). */
const LISTED = new WeakMap<JsonObject, { readonly listed: Map<string, JsonValue> | undefined }>();

function listedUncached(
  root: JsonObject | undefined,
  node: JsonValue | undefined,
): Map<string, JsonValue> | undefined {
  let listed: Map<string, JsonValue> | undefined;
  for (const alternative of schemaAlternatives(root, node)) {
    const properties = member(alternative, "properties");
    if (!isJsonObject(properties)) continue;
    listed ??= new Map();
    for (const name of Object.keys(properties)) {
      if (!listed.has(name)) listed.set(name, member(properties, name) ?? {});
    }
  }
  return listed;
}

/**
 * Whether a node's schema admits keys it does not list: `additionalProperties` written as `true` or
 * as a schema, or `patternProperties`, on the node itself (its `$ref` followed) or one of its
 * alternatives. An `additionalProperties` left out counts as not admitting them: the listed
 * properties are what the tool reads (for the policy's warnings, never for deciding).
 *
 * Source: SPEC §2.4 (`write_params`, `arg_patterns` name arguments), §2.5 (`sink_params`).
 * @param root - The whole input schema.
 * @param node - A schema node.
 * @returns True when a key the schema does not list may still be one it reads.
 */
export function admitsUnlistedKeys(root: JsonObject | undefined, node: JsonValue | undefined): boolean {
  return schemaAlternatives(root, node).some((alternative) => {
    const extra = member(alternative, "additionalProperties");
    return extra === true || isJsonObject(extra) || isJsonObject(member(alternative, "patternProperties"));
  });
}

/**
 * A list node's `items` schema (its `$ref` and alternatives followed).
 *
 * Source: SPEC §2.5.
 * @param root - The whole input schema.
 * @param node - A schema node.
 * @returns The items node, or undefined.
 */
export function itemsOf(root: JsonObject | undefined, node: JsonValue | undefined): JsonValue | undefined {
  for (const alternative of schemaAlternatives(root, node)) {
    const items = member(alternative, "items");
    if (items !== undefined) return items;
  }
  return undefined;
}

/**
 * Every property name of an input schema at any depth — `properties`, list `items`, the
 * alternatives of `anyOf`/`oneOf`/`allOf`, and local `$ref`s — each with its property schema. Each
 * node is walked once (a model referred to from many places, or recursively, costs one walk), at
 * most {@link MAX_SCHEMA_NODES} of them.
 *
 * Source: SPEC §4.4 (sink-shaped argument names), §2.5.
 * @param schema - A JSON Schema object.
 * @returns `[name, propertySchema]` pairs, in walk order.
 */
export function schemaProperties(schema: JsonObject | undefined): [string, JsonObject][] {
  return walkSchema(schema).properties;
}

/**
 * {@link schemaProperties}, and whether the walk stopped at {@link MAX_SCHEMA_NODES} before it had
 * seen the whole schema (a caller that classifies by names then fails closed).
 *
 * Source: SPEC §4.4, §2.5.
 * @param schema - A JSON Schema object.
 * @returns The `[name, propertySchema]` pairs and `truncated`.
 */
export function walkSchema(schema: JsonObject | undefined): {
  readonly properties: [string, JsonObject][];
  readonly truncated: boolean;
} {
  let truncated = false;
  const out: [string, JsonObject][] = [];
  const seen = new Set<JsonObject>();
  const stack: (JsonValue | undefined)[] = [schema];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const node = item;
    if (!isJsonObject(node) || seen.has(node)) continue;
    if (seen.size >= MAX_SCHEMA_NODES) {
      truncated = true;
      break;
    }
    seen.add(node);
    const children: JsonValue[] = [];
    // A `$ref`'s target, and the keywords written beside it (both describe the value).
    const target = member(node, "$ref") === undefined ? undefined : resolveRef(schema, node);
    if (target !== undefined && target !== node) children.push(target);
    const properties = member(node, "properties");
    if (isJsonObject(properties)) {
      for (const name of Object.keys(properties)) {
        const child = member(properties, name);
        out.push([name, isJsonObject(child) ? child : {}]);
        children.push(child ?? null);
      }
    }
    // Every place a JSON Schema can hold a subschema: a name sink-shaped anywhere counts (pydantic's
    // `dict[str, Model]` is `additionalProperties: {$ref}`, a tuple `prefixItems`).
    for (const key of ["items", "additionalProperties", "contains", "if", "then", "else", "not"]) {
      const child = member(node, key);
      if (Array.isArray(child)) children.push(...child);
      else if (isJsonObject(child)) children.push(child);
    }
    for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
      const list = member(node, key);
      if (Array.isArray(list)) children.push(...list);
    }
    for (const key of ["patternProperties", "dependentSchemas", "$defs", "definitions"]) {
      const map = member(node, key);
      if (isJsonObject(map)) for (const name of Object.keys(map)) children.push(member(map, name) ?? null);
    }
    for (const child of children.reverse()) stack.push(child);
  }
  return { properties: out, truncated };
}
