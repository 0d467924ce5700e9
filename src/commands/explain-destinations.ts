/**
 * What `bouncer explain` says about an exfiltrating tool's destination arguments: the engine's own
 * rule ({@link destinationRule}) applied to the `--schema` given, so what is shown is what the sink
 * gate would read. Edge (display only).
 *
 * Source: SPEC §2.5 "Which arguments are destinations", §5.5.
 * @module
 */

import { destinationRule, type JsonObject, safeName, type ToolRules } from "../engine/index.ts";

/**
 * The destination arguments of an exfiltrating tool, as `explain --json` gives them.
 * - `named`: the declared sinks (`declared`), the schema's sink-shaped names (`sink_shaped`) and
 *   every argument not in the schema;
 * - `every`: every argument (`why`: no declared sink is in the schema; or nothing is declared and
 *   no argument is sink-shaped, or heuristics are off);
 * - `schema_needed`: no `--schema` given; `bouncer run` decides from the pinned schema.
 *
 * Source: SPEC §2.5 "Which arguments are destinations".
 */
export type DestinationsView =
  | {
      readonly rule: "named";
      readonly declared: readonly string[];
      readonly sink_shaped: readonly string[];
      readonly unlisted_arguments: true;
    }
  | {
      readonly rule: "every";
      readonly why: "declared_not_in_schema" | "no_sink_shaped" | "heuristics_off";
    }
  | { readonly rule: "schema_needed"; readonly declared: readonly string[] };

/**
 * Which arguments of the tool are destinations under these rules and this schema.
 *
 * Source: SPEC §2.5 "Which arguments are destinations", §4.4.
 * @param rules - The tool's effective rules.
 * @param tool - The tool's name (the sink-shaped test reads it).
 * @param schema - The tool's input schema from `--schema`, or undefined when none was given.
 * @returns The view, or undefined when the tool is not exfiltrating (the sink gate does not apply).
 */
export function destinationsView(
  rules: ToolRules,
  tool: string,
  schema: JsonObject | undefined,
): DestinationsView | undefined {
  if (rules.exfiltrating?.value !== true) return undefined;
  const declared = [...new Set(rules.sinkParams.map((sink) => sink.value))];
  if (schema === undefined) return { rule: "schema_needed", declared };
  const rule = destinationRule({ tool, schema, sinkParams: rules.sinkParams, heuristics: rules.heuristics });
  if (rule.kind === "every") return { rule: "every", why: rule.why };
  return {
    rule: "named",
    declared,
    sink_shaped: rule.sinkShaped.filter((name) => !declared.includes(name)),
    unlisted_arguments: true,
  };
}

/**
 * The view as one line for people.
 *
 * Source: SPEC §2.5 "Which arguments are destinations", §5.5.
 * @param view - From {@link destinationsView}.
 * @returns E.g. `Destinations (sink gate): to, recipient (sink-shaped name), any argument (or nested
 *   key) not in the schema, and nested values under sink-shaped keys`.
 */
export function destinationsLine(view: DestinationsView): string {
  const head = "Destinations (sink gate):";
  if (view.rule === "schema_needed") {
    const declared =
      view.declared.length === 0 ? "" : ` (sink_params: ${view.declared.map(safeName).join(", ")})`;
    return `${head} decided from the server's input schema${declared}; give --schema FILE to see them`;
  }
  if (view.rule === "every") {
    if (view.why === "declared_not_in_schema")
      return `${head} every argument (no sink_params name is in the schema: fail closed)`;
    if (view.why === "heuristics_off")
      return `${head} every argument (nothing declared, and heuristics are off)`;
    return `${head} every argument (nothing declared, and no argument name in the schema is sink-shaped)`;
  }
  const names = [
    ...view.declared.map(safeName),
    ...view.sink_shaped.map((name) => `${safeName(name)} (sink-shaped name)`),
  ];
  const nested = "any argument (or nested key) not in the schema, and nested values under sink-shaped keys";
  return `${head} ${[...names, nested].join(", ")}`;
}
