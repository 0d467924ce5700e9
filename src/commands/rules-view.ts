/**
 * How `check`, `explain` and `packs` show rules to people: the policy module's rows (each key with
 * the layer it came from) as aligned text lines, names rendered safely. Edge.
 *
 * Source: SPEC §5.5 ("the effective rules for one tool and the layer each came from"), §3.4.
 * @module
 */

import {
  type JsonObject,
  type JsonValue,
  type RuleSource,
  safeName,
  type ToolRules,
} from "../engine/index.ts";
import { COMMAND_LINE_DIRS, type ConfinementWarning, explainToolRules } from "../policy/index.ts";
import { layerText } from "../policy/view-text.ts";

/**
 * A JSON value on one line: plain strings as they are, everything else as compact JSON-like text.
 *
 * Source: SPEC §5.5.
 * @param value - A rule value.
 * @returns One line.
 */
export function valueText(value: JsonValue): string {
  if (typeof value === "string") return safeName(value);
  if (Array.isArray(value)) return `[${value.map(valueText).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const members = Object.entries(value).map(([key, item]) => `${safeName(key)}: ${valueText(item)}`);
    return `{${members.join(", ")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Effective rules as text: one line per row, `key: value   (source)`, aligned; union keys repeat
 * the key once per value, each with its own layer; then the session-wide `taint_min_length` and
 * `heuristics` with the file that set them (no layer shown for rules built without sources).
 *
 * Source: SPEC §5.5.
 * @param rules - The resolved rules.
 * @param indent - Leading spaces of each line (default two).
 * @returns Lines without newlines.
 */
export function rulesLines(rules: ToolRules, indent = "  "): string[] {
  const settings = rules.settingSources;
  const rows: (readonly [string, string | undefined])[] = [
    ...explainToolRules(rules).map(
      (row) =>
        [`${row.key}: ${valueText(row.value)}`, `${layerText(row)}${overridesText(rules, row.key)}`] as const,
    ),
    [`taint_min_length: ${rules.taintMinLength}`, settingText(settings?.taintMinLength)],
    [`heuristics: ${rules.heuristics}`, settingText(settings?.heuristics)],
  ];
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  const lines = rows.map(([left, source]) =>
    source === undefined ? `${indent}${left}` : `${indent}${left.padEnd(width)}   (${source})`,
  );
  return lines;
}

/**
 * For `write_params` and `arg_patterns` a user layer set over a pack's: `; overrides pack:NAME`
 * (merged key by key, the pack's value no longer applies; the warnings say what was dropped).
 */
function overridesText(rules: ToolRules, key: string): string {
  const below =
    key === "write_params"
      ? rules.overriddenWriteParams
      : key === "arg_patterns"
        ? rules.overriddenArgPatterns
        : undefined;
  return below === undefined ? "" : `; overrides ${layerText(below)}`;
}

/** A session-wide setting's source: a user file's setting is always under its `defaults`. */
function settingText(source: RuleSource | undefined): string | undefined {
  if (source === undefined) return undefined;
  const layer = settingLayer(source);
  return layerText(layer === undefined ? { value: undefined, source } : { value: undefined, source, layer });
}

/**
 * The part of a file that sets a session-wide setting (`taint_min_length`, `heuristics`): a user
 * file sets it only under `defaults` (SPEC §4.1); a pack or the built-in default has no part.
 *
 * Source: SPEC §4.1, §5.5.
 * @param source - The setting's source.
 * @returns `defaults` for a user file, else undefined.
 */
function settingLayer(source: RuleSource): "defaults" | undefined {
  return source.startsWith("user:") ? "defaults" : undefined;
}

/**
 * The `--json` members of `check` and `explain` that name where the session-wide settings came from:
 * `taint_min_length_source`/`heuristics_source`, and their `_layer` when a user file set them (as the
 * rows' `layer`).
 *
 * Source: SPEC §5.5.
 * @param rules - The resolved rules.
 * @returns The members; none for rules built without sources.
 */
export function settingSourceMembers(rules: ToolRules): Record<string, string> {
  const sources = rules.settingSources;
  if (sources === undefined) return {};
  const members: Record<string, string> = {
    taint_min_length_source: sources.taintMinLength,
    heuristics_source: sources.heuristics,
  };
  const lengthLayer = settingLayer(sources.taintMinLength);
  if (lengthLayer !== undefined) members.taint_min_length_layer = lengthLayer;
  const heuristicsLayer = settingLayer(sources.heuristics);
  if (heuristicsLayer !== undefined) members.heuristics_layer = heuristicsLayer;
  return members;
}

/**
 * The note that explains `$COMMAND_LINE_DIRS` when some of the rules shown hold it (views built
 * without a command line: `explain`, `check`).
 *
 * Source: SPEC §4.3 (writes confined to the directories on the upstream's command line), §5.5.
 * @param shown - The rules shown.
 * @returns The note's lines (empty when no rule holds the placeholder).
 */
export function placeholderNotes(shown: readonly ToolRules[]): string[] {
  if (!shown.some((rules) => rules.allowedPathPrefixes?.value.includes(COMMAND_LINE_DIRS) === true))
    return [];
  return [
    "",
    `${COMMAND_LINE_DIRS}: the directories on the server's command line; bouncer run confines writes to them (with none there, writes are not confined)`,
  ];
}

/**
 * A confinement warning as `check` and `explain` give it in `--json`: `code`, `tool`, `server` (the section it was found under), `source`, `layer`,
 * `overrides` and `message`.
 *
 * Source: SPEC §2.4, §5.5.
 * @param found - The warning and its section.
 * @returns The JSON object.
 */
export function warningJson(found: {
  readonly server?: string;
  readonly warning: ConfinementWarning;
}): JsonObject {
  const { warning } = found;
  const over = warning.overrides;
  return {
    code: warning.code,
    tool: warning.tool,
    ...(found.server === undefined ? {} : { server: found.server }),
    source: warning.source,
    ...(warning.layer === undefined ? {} : { layer: warning.layer }),
    ...(over === undefined
      ? {}
      : {
          overrides: {
            source: over.source,
            ...(over.layer === undefined ? {} : { layer: over.layer }),
            value: Array.isArray(over.value)
              ? [...(over.value as readonly string[])]
              : (over.value as JsonObject),
            ...(over.dropped === undefined ? {} : { dropped: [...over.dropped] }),
            ...(over.elsewhere === true ? { elsewhere: true } : {}),
          },
        }),
    message: warning.message,
  };
}
