/**
 * Renderings of policy data for people and machines: a tool's effective rules as rows (each key
 * with the layer it came from, for `bouncer explain` and `explain_policy`), and tool entries, packs
 * and files as JSON in the YAML key names (for `check --json`, `packs show`, the builtin resource).
 * Pure.
 *
 * Source: SPEC §5.5 (`explain`: the effective rules and the layer each came from), §5.4, §5.7.
 * @module
 */

import type { JsonObject, JsonValue, RuleSource, Sourced, ToolRules } from "../engine/index.ts";
import { patternText } from "../engine/index.ts";
import type { Pack, PolicyFile, ToolEntry } from "./types.ts";

/** One effective rule: the YAML key, its value and the layer that set it. */
export interface RuleRow {
  readonly key: string;
  readonly value: JsonValue;
  readonly source: RuleSource;
  /** The part of a user file that set it: `servers.<name>`, `servers.<name>.defaults`, `defaults`. */
  readonly layer?: string;
}

/**
 * The effective rules of a tool as rows, in the order of SPEC §4.2's per-tool keys. Union keys
 * (`sink_params`, `trusted_destinations`) give one row per entry, each with its own layer; keys no
 * layer set are left out, except those with a built-in default (`action`, `on_tainted`,
 * `taint_fields`, `unclassified`), which show `default`.
 *
 * @param rules - The tool's rules from `resolveToolRules`.
 * @returns The rows.
 * Source: SPEC §5.5.
 */
export function explainToolRules(rules: ToolRules): RuleRow[] {
  const rows: RuleRow[] = [];
  const add = <T extends JsonValue>(key: string, sourced: Sourced<T> | undefined): void => {
    if (!sourced) return;
    const { value, source, layer } = sourced;
    rows.push(layer === undefined ? { key, value, source } : { key, value, source, layer });
  };
  add("action", rules.action);
  add("exfiltrating", rules.exfiltrating);
  for (const sink of rules.sinkParams) add("sink_params", sink);
  for (const trusted of rules.trustedDestinations) add("trusted_destinations", trusted);
  add("on_tainted", rules.onTainted);
  add("taint_fields", rules.taintFields);
  if (rules.writeParams) add("write_params", { ...rules.writeParams, value: [...rules.writeParams.value] });
  if (rules.allowedPathPrefixes) {
    add("allowed_path_prefixes", {
      ...rules.allowedPathPrefixes,
      value: [...rules.allowedPathPrefixes.value],
    });
  }
  if (rules.argPatterns)
    add("arg_patterns", { ...rules.argPatterns, value: patternsJson(rules.argPatterns.value) });
  add("max_calls", rules.maxCalls);
  add("trusted_output", rules.trustedOutput);
  add("unclassified", rules.unclassified);
  return rows;
}

/**
 * A tool entry as JSON in the policy file's key names (patterns as written).
 *
 * @param entry - A validated tool entry.
 * @returns The entry as a JSON object.
 */
export function toolEntryJson(entry: ToolEntry): JsonObject {
  const out: JsonObject = {};
  if (entry.action !== undefined) out.action = entry.action;
  if (entry.exfiltrating !== undefined) out.exfiltrating = entry.exfiltrating;
  if (entry.sinkParams) out.sink_params = [...entry.sinkParams];
  if (entry.trustedDestinations) out.trusted_destinations = [...entry.trustedDestinations];
  if (entry.onTainted !== undefined) out.on_tainted = entry.onTainted;
  if (entry.taintFields !== undefined) out.taint_fields = entry.taintFields;
  if (entry.writeParams) out.write_params = [...entry.writeParams];
  if (entry.allowedPathPrefixes) out.allowed_path_prefixes = [...entry.allowedPathPrefixes];
  if (entry.argPatterns) out.arg_patterns = patternsJson(entry.argPatterns);
  if (entry.maxCalls !== undefined) out.max_calls = entry.maxCalls;
  if (entry.trustedOutput !== undefined) out.trusted_output = entry.trustedOutput;
  if (entry.replace !== undefined) out.replace = entry.replace;
  return out;
}

/**
 * A pack as JSON: name, header, `match` and tool entries.
 *
 * @param pack - A validated pack.
 * @returns The pack as a JSON object.
 * Source: SPEC §5.4 (`bouncer://policies/builtin`), §5.7 (`packs show`).
 */
export function packJson(pack: Pack): JsonObject {
  return {
    name: pack.name,
    header: pack.header,
    match: {
      commands: [...pack.match.commands],
      server_names: [...pack.match.serverNames],
      upstream_names: [...pack.match.upstreamNames],
    },
    tools: toolsJson(pack.tools),
  };
}

/**
 * A policy file as JSON in its own key names.
 *
 * @param file - A validated policy file.
 * @returns The file as a JSON object (`file`, `defaults`, `servers`, `tools`).
 * Source: SPEC §5.5 (`check --json`).
 */
export function policyFileJson(file: PolicyFile): JsonObject {
  const d = file.defaults;
  const defaults: JsonObject = {};
  if (d.heuristics !== undefined) defaults.heuristics = d.heuristics;
  if (d.onTainted !== undefined) defaults.on_tainted = d.onTainted;
  if (d.taintFields !== undefined) defaults.taint_fields = d.taintFields;
  if (d.taintMinLength !== undefined) defaults.taint_min_length = d.taintMinLength;
  if (d.unclassified !== undefined) defaults.unclassified = d.unclassified;
  if (d.trustedDestinations) defaults.trusted_destinations = [...d.trustedDestinations];
  const servers: JsonObject = {};
  for (const [name, server] of file.servers) {
    const section: JsonObject = { tools: toolsJson(server.tools) };
    if (server.trustedDestinations)
      section.defaults = { trusted_destinations: [...server.trustedDestinations] };
    Object.defineProperty(servers, name, {
      value: section,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { file: file.file, defaults, servers, tools: toolsJson(file.tools) };
}

function toolsJson(tools: ReadonlyMap<string, ToolEntry>): JsonObject {
  const out: JsonObject = {};
  for (const [name, entry] of tools) {
    Object.defineProperty(out, name, {
      value: toolEntryJson(entry),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Patterns as JSON in the policy file's form.
 * @param patterns - Compiled patterns by argument path.
 * @returns Argument path → the pattern as written (the engine's `patternText`).
 */
export function patternsJson(patterns: ReadonlyMap<string, RegExp>): JsonObject {
  const out: JsonObject = {};
  for (const [arg, regex] of patterns) {
    Object.defineProperty(out, arg, {
      value: patternText(regex),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
