/**
 * The valibot schemas for policy values, with the phrase each puts in an error message, and the
 * checks on strings that have a grammar (argument paths, trusted destinations, path prefixes).
 * Pure.
 *
 * Source: SPEC §4.2 (per-tool keys and their types), §2.4, §2.5 (`trusted_destinations` forms).
 * @module
 */

import * as v from "valibot";

/** The placeholder in `allowed_path_prefixes` for the directories on the upstream's command line. */
export const COMMAND_LINE_DIRS = "$COMMAND_LINE_DIRS";

/** The words that may not be an argument path segment (STYLE #6). */
const REFUSED_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** A schema for one policy value and the phrase describing what it expects. */
export interface ValueRule {
  readonly schema: v.GenericSchema;
  /** What the value must be, for messages: `expected <phrase>`. */
  readonly expected: string;
  /** Valid values, for typo suggestions (picklists only). */
  readonly choices?: readonly string[];
}

/**
 * Whether a string is an argument path: names joined by `.`, each optionally followed by `[]`
 * (`to`, `message.to`, `files[].path`), no refused segment.
 *
 * @param path - The path as written in policy.
 * @returns True when well formed.
 * Source: SPEC §2.4 (`write_params` dotted paths), §2.5 (`sink_params` likewise).
 */
export function isArgumentPath(path: string): boolean {
  if (path === "") return false;
  return path.split(".").every((segment) => {
    const match = /^([^.[\]]+)((?:\[\])*)$/u.exec(segment);
    return match !== null && !REFUSED_SEGMENTS.has(match[1] ?? "");
  });
}

/**
 * Whether a trusted destination uses `*` only in the forms the sink gate understands:
 * `*@domain`, `*.domain`, or a URL prefix ending in `/*`. Entries without `*` are exact.
 *
 * @param entry - The entry as written.
 * @returns True when acceptable.
 * Source: SPEC §2.5 (classification: trusted).
 */
export function isTrustedDestination(entry: string): boolean {
  if (entry.trim() === "") return false;
  if (!entry.includes("*")) return true;
  if (/^\*@[^*@\s]+\.[^*@\s]+$/u.test(entry)) return true;
  if (/^\*\.[^*\s/@]+\.[^*\s/@]+$/u.test(entry)) return true;
  return /^[a-z][a-z0-9+.-]*:\/\/[^*\s/]+(?:\/[^*\s]*)?\/\*$/iu.test(entry);
}

/**
 * Whether a path prefix is acceptable: not empty, and `$` only in the `$COMMAND_LINE_DIRS`
 * placeholder (environment variables are not expanded; `~` is).
 *
 * @param prefix - The prefix as written.
 * @returns True when acceptable.
 * Source: SPEC §2.4, §4.3 (filesystem confined to the command line's directories).
 */
export function isPathPrefix(prefix: string): boolean {
  if (prefix.trim() === "") return false;
  return prefix === COMMAND_LINE_DIRS || !prefix.startsWith("$");
}

/**
 * Whether a path prefix uses the `~user` form (`~bob/notes`), which path confinement does not
 * expand (SPEC §2.4 expands `~` alone): every path would then be outside it, with no hint why.
 *
 * @param prefix - The prefix as written.
 * @returns True for `~` followed by anything but a path separator.
 * Source: SPEC §2.4 ("`~` expanded").
 */
export function isTildeUserPrefix(prefix: string): boolean {
  return /^~[^/\\]/u.test(prefix);
}

function picklist(choices: readonly string[]): ValueRule {
  const quoted = choices.map((c) => `"${c}"`);
  const phrase = `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
  return { schema: v.picklist(choices), expected: `one of ${phrase}`, choices };
}

const BOOLEAN: ValueRule = { schema: v.boolean(), expected: "true or false (unquoted)" };

const ARGUMENT_PATHS: ValueRule = {
  schema: v.array(
    v.pipe(
      v.string(),
      v.check(isArgumentPath, "an argument path is names joined by dots, each optionally followed by []"),
    ),
  ),
  expected: "a list of argument names",
};

const TRUSTED: ValueRule = {
  schema: v.array(
    v.pipe(
      v.string(),
      v.check(
        isTrustedDestination,
        'a wildcard is only allowed as "*@domain", "*.domain" or a URL ending in "/*"',
      ),
    ),
  ),
  expected: "a list of destinations",
};

const PREFIXES: ValueRule = {
  schema: v.array(
    v.pipe(
      v.string(),
      v.check(
        isPathPrefix,
        `a path prefix must not be empty, and "$" only starts "${COMMAND_LINE_DIRS}" (use "~" for the home directory)`,
      ),
      v.check((prefix) => !isTildeUserPrefix(prefix), "~user is not supported; write the full path"),
    ),
  ),
  expected: "a list of path prefixes",
};

/** The per-tool keys other than `arg_patterns`, with their value rules (SPEC §4.2). */
export const TOOL_VALUE_RULES: ReadonlyMap<string, ValueRule> = new Map<string, ValueRule>([
  ["action", picklist(["allow", "ask", "deny"])],
  ["exfiltrating", BOOLEAN],
  ["sink_params", ARGUMENT_PATHS],
  ["trusted_destinations", TRUSTED],
  ["on_tainted", picklist(["deny", "ask"])],
  ["taint_fields", picklist(["lenient", "strict"])],
  ["write_params", ARGUMENT_PATHS],
  ["allowed_path_prefixes", PREFIXES],
  [
    "max_calls",
    {
      schema: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
      expected: "an integer of at least 0 (unquoted)",
    },
  ],
  ["trusted_output", BOOLEAN],
  ["replace", BOOLEAN],
]);

/** Every per-tool key, `arg_patterns` included, for typo suggestions. */
export const TOOL_KEYS: readonly string[] = [...TOOL_VALUE_RULES.keys(), "arg_patterns"];

/** The keys of `defaults:` with their value rules (SPEC §4.2). */
export const DEFAULTS_VALUE_RULES: ReadonlyMap<string, ValueRule> = new Map<string, ValueRule>([
  ["heuristics", BOOLEAN],
  ["on_tainted", picklist(["deny", "ask"])],
  ["taint_fields", picklist(["lenient", "strict"])],
  [
    "taint_min_length",
    {
      schema: v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(1000)),
      expected: "an integer from 1 to 1000 (unquoted)",
    },
  ],
  ["unclassified", picklist(["allow", "ask"])],
  ["trusted_destinations", TRUSTED],
]);

/** The keys of a pack's `match:` (SPEC §4.3). */
export const MATCH_VALUE_RULES: ReadonlyMap<string, ValueRule> = new Map<string, ValueRule>([
  ["commands", { schema: v.array(v.pipe(v.string(), v.nonEmpty())), expected: "a list of patterns" }],
  ["server_names", { schema: v.array(v.pipe(v.string(), v.nonEmpty())), expected: "a list of patterns" }],
  ["upstream_names", { schema: v.array(v.pipe(v.string(), v.nonEmpty())), expected: "a list of patterns" }],
]);

/** Values of `action` mapped to the key, so `alow:` suggests `action` (SPEC §4.2 typo hint). */
export const VALUE_HINTS: ReadonlyMap<string, string> = new Map([
  ["allow", "action"],
  ["ask", "action"],
  ["deny", "action"],
]);
