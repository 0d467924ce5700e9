/**
 * Which arguments of an exfiltrating tool are destinations, decided from the pinned input schema
 * alone (SPEC §2.5 "Which arguments are destinations", §4.4): the declared sinks, the sink-shaped
 * names and the arguments not in the schema, or every argument. Pure; schema keys are read through
 * own-property checks only (STYLE #6).
 * @module
 */

import { isJsonObject, member } from "./json-access.ts";
import { isSinkShapedName } from "./key-shapes.ts";
import { schemaProperties } from "./schema-walk.ts";
import type { JsonObject, JsonValue, Sourced } from "./types.ts";

/**
 * Inputs of {@link destinationRule} and `selectDestinations` (`destinations.ts`).
 *
 * Source: SPEC §2.5 "Which arguments are destinations", "Flattening", "Splitting".
 */
export interface SelectOptions {
  readonly tool: string;
  /** The pinned input schema; without one, every argument counts as "not in the schema". */
  readonly schema?: JsonObject | undefined;
  readonly sinkParams: readonly Sourced<string>[];
  readonly heuristics: boolean;
}

/** Whether a dotted parameter path exists in the schema (`properties`, and `items` for `[]`). */
function inSchema(schema: JsonObject | undefined, param: string): boolean {
  let node: JsonValue | undefined = schema;
  for (const raw of param.split(".")) {
    const key = raw.replace(/(\[\])+$/, "");
    const properties = isJsonObject(node) ? member(node, "properties") : undefined;
    if (!isJsonObject(properties) || !Object.hasOwn(properties, key)) return false;
    node = member(properties, key);
    for (let lists = (raw.length - key.length) / 2; lists > 0; lists -= 1) {
      node = isJsonObject(node) ? member(node, "items") : undefined;
    }
  }
  return true;
}

/**
 * Which arguments of an exfiltrating tool are destinations, decided from the pinned input schema
 * alone (never from the call): `named` — the declared sinks, the sink-shaped argument names and
 * every argument not in the schema; `every` — every argument, because the declared sinks are all
 * absent from the schema (`declared_not_in_schema`: fail closed), or because nothing is declared and
 * the schema has no sink-shaped argument (`no_sink_shaped`) or heuristics are off
 * (`heuristics_off`).
 *
 * Source: SPEC §2.5 "Which arguments are destinations", §4.4.
 * @param options - The tool, its pinned schema, the declared sinks and whether heuristics apply.
 * @returns The rule, with the tests `named` applies to a top-level argument name.
 * @example destinationRule({ tool: "send", schema: { properties: { to: {} } }, sinkParams: [], heuristics: true }).kind // "named"
 */
export function destinationRule(options: SelectOptions): DestinationRule {
  const { schema, sinkParams, heuristics, tool } = options;
  const properties = isJsonObject(schema) ? member(schema, "properties") : undefined;
  const schemaNames = isJsonObject(properties) ? Object.keys(properties) : [];
  const isSinkShaped = (name: string): boolean => heuristics && isSinkShapedName(name, tool);
  const declaredInSchema = sinkParams.some((sink) => inSchema(schema, sink.value));
  const topSinkShaped = sinkParams.length === 0 && schemaNames.some(isSinkShaped);
  // A sink-shaped name nested in the schema (`message.to`, also behind a `$ref`) names the
  // destinations as a top-level one does: the nested walk of `selectDestinations` finds them.
  const nestedSinkShaped =
    sinkParams.length === 0 && !topSinkShaped && hasNestedSinkShaped(schema, { tool, heuristics });
  if (declaredInSchema || topSinkShaped || nestedSinkShaped) {
    return {
      kind: "named",
      isSinkShaped,
      inSchema: (name) => isJsonObject(properties) && Object.hasOwn(properties, name),
      sinkShaped: schemaNames.filter(isSinkShaped),
    };
  }
  const why =
    sinkParams.length > 0 ? "declared_not_in_schema" : heuristics ? "no_sink_shaped" : "heuristics_off";
  return { kind: "every", why };
}

/** {@link hasNestedSinkShaped} by pinned schema (the same object on every call), then tool. */
const NESTED_SINK_SHAPED = new WeakMap<JsonObject, Map<string, boolean>>();

/**
 * Whether a sink-shaped name stands anywhere in a schema (through `$ref`s and alternatives): the
 * whole schema is walked once per pinned schema and tool, not on every call.
 * @param schema - The pinned input schema.
 * @param at - The tool (its name decides `target`) and whether heuristics apply.
 * @returns True when some property name is sink-shaped.
 */
function hasNestedSinkShaped(
  schema: JsonObject | undefined,
  at: { readonly tool: string; readonly heuristics: boolean },
): boolean {
  if (!at.heuristics || !isJsonObject(schema)) return false;
  let byTool = NESTED_SINK_SHAPED.get(schema);
  if (byTool === undefined) {
    byTool = new Map();
    NESTED_SINK_SHAPED.set(schema, byTool);
  }
  const cached = byTool.get(at.tool);
  if (cached !== undefined) return cached;
  const found = schemaProperties(schema).some(([name]) => isSinkShapedName(name, at.tool));
  byTool.set(at.tool, found);
  return found;
}

/**
 * The outcome of {@link destinationRule}.
 *
 * Source: SPEC §2.5 "Which arguments are destinations".
 */
export type DestinationRule =
  | {
      readonly kind: "named";
      /** Whether a top-level argument name is sink-shaped (§4.4; false when heuristics are off). */
      readonly isSinkShaped: (name: string) => boolean;
      /** Whether a top-level argument name is a property of the pinned schema. */
      readonly inSchema: (name: string) => boolean;
      /** The schema's sink-shaped property names, in schema order. */
      readonly sinkShaped: readonly string[];
    }
  | {
      readonly kind: "every";
      readonly why: "declared_not_in_schema" | "no_sink_shaped" | "heuristics_off";
    };
