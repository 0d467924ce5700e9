/**
 * What a schema node says of a value's shape (`valueShapes`), for a string met where an object or
 * a list may stand (SPEC §2.5: destinations nested in an argument). Pure.
 * @module
 */

import { isJsonObject, member } from "./json-access.ts";
import { schemaAlternatives } from "./schema-walk.ts";
import type { JsonObject, JsonValue } from "./types.ts";

/** JSON Schema keywords that only an object's or a list's schema has. */
const CONTAINER_KEYWORDS = [
  "properties",
  "additionalProperties",
  "patternProperties",
  "required",
  "items",
  "prefixItems",
  "contains",
] as const;

/**
 * What a node's schema says of a value's shape, for a string met where it may stand for an object
 * or a list: whether it admits a string, whether it admits an object or a list, and whether it says
 * anything of the type at all. Read from `type` (a name or a list of names) and, where a node has no
 * `type`, from the keywords only an object's or a list's schema has — on the node itself (its `$ref`
 * followed) and its `anyOf`/`oneOf`/`allOf` alternatives.
 *
 * Source: SPEC §2.5 (destinations nested in an argument); review of the sink gate (a model argument
 * sent as a JSON string, which the MCP Python SDK parses before validating).
 * @param root - The whole input schema.
 * @param node - A schema node.
 * @returns `{ string, container, typed }`: `typed` false for a schema that constrains nothing (`{}`).
 */
export function valueShapes(root: JsonObject | undefined, node: JsonValue | undefined): ValueShapes {
  // Asked for every string of a call's value: computed once per schema node, as listedProperties.
  if (!isJsonObject(node)) return shapesUncached(root, node);
  const cached = SHAPES.get(node);
  if (cached !== undefined) return cached;
  const shapes = shapesUncached(root, node);
  SHAPES.set(node, shapes);
  return shapes;
}

/** What {@link valueShapes} says of a schema node. */
export interface ValueShapes {
  /** The node admits a string. */
  readonly string: boolean;
  /** The node admits an object or a list. */
  readonly container: boolean;
  /** The node says something of the type (false for `{}`). */
  readonly typed: boolean;
}

/** {@link valueShapes} by schema node (a schema is pinned: its nodes do not change). */
const SHAPES = new WeakMap<JsonObject, ValueShapes>();

function shapesUncached(root: JsonObject | undefined, node: JsonValue | undefined): ValueShapes {
  let string = false;
  let container = false;
  let typed = false;
  for (const alternative of schemaAlternatives(root, node)) {
    const type = member(alternative, "type");
    const names = typeof type === "string" ? [type] : Array.isArray(type) ? type : [];
    for (const name of names) {
      if (typeof name !== "string") continue;
      typed = true;
      if (name === "string") string = true;
      else if (name === "object" || name === "array") container = true;
    }
    if (names.length > 0) continue;
    if (CONTAINER_KEYWORDS.some((keyword) => member(alternative, keyword) !== undefined)) {
      typed = true;
      container = true;
    }
  }
  return { string, container, typed };
}
