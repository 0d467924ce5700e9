/**
 * A user's `write_params` or `arg_patterns` that drops what a pack set for the tool. Merging is key
 * by key (SPEC §4.1): a user list of write parameters replaces the pack's whole list, and a user
 * mapping of patterns the pack's whole mapping, so `write_params: [file_path]` (an argument the
 * server does not have) unconfines the filesystem pack's `path`, and `arg_patterns: { action: … }`
 * drops the gdrive pack's refusal of `share_type: anyone`. Valid policy, decided as before: `check`,
 * `explain` and `run` warn, naming what no longer applies. (`sink_params` is a union: nothing to
 * drop.) Pure.
 *
 * Source: SPEC §4.1 (key-by-key merging), §2.4 (`write_params`, `arg_patterns`), §4.3, §5.5.
 * @module
 */

import { renderPattern, renderUntrusted, type Sourced, safeName, type ToolRules } from "../engine/index.ts";
import type { ConfinementWarning } from "./confinement-warnings.ts";
import { patternsJson } from "./explain-tool-rules.ts";
import type { Pack } from "./types.ts";
import { layerText, listText } from "./view-text.ts";

/**
 * The warnings for one tool's user `write_params` and `arg_patterns` that drop a pack's.
 *
 * Source: SPEC §4.1, §2.4.
 * @param rules - The tool's rules, resolved with the packs that match (and, for `check` and
 *   `explain`, those that may match where the server runs).
 * @param elsewhere - The packs that did not match here but may where the server runs.
 * @returns At most one warning per key: none when the user's value keeps every pack item.
 */
export function overrideWarnings(rules: ToolRules, elsewhere: readonly Pack[]): ConfinementWarning[] {
  const warnings: ConfinementWarning[] = [];
  const params = rules.writeParams;
  const packParams = rules.overriddenWriteParams;
  if (params !== undefined && packParams !== undefined) {
    const dropped = packParams.value.filter((param) => !params.value.includes(param));
    if (dropped.length > 0) {
      const names = dropped.map((param) => renderUntrusted(param)).join(", ");
      const verb = dropped.length === 1 ? "is" : "are";
      const message = `${safeName(rules.tool)}: write_params ${listText(params.value)} (${layerText(params)}) overrides the pack's write_params ${listText(packParams.value)} (${layerText(packParams)}${scope(packParams, elsewhere)}): merged key by key, it replaces the pack's list, so ${names} ${verb} no longer checked against allowed_path_prefixes (list ${dropped.length === 1 ? "it" : "them"} too, or leave the key out to keep the pack's)`;
      warnings.push({
        code: "write_params_overridden",
        ...base(rules.tool, params),
        overrides: overridesOf(packParams, [...packParams.value], { dropped, elsewhere }),
        message,
      });
    }
  }
  const patterns = rules.argPatterns;
  const packPatterns = rules.overriddenArgPatterns;
  if (patterns !== undefined && packPatterns !== undefined) {
    const dropped = [...packPatterns.value].filter(
      ([arg, regex]) => patterns.value.get(arg)?.source !== regex.source,
    );
    if (dropped.length > 0) {
      const shown = dropped.map(([arg, regex]) => `${safeName(arg)}: ${renderPattern(regex)}`).join(", ");
      const verb = dropped.length === 1 ? "applies" : "apply";
      const message = `${safeName(rules.tool)}: arg_patterns (${layerText(patterns)}) overrides the pack's arg_patterns (${layerText(packPatterns)}${scope(packPatterns, elsewhere)}): merged key by key, your patterns replace the pack's, so ${shown} no longer ${verb} (copy ${dropped.length === 1 ? "it" : "them"} into your arg_patterns to keep ${dropped.length === 1 ? "it" : "them"})`;
      warnings.push({
        code: "arg_patterns_overridden",
        ...base(rules.tool, patterns),
        overrides: overridesOf(packPatterns, patternsJson(packPatterns.value), {
          dropped: dropped.map(([arg]) => arg),
          elsewhere,
        }),
        message,
      });
    }
  }
  return warnings;
}

/** The warning's tool, source and layer. */
function base(tool: string, from: Sourced<unknown>): Pick<ConfinementWarning, "tool" | "source" | "layer"> {
  return { tool, source: from.source, ...(from.layer === undefined ? {} : { layer: from.layer }) };
}

/** What the user's value overrides: the pack's source and whole value, and the items dropped. */
function overridesOf(
  from: Sourced<unknown>,
  value: NonNullable<ConfinementWarning["overrides"]>["value"],
  options: { readonly dropped: readonly string[]; readonly elsewhere: readonly Pack[] },
): NonNullable<ConfinementWarning["overrides"]> {
  const far = options.elsewhere.some((pack) => from.source === `pack:${pack.name}`);
  return {
    source: from.source,
    ...(from.layer === undefined ? {} : { layer: from.layer }),
    value,
    dropped: options.dropped,
    ...(far ? { elsewhere: true } : {}),
  };
}

/** `, on the servers that pack matches` for a pack that did not match here. */
function scope(from: Sourced<unknown>, elsewhere: readonly Pack[]): string {
  return elsewhere.some((pack) => from.source === `pack:${pack.name}`)
    ? ", on the servers that pack matches"
    : "";
}
