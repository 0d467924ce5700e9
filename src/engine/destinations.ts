/**
 * Which argument values are destinations (SPEC §2.5): selection from the pinned input schema and
 * flattening (splitting is `destination-pieces.ts`). Pure; argument keys are hostile
 * (STYLE #6) and read through own-property checks only.
 * @module
 */

import { isJsonObject, member } from "./json-access.ts";
import { isSinkShapedName } from "./key-shapes.ts";
import { collectParamValues } from "./param-paths.ts";
import { itemsOf, listedProperties, schemaProperties } from "./schema-walk.ts";
import type { JsonObject, JsonValue, RuleSource, Sourced } from "./types.ts";

export { type DestinationPiece, destinationPieces, type PieceOptions } from "./destination-pieces.ts";

/**
 * One flattened destination string and where it came from.
 *
 * Source: SPEC §2.5 "Which arguments are destinations", "Flattening", "Splitting".
 */
export interface DestinationValue {
  /** The parameter it was selected by (`to`, `message.to`, `files[].path`): the approval key's param. */
  readonly param: string;
  /** The concrete argument path (`recipients[1]`, `message.to`). */
  readonly path: string;
  /** The raw string (a number as its JSON text). */
  readonly value: string;
  /** The rule that made it a destination. */
  readonly source: RuleSource;
}

/**
 * Inputs of {@link selectDestinations}.
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

/**
 * Flattens an argument value: strings as they are, numbers as their JSON text, lists element by
 * element, objects by their keys and values recursively; booleans and null contribute nothing.
 *
 * Source: SPEC §2.5 "Flattening".
 * @param value - Any argument value.
 * @param path - Its concrete path, used for the paths of the strings found.
 * @returns Every string with its concrete path, in document order.
 */
export function flattenValue(value: JsonValue, path: string): { path: string; value: string }[] {
  const out: { path: string; value: string }[] = [];
  const stack: { path: string; value: JsonValue }[] = [{ path, value }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const v = item.value;
    if (typeof v === "string") out.push({ path: item.path, value: v });
    else if (typeof v === "number") out.push({ path: item.path, value: JSON.stringify(v) });
    else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i -= 1)
        stack.push({ path: extendPath(item.path, `[${i}]`), value: v[i] ?? null });
    } else if (isJsonObject(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i] as string;
        stack.push({ path: extendPath(item.path, `.${key}`), value: v[key] as JsonValue });
        stack.push({ path: item.path, value: key });
      }
    }
  }
  return out;
}

/** Length past which a value's path is not extended (it is shown cut anyway). */
const MAX_PATH_LENGTH = 1024;

/**
 * A path with one more step, unless it is already past {@link MAX_PATH_LENGTH} (it only names where
 * a value was): deep values with long keys would otherwise cost the square of their depth in path
 * text.
 * @param base - The path so far.
 * @param step - `.key`, `[i]` or `[]`.
 * @returns The longer path, or `base`.
 */
function extendPath(base: string, step: string): string {
  return base.length > MAX_PATH_LENGTH ? base : `${base}${step}`;
}

/**
 * Selects the destination values of a call from the pinned schema (SPEC §2.5 "Which arguments are
 * destinations"): with a declared sink in the schema, the declared sinks plus sink-shaped arguments
 * plus arguments not in the schema; with declared sinks none of which is in the schema, every
 * argument; with none declared, the sink-shaped arguments plus arguments not in the schema when the
 * schema has a sink-shaped argument, otherwise every argument. A path that meets a value of the wrong
 * shape takes that whole value (fail closed).
 *
 * Source: SPEC §2.5, §4.4.
 * @param args - The call's arguments.
 * @param options - Tool name, pinned schema, declared sinks, whether heuristics apply.
 * @returns Every flattened destination string with its parameter and path.
 */
export function selectDestinations(args: JsonObject, options: SelectOptions): DestinationValue[] {
  const rule = destinationRule(options);
  const argNames = Object.keys(args);
  const declared = new Map<string, RuleSource>();
  const direct = new Map<string, RuleSource>();
  for (const sink of options.sinkParams) if (!declared.has(sink.value)) declared.set(sink.value, sink.source);
  const addArg = (name: string, source: RuleSource): void => {
    if (!direct.has(name) && !declared.has(name)) direct.set(name, source);
  };
  if (rule.kind === "named") {
    for (const name of argNames) if (rule.isSinkShaped(name)) addArg(name, "heuristic");
    for (const name of argNames) if (!rule.inSchema(name)) addArg(name, "default");
  } else {
    for (const name of argNames) addArg(name, "default");
  }
  const out: DestinationValue[] = [];
  const seen = new Set<string>();
  const push = (param: string, source: RuleSource, reached: { path: string; value: JsonValue }): void => {
    for (const flat of flattenValue(reached.value, reached.path)) {
      // A JSON pair, never a join: a path (argument names) and a value may both hold any character.
      const key = JSON.stringify([flat.path, flat.value]);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ param, path: flat.path, value: flat.value, source });
    }
  };
  for (const [param, source] of declared) {
    const { values, mismatches } = collectParamValues(args, param);
    for (const reached of [...values, ...mismatches]) push(param, source, reached);
  }
  for (const [name, source] of direct) push(name, source, { path: name, value: member(args, name) ?? null });
  if (rule.kind === "named") {
    const root = isJsonObject(options.schema) ? options.schema : undefined;
    const top = listedProperties(root, root);
    for (const name of argNames) {
      if (direct.has(name)) continue;
      const schema = top?.get(name);
      for (const nested of nestedDestinations(member(args, name) ?? null, { name, root, schema, rule })) {
        push(nested.param, nested.source, nested);
      }
    }
  }
  return out;
}

/** Nesting followed into an argument's objects and lists before the rest is taken whole. */
const MAX_NESTED_DEPTH = 64;

/**
 * The values nested in one argument that are destinations by the tests a top-level one gets
 * (failing closed where SPEC §2.5 speaks of arguments only): under a key the pinned schema does not
 * list in an object whose properties it lists (`message.To` beside `message.to`), and under a
 * sink-shaped key, listed or not, declared sinks or not, as at the top level (`options.bcc`,
 * `headers.Bcc`, `attachments[].url`; a mail filter's `criteria.to` too). The schema is read
 * through local `$ref`s and `anyOf`/`oneOf`/`allOf`. Past {@link MAX_NESTED_DEPTH} levels the value
 * is taken whole.
 * @param value - The argument's value.
 * @param at - Its name, the whole schema (for `$ref`s), its schema node, and the `named` rule.
 * @returns The nested destinations, each with its parameter path (`options.reply_to`,
 *   `attachments[].url`) and concrete path.
 */
function nestedDestinations(
  value: JsonValue,
  at: {
    readonly name: string;
    readonly root: JsonObject | undefined;
    readonly schema: JsonValue | undefined;
    readonly rule: Extract<DestinationRule, { readonly kind: "named" }>;
  },
): { param: string; path: string; value: JsonValue; source: RuleSource }[] {
  const found: { param: string; path: string; value: JsonValue; source: RuleSource }[] = [];
  const { root, rule } = at;
  const stack = [{ value, schema: at.schema, param: at.name, path: at.name, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value: v, schema, param, path, depth } = item;
    if (depth > MAX_NESTED_DEPTH) {
      found.push({ param, path, value: v, source: "default" });
      continue;
    }
    if (Array.isArray(v)) {
      const items = itemsOf(root, schema);
      v.forEach((element, i) => {
        stack.push({
          value: element,
          schema: items,
          param: extendPath(param, "[]"),
          path: extendPath(path, `[${i}]`),
          depth: depth + 1,
        });
      });
    } else if (isJsonObject(v)) {
      const listed = listedProperties(root, schema);
      for (const key of Object.keys(v)) {
        const child = member(v, key) ?? null;
        const next = { param: extendPath(param, `.${key}`), path: extendPath(path, `.${key}`) };
        if (listed !== undefined && !listed.has(key))
          found.push({ ...next, value: child, source: "default" });
        else if (rule.isSinkShaped(key)) found.push({ ...next, value: child, source: "heuristic" });
        else stack.push({ value: child, schema: listed?.get(key), ...next, depth: depth + 1 });
      }
    }
  }
  return found;
}
