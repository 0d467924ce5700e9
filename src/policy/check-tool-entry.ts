/**
 * Validates one tool entry (a mapping of per-tool keys) and compiles it: unknown keys with the
 * closest key suggested, wrong types, `arg_patterns` compiled once (anchored, Unicode, at most
 * 1,000 characters), and `replace: true` without `exfiltrating`.
 * Pure.
 *
 * Source: SPEC §4.2 (file format, strict validation), §2.4 (patterns), §4.1 (`replace`).
 * @module
 */

import * as v from "valibot";
import { isMap } from "yaml";
import { checkValue, placePhrase } from "./check-value.ts";
import { closestKey } from "./closest-key.ts";
import type { ToolEntry } from "./types.ts";
import { isArgumentPath, TOOL_KEYS, TOOL_VALUE_RULES, VALUE_HINTS } from "./value-rules.ts";
import {
  addIssue,
  deref,
  describeNode,
  type IssueContext,
  mappingEntries,
  plainValue,
  type YamlSource,
} from "./yaml-source.ts";

/** The longest accepted pattern, in characters (SPEC §2.4). */
const MAX_PATTERN_LENGTH = 1000;

/** Options of {@link checkToolEntry}. */
export interface CheckToolEntryOptions {
  /** True for packs: `replace` is refused (it only makes sense in a user file). */
  readonly inPack?: boolean;
}

/** The camelCase field each YAML key fills. */
const FIELD_NAMES: ReadonlyMap<string, keyof ToolEntry> = new Map<string, keyof ToolEntry>([
  ["action", "action"],
  ["exfiltrating", "exfiltrating"],
  ["sink_params", "sinkParams"],
  ["trusted_destinations", "trustedDestinations"],
  ["on_tainted", "onTainted"],
  ["taint_fields", "taintFields"],
  ["write_params", "writeParams"],
  ["allowed_path_prefixes", "allowedPathPrefixes"],
  ["max_calls", "maxCalls"],
  ["trusted_output", "trustedOutput"],
  ["replace", "replace"],
]);

/**
 * Validates a tool entry node and returns the compiled entry. Every problem is recorded in
 * `source.issues`; the returned entry holds only the keys that passed.
 *
 * @param source - The source being checked.
 * @param node - The entry's YAML node (must be a mapping).
 * @param context - The tool (and server) the entry is for.
 * @param options - `inPack` refuses `replace`.
 * @returns The compiled entry, or `undefined` when the node is not a mapping.
 * Source: SPEC §4.2.
 */
export function checkToolEntry(
  source: YamlSource,
  node: unknown,
  context: IssueContext & { readonly tool: string },
  options: CheckToolEntryOptions = {},
): ToolEntry | undefined {
  const target = deref(source, node);
  if (!isMap(target)) {
    const found = describeNode(source, node);
    addIssue(
      source,
      node,
      "not_mapping",
      `tool "${context.tool}" must be a mapping of keys, received ${found}`,
      context,
    );
    return undefined;
  }
  const entry: Record<string, unknown> = {};
  let replaceNode: unknown;
  for (const { name, keyNode, valueNode } of mappingEntries(source, target, "key", context)) {
    const keyContext = { ...context, key: name };
    if (name === "arg_patterns") {
      const patterns = checkArgPatterns(source, valueNode, keyContext);
      if (patterns) entry.argPatterns = patterns;
      continue;
    }
    const rule = TOOL_VALUE_RULES.get(name);
    const field = FIELD_NAMES.get(name);
    if (!rule || !field) {
      reportUnknownKey(source, keyNode, name, keyContext);
      continue;
    }
    if (name === "replace" && options.inPack) {
      addIssue(
        source,
        keyNode,
        "not_in_pack",
        `key "replace" ${placePhrase(context)} is only for user policy`,
        keyContext,
      );
      continue;
    }
    const value = checkValue(source, valueNode ?? keyNode, rule, keyContext);
    if (value === undefined) continue;
    entry[field] = value;
    if (name === "replace") replaceNode = keyNode;
  }
  if (entry.replace === true && entry.exfiltrating === undefined) {
    addIssue(
      source,
      replaceNode,
      "replace_without_exfiltrating",
      `"replace: true" ${placePhrase(context)} must state "exfiltrating" (true or false)`,
      { ...context, key: "replace" },
    );
  }
  return entry as ToolEntry;
}

/**
 * Records an unknown per-tool key with the closest key suggested.
 *
 * @param source - The source being checked.
 * @param keyNode - The key's node.
 * @param name - The key as written.
 * @param context - Tool, server and key.
 */
function reportUnknownKey(source: YamlSource, keyNode: unknown, name: string, context: IssueContext): void {
  const suggestion = closestKey(name, TOOL_KEYS, { valueHints: VALUE_HINTS });
  const hint = suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
  addIssue(
    source,
    keyNode,
    "unknown_key",
    `unknown key "${name}" ${placePhrase(context)}${hint}`,
    suggestion === undefined ? context : { ...context, suggestion },
  );
}

/**
 * Validates `arg_patterns` (a mapping of argument path → regex) and compiles each pattern as
 * `^(?:…)$` with the `u` flag. The pattern alone must compile too, so `a)(b` is not made valid by
 * the wrapping.
 *
 * @param source - The source being checked.
 * @param node - The `arg_patterns` value node.
 * @param context - Tool, server and key.
 * @returns The compiled patterns, or `undefined` after recording issues.
 */
function checkArgPatterns(
  source: YamlSource,
  node: unknown,
  context: IssueContext & { readonly key: string },
): ReadonlyMap<string, RegExp> | undefined {
  const target = deref(source, node);
  const where = `"arg_patterns" ${placePhrase(context)}`;
  const of = `of "arg_patterns" ${placePhrase(context)}`;
  if (!isMap(target)) {
    const found = describeNode(source, node);
    addIssue(
      source,
      node,
      "wrong_type",
      `wrong type for ${where}: expected a mapping of argument to regex, received ${found}`,
      context,
    );
    return undefined;
  }
  const patterns = new Map<string, RegExp>();
  let failed = false;
  for (const { name, keyNode, valueNode } of mappingEntries(source, target, "argument", context)) {
    if (!isArgumentPath(name)) {
      addIssue(source, keyNode, "wrong_type", `invalid argument name "${name}" ${of}`, context);
      failed = true;
      continue;
    }
    const text = plainValue(source, valueNode);
    if (!v.is(v.string(), text)) {
      const found = describeNode(source, valueNode);
      addIssue(
        source,
        valueNode ?? keyNode,
        "wrong_type",
        `wrong type for "${name}" ${of}: expected a regex string, received ${found}`,
        context,
      );
      failed = true;
      continue;
    }
    const compiled = compilePattern(text);
    if (typeof compiled === "string") {
      addIssue(source, valueNode, "bad_regex", `bad regex for "${name}" ${of}: ${compiled}`, context);
      failed = true;
      continue;
    }
    patterns.set(name, compiled);
  }
  return failed ? undefined : patterns;
}

/**
 * Compiles one pattern anchored and Unicode-aware.
 *
 * @param text - The pattern as written.
 * @returns The compiled regex, or the reason it was refused.
 * Source: SPEC §2.4 (anchored `^(?:…)$`, Unicode; over 1,000 characters is a policy error).
 */
export function compilePattern(text: string): RegExp | string {
  if (text.length > MAX_PATTERN_LENGTH) {
    return `the pattern is ${text.length} characters long, the limit is ${MAX_PATTERN_LENGTH}`;
  }
  try {
    new RegExp(text, "u");
    return new RegExp(`^(?:${text})$`, "u");
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.replace(/^Invalid regular expression: (?:\/.*\/[a-z]*: )?/su, "").replace(/\.$/u, "");
  }
}
