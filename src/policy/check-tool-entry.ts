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
import { checkValue, placePhrase } from "./check-value.ts";
import { closestKey } from "./closest-key.ts";
import {
  addIssue,
  describeNode,
  type IssueContext,
  mappingEntries,
  type PolicySource,
  plainValue,
} from "./policy-source.ts";
import type { ToolEntry } from "./types.ts";
import { isArgumentPath, TOOL_KEYS, TOOL_VALUE_RULES, VALUE_HINTS } from "./value-rules.ts";

/** The longest accepted pattern, in characters (SPEC §2.4). */
const MAX_PATTERN_LENGTH = 1000;

/** What {@link checkToolEntry} checks: the entry's node and the tool (and server) it is for. */
export interface ToolEntryCheck extends IssueContext {
  readonly node: unknown;
  readonly tool: string;
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
 * @param check - The entry's node (must be a mapping), the tool and server, and `inPack`.
 * @returns The compiled entry, or `undefined` when the node is not a mapping.
 * Source: SPEC §4.2.
 */
export function checkToolEntry(source: PolicySource, check: ToolEntryCheck): ToolEntry | undefined {
  const { node, inPack, ...context } = check;
  if (source.tree.shape(node) !== "map") {
    const message = `tool "${context.tool}" must be a mapping of keys, received ${describeNode(source, node)}`;
    addIssue(source, { ...context, at: node, code: "not_mapping", message });
    return undefined;
  }
  const entry: Record<string, unknown> = {};
  let replaceNode: unknown;
  for (const { name, keyNode, valueNode } of mappingEntries(source, node, { what: "key", context })) {
    const keyContext = { ...context, key: name };
    if (name === "arg_patterns") {
      const patterns = checkArgPatterns(source, { ...keyContext, node: valueNode });
      if (patterns) entry.argPatterns = patterns;
      continue;
    }
    const rule = TOOL_VALUE_RULES.get(name);
    const field = FIELD_NAMES.get(name);
    if (!rule || !field) {
      reportUnknownKey(source, { ...keyContext, at: keyNode });
      continue;
    }
    if (name === "replace" && inPack === true) {
      const message = `key "replace" ${placePhrase(context)} is only for user policy`;
      addIssue(source, { ...keyContext, at: keyNode, code: "not_in_pack", message });
      continue;
    }
    const value = checkValue(source, { ...keyContext, node: valueNode ?? keyNode, rule });
    if (value === undefined) continue;
    entry[field] = value;
    if (name === "replace") replaceNode = keyNode;
  }
  if (entry.replace === true && entry.exfiltrating === undefined) {
    const message = `"replace: true" ${placePhrase(context)} must state "exfiltrating" (true or false)`;
    addIssue(source, {
      ...context,
      key: "replace",
      at: replaceNode,
      code: "replace_without_exfiltrating",
      message,
    });
  }
  return entry as ToolEntry;
}

/**
 * Records an unknown per-tool key with the closest key suggested.
 *
 * @param source - The source being checked.
 * @param where - The key's node (`at`), its name (`key`), the tool and server.
 */
function reportUnknownKey(
  source: PolicySource,
  where: IssueContext & { readonly key: string; readonly at: unknown },
): void {
  const suggestion = closestKey(where.key, TOOL_KEYS, { valueHints: VALUE_HINTS });
  const hint = suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
  const message = `unknown key "${where.key}" ${placePhrase(where)}${hint}`;
  addIssue(source, {
    ...where,
    ...(suggestion === undefined ? {} : { suggestion }),
    code: "unknown_key",
    message,
  });
}

/**
 * Validates `arg_patterns` (a mapping of argument path → regex) and compiles each pattern as
 * `^(?:…)$` with the `u` flag. The pattern alone must compile too, so `a)(b` is not made valid by
 * the wrapping.
 *
 * @param source - The source being checked.
 * @param check - The `arg_patterns` value node, the tool, server and key.
 * @returns The compiled patterns, or `undefined` after recording issues.
 */
function checkArgPatterns(
  source: PolicySource,
  check: IssueContext & { readonly key: string; readonly node: unknown },
): ReadonlyMap<string, RegExp> | undefined {
  const { node, ...context } = check;
  const of = `of "arg_patterns" ${placePhrase(context)}`;
  if (source.tree.shape(node) !== "map") {
    const found = describeNode(source, node);
    const message = `wrong type for "arg_patterns" ${placePhrase(context)}: expected a mapping of argument to regex, received ${found}`;
    addIssue(source, { ...context, at: node, code: "wrong_type", message });
    return undefined;
  }
  const patterns = new Map<string, RegExp>();
  let failed = false;
  for (const { name, keyNode, valueNode } of mappingEntries(source, node, { what: "argument", context })) {
    const text = plainValue(source, valueNode);
    const compiled = v.is(v.string(), text) ? compilePattern(text) : undefined;
    if (!isArgumentPath(name)) {
      addIssue(source, {
        ...context,
        at: keyNode,
        code: "wrong_type",
        message: `invalid argument name "${name}" ${of}`,
      });
    } else if (compiled === undefined) {
      const message = `wrong type for "${name}" ${of}: expected a regex string, received ${describeNode(source, valueNode)}`;
      addIssue(source, { ...context, at: valueNode ?? keyNode, code: "wrong_type", message });
    } else if (typeof compiled === "string") {
      addIssue(source, {
        ...context,
        at: valueNode,
        code: "bad_regex",
        message: `bad regex for "${name}" ${of}: ${compiled}`,
      });
    } else {
      patterns.set(name, compiled);
      continue;
    }
    failed = true;
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
    // Inline, not the engine's errorText(): the fast path (`check-parsed.ts`) loads no engine, and
    // src/policy imports only the engine's index (tests/policy/index.test.ts).
    const message = error instanceof Error ? error.message : String(error);
    return message.replace(/^Invalid regular expression: (?:\/.*\/[a-z]*: )?/su, "").replace(/\.$/u, "");
  }
}
