/**
 * Which argument values are destinations (SPEC §2.5): selection from the pinned input schema and
 * flattening (the rule is `destination-rule.ts`, splitting is `destination-pieces.ts`). Pure;
 * argument keys are hostile (STYLE #6) and read through own-property checks only.
 * @module
 */

import { type DestinationRule, destinationRule, type SelectOptions } from "./destination-rule.ts";
import { isJsonObject, member } from "./json-access.ts";
import { jsonContainer } from "./json-text.ts";
import { type ArgumentKeys, collectParamValues, type ParamPath } from "./param-paths.ts";
import { itemsOf, listedProperties } from "./schema-walk.ts";
import type { JsonObject, JsonValue, RuleSource } from "./types.ts";
import { valueShapes } from "./value-shapes.ts";

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
 * @param options - Tool name, pinned schema, declared sinks, whether heuristics apply; and, from the
 *   call, the declared sinks' paths compiled with the rules and the call's folded argument keys.
 * @returns Every flattened destination string with its parameter and path.
 */
export function selectDestinations(
  args: JsonObject,
  options: SelectOptions & {
    readonly paramPaths?: ReadonlyMap<string, ParamPath> | undefined;
    readonly keys?: ArgumentKeys;
  },
): DestinationValue[] {
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
    const { values, mismatches } = collectParamValues(
      args,
      options.paramPaths?.get(param) ?? param,
      options.keys,
    );
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
 * through local `$ref`s and `anyOf`/`oneOf`/`allOf`. A string where the schema admits an object or
 * a list (or says nothing of the type) that is the JSON text of one is walked as what it parses to
 * (the MCP Python SDK parses such a string before validating, as Python's parser reads it:
 * `json-text.ts`); where only an object or a list will do, a string that is neither is taken whole,
 * and so is one that reads as an object or a list to a laxer parser. Past {@link MAX_NESTED_DEPTH}
 * levels the value is taken whole.
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
    } else if (typeof v === "string") {
      const shapes = valueShapes(root, schema);
      // A string the schema allows only as a string is one; any other may be an object or a list
      // written as JSON text, which a server may parse before it validates (the MCP Python SDK
      // does, for every argument not typed `str`): walked as what it parses to.
      if (shapes.typed && !shapes.container) continue;
      const parsed = jsonContainer(v);
      if (parsed !== undefined) stack.push({ value: parsed, schema, param, path, depth: depth + 1 });
      // Where only an object or a list will do, a string that is neither is taken whole: the
      // server's reading of it is not known (fail closed). Where a string will do too, so is one
      // that reads as an object or a list some parser other than JSON's takes (`{bcc: x}`,
      // `{'bcc': 'x'}`, a trailing comma: YAML, `ast.literal_eval`, JSON5); prose stays prose
      // (`[FYI] build is green`: the SDK keeps a string its parser refuses).
      else if (shapes.container && (!shapes.string || looksStructured(v)))
        found.push({ param, path, value: v, source: "default" });
    }
  }
  return found;
}

/**
 * Whether a string that is no JSON still reads as an object or a list to a laxer parser: it opens
 * with `{`, or with `[` followed by `{`, `[`, a quote or a closing `]`.
 * @param text - A string argument value.
 * @returns True for `{bcc: x}`, `['a@x']`; false for `[FYI] build is green`.
 */
function looksStructured(text: string): boolean {
  return /^\s*(?:\{|\[\s*[[{"'\]])/.test(text);
}
