/**
 * The constraint contract (SPEC §2.4): `action`, path confinement and argument patterns. Pure.
 * @module
 */

import { argumentLines } from "./argument-lines.ts";
import { paramPathOf } from "./call-rules.ts";
import { canonicalJson } from "./canonical-json.ts";
import { jsonLeaves } from "./json-leaves.ts";
import { type ArgumentKeys, collectParamValues, createArgumentKeys } from "./param-paths.ts";
import type { RelativeBase } from "./path-context.ts";
import { checkPathConfinement } from "./paths.ts";
import { renderPattern } from "./pattern-text.ts";
import { checkProtectedPaths } from "./protected-paths.ts";
import { renderUntrusted } from "./render.ts";
import { NO_OBJECTION } from "./state.ts";
import type { CallInput, ContractResult, JsonValue, Question, Reason, RuleSource } from "./types.ts";

/** The largest argument value `arg_patterns` matches, in UTF-8 bytes (SPEC §2.4). */
export const MAX_PATTERN_VALUE_BYTES = 64 * 1024;

function deny(reason: Reason): ContractResult {
  return { denies: [reason], asks: [] };
}

function typeName(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** A relative value's other base, for a reason: `the directory "/data" on the upstream's command line`. */
function baseText(base: RelativeBase): string {
  return base.from === "command_line"
    ? `the directory ${renderUntrusted(base.dir)} on the upstream's command line`
    : `the root ${renderUntrusted(base.dir)} the client gave the upstream`;
}

/** A path value's confinement deny (SPEC §2.4), or none when it stays inside the prefixes. */
function confinementDenial(
  input: CallInput,
  item: { readonly value: string; readonly at: string },
  rule: { readonly prefixes: readonly string[]; readonly text: string; readonly source: RuleSource },
): Reason | undefined {
  const { value, at } = item;
  const { source } = rule;
  const check = checkPathConfinement(value, rule.prefixes, input.paths);
  const reading = check.kind !== "inside" && check.asPath === true ? " read as a relative path" : "";
  if (check.kind === "invalid") {
    const against = check.base === undefined ? "" : ` (${baseText(check.base)})`;
    const message = `Argument ${renderUntrusted(at)} = ${renderUntrusted(value)}${reading} ${check.problem}${against}, so ${rule.text} cannot be checked`;
    return { code: "path_invalid", message, path: at, source };
  }
  if (check.kind === "outside") {
    const via =
      check.base !== undefined
        ? ` resolved against ${baseText(check.base)} (it resolves to ${renderUntrusted(check.step)})`
        : check.step === check.steps[0] && reading === ""
          ? ""
          : ` (it resolves to ${renderUntrusted(check.step)})`;
    const message = `Argument ${renderUntrusted(at)} = ${renderUntrusted(value)}${reading} is outside ${rule.text}${via}`;
    return { code: "path_outside_prefixes", message, path: at, source };
  }
  return undefined;
}

/** A path value's deny for reaching Bouncer's own files (`protected-paths.ts`), or none. */
function protectedDenial(
  input: CallInput,
  item: { readonly value: string; readonly at: string },
): Reason | undefined {
  const { value, at } = item;
  const check = checkProtectedPaths(value, input.paths);
  if (check.kind === "clear") return undefined;
  const against = check.base === undefined ? "" : ` resolved against ${baseText(check.base)}`;
  if (check.kind === "invalid") {
    const message = `Argument ${renderUntrusted(at)} = ${renderUntrusted(value)} ${check.problem}${against}, so whether it reaches Bouncer's own files cannot be checked`;
    return { code: "path_invalid", message, path: at, source: "default" };
  }
  const message = `Argument ${renderUntrusted(at)} = ${renderUntrusted(value)}${against} reaches Bouncer's own files at ${renderUntrusted(check.reached)} (it resolves to ${renderUntrusted(check.step)}): no tool may write Bouncer's home, pins, policy, audit log, session file or a client config`;
  return { code: "path_protected", message, path: at, source: "default" };
}

/** Strings looked at inside one value of another shape, at most (past them: a deny, fail closed). */
const MAX_NESTED_PATHS = 4096;

/**
 * The protected-paths deny of a `write_params` value of another shape than asked for (an object, a
 * nested list, a string where a list was declared): each string inside it is a path a server may write (`files[].path`
 * declared without the `[]`), so none may reach Bouncer's own files; one with more strings than
 * {@link MAX_NESTED_PATHS} is denied `path_invalid` (it cannot be checked in bounds).
 */
function nestedProtectedDenial(input: CallInput, value: JsonValue, at: string): Reason | undefined {
  if (typeof value === "string") return protectedDenial(input, { value, at });
  if (typeof value !== "object" || value === null) return undefined;
  const { leaves, more } = jsonLeaves(value, MAX_NESTED_PATHS);
  if (more > 0) {
    const message = `Argument ${renderUntrusted(at)} holds more than ${MAX_NESTED_PATHS} values, so whether one reaches Bouncer's own files cannot be checked`;
    return { code: "path_invalid", message, path: at, source: "default" };
  }
  for (const leaf of leaves) {
    if (typeof leaf.value !== "string") continue;
    const denial = protectedDenial(input, {
      value: leaf.value,
      at: leaf.path === "" ? at : `${at}.${leaf.path}`,
    });
    if (denial !== undefined) return denial;
  }
  return undefined;
}

/**
 * The first path deny of a call: each value `write_params` reaches must be a string or a list of
 * strings inside `allowed_path_prefixes` when those are set (SPEC §2.4), and must never reach
 * Bouncer's own files (`protected-paths.ts`), prefixes or not. Without prefixes, a value of another
 * type is no path and is left alone, as before.
 */
function firstPathDenial(input: CallInput, keys: ArgumentKeys): Reason | undefined {
  const { rules } = input;
  const prefixes = rules.allowedPathPrefixes;
  if (rules.writeParams === undefined) return undefined;
  const confined = prefixes !== undefined && prefixes.value.length > 0;
  if (!confined && (input.paths.protectedPaths?.length ?? 0) === 0) return undefined;
  const source = prefixes?.source ?? rules.writeParams.source;
  const rule = {
    prefixes: prefixes?.value ?? [],
    text: `allowed_path_prefixes ${JSON.stringify(prefixes?.value ?? [])}`,
    source,
  };
  for (const param of rules.writeParams.value) {
    const found = collectParamValues(input.arguments, paramPathOf(rules, param), keys);
    const mismatch = found.mismatches[0];
    if (mismatch !== undefined && confined) {
      const message = `Argument ${renderUntrusted(mismatch.path || param)} must be ${mismatch.expected} to reach write_params "${param}", got ${typeName(mismatch.value)}`;
      return { code: "path_wrong_type", message, path: mismatch.path || param, source };
    }
    for (const { path, value } of found.mismatches) {
      const denial = nestedProtectedDenial(input, value, path || param);
      if (denial !== undefined) return denial;
    }
    for (const { path, value } of found.values) {
      const items = Array.isArray(value) ? value : [value];
      for (const [i, item] of items.entries()) {
        const at = Array.isArray(value) ? `${path}[${i}]` : path;
        if (typeof item !== "string") {
          if (!confined) {
            // No path type is asked for without prefixes, but no string in it may reach Bouncer's files.
            const denial = nestedProtectedDenial(input, item as JsonValue, at);
            if (denial !== undefined) return denial;
            continue;
          }
          const message = `Argument ${renderUntrusted(at)} must be a string or a list of strings for ${rule.text}, got ${typeName(item)}`;
          return { code: "path_wrong_type", message, path: at, source };
        }
        const denial =
          (confined ? confinementDenial(input, { value: item, at }, rule) : undefined) ??
          protectedDenial(input, { value: item, at });
        if (denial !== undefined) return denial;
      }
    }
  }
  return undefined;
}

function matchesWhole(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  const match = pattern.exec(text);
  return match !== null && match.index === 0 && match[0].length === text.length;
}

/**
 * The texts a pattern matches for a value (SPEC §2.4): a string as it is, a number or boolean as its
 * JSON text, a list element by element (an empty list gives none: it passes); or what it cannot
 * match — an object, or null, which is none of the types the rule lists (it fails closed rather
 * than match the text `null`).
 */
type PatternTexts =
  | { readonly kind: "texts"; readonly texts: string[] }
  | { readonly kind: "refused"; readonly what: "null" | "an object" };

function patternTexts(value: JsonValue): PatternTexts {
  if (typeof value === "string") return { kind: "texts", texts: [value] };
  if (typeof value === "number" || typeof value === "boolean")
    return { kind: "texts", texts: [JSON.stringify(value)] };
  if (value === null) return { kind: "refused", what: "null" };
  if (Array.isArray(value)) {
    const texts: string[] = [];
    for (const element of value) {
      const inner = patternTexts(element);
      if (inner.kind === "refused") return inner;
      texts.push(...inner.texts);
    }
    return { kind: "texts", texts };
  }
  return { kind: "refused", what: "an object" };
}

function firstPatternDenial(input: CallInput, keys: ArgumentKeys): Reason | undefined {
  const patterns = input.rules.argPatterns;
  if (patterns === undefined) return undefined;
  const source: RuleSource = patterns.source;
  for (const [param, pattern] of patterns.value) {
    // The pattern as the user wrote it (`a\.b`), not JSON-quoted (`"^(?:a\\.b)$"`).
    const rule = `arg_patterns ${renderPattern(pattern)}`;
    const found = collectParamValues(input.arguments, paramPathOf(input.rules, param), keys);
    const mismatch = found.mismatches[0];
    if (mismatch !== undefined) {
      const message = `Argument ${renderUntrusted(mismatch.path || param)} must be ${mismatch.expected} to reach ${rule}, got ${typeName(mismatch.value)}`;
      return { code: "pattern_wrong_type", message, path: mismatch.path || param, source };
    }
    for (const { path, value } of found.values) {
      const matchable = patternTexts(value);
      if (matchable.kind === "refused") {
        const message = `Argument ${renderUntrusted(path)} holds ${matchable.what}, which ${rule} cannot match (a pattern matches strings, numbers, booleans and lists of them)`;
        return { code: "pattern_wrong_type", message, path, source };
      }
      const { texts } = matchable;
      if (texts.reduce((sum, text) => sum + utf8Length(text), 0) > MAX_PATTERN_VALUE_BYTES) {
        const message = `Argument ${renderUntrusted(path)} is larger than 64 KiB, which ${rule} refuses`;
        return { code: "pattern_value_too_large", message, path, source };
      }
      const bad = texts.find((text) => !matchesWhole(pattern, text));
      if (bad !== undefined) {
        const message = `Argument ${renderUntrusted(path)} = ${renderUntrusted(bad)} does not match ${rule}`;
        return { code: "pattern_mismatch", message, path, source };
      }
    }
  }
  return undefined;
}

/**
 * Start of the approval-key identity of an `action: ask` question; the call's canonical arguments
 * follow.
 *
 * Source: SPEC §2.4 (`action: ask` asks on every call), §2.5 ("a repeat of a declined question").
 */
export const ACTION_IDENTITY = "action:";

/**
 * Whether a question is an `action: ask` confirmation of one call (its key names the call's
 * arguments): its approval covers that call only, and it lists the arguments itself.
 *
 * Source: SPEC §2.4 (`action: ask` asks on every call).
 * @param question - A question (its kind and key).
 * @returns True for an `action: ask` question.
 */
export function confirmsOneCall(question: Pick<Question, "kind" | "key">): boolean {
  return question.kind === "action" && question.key.identity.startsWith(ACTION_IDENTITY);
}

/**
 * Evaluates the constraint contract: `action: deny` blocks the tool; path confinement and argument
 * patterns deny on the first failing constraint; `action: ask` asks on every call, listing each
 * argument (approval key identity {@link ACTION_IDENTITY} and the canonical arguments: never
 * remembered as an approval; a decline is remembered for the same arguments only).
 *
 * Source: SPEC §2.4.
 * @param input - The call, its rules and its path context.
 * @param keys - The call's folded argument keys, shared with the sink gate (default: its own).
 * @returns At most one deny (the first failing constraint) or, failing none, the `action: ask` question.
 * @throws Never for hostile arguments; only for programmer errors.
 * @example evaluateConstraints(input).denies[0]?.code // "path_outside_prefixes"
 */
export function evaluateConstraints(
  input: CallInput,
  keys: ArgumentKeys = createArgumentKeys(),
): ContractResult {
  const { rules, server, tool } = input;
  const action = rules.action;
  const name = renderUntrusted(tool);
  if (action.value === "deny") {
    const message = `Tool ${name} is denied by policy (action: deny)`;
    return deny({ code: "action_denied", message, source: action.source });
  }
  const denial = firstPathDenial(input, keys) ?? firstPatternDenial(input, keys);
  if (denial !== undefined) return deny(denial);
  if (action.value === "ask") {
    const reason: Reason = {
      code: "action_ask",
      message: `Tool ${name} asks before every call (action: ask)`,
      source: action.source,
    };
    const question = {
      kind: "action" as const,
      message: `Run ${name} on server ${renderUntrusted(server)} with these arguments?${argumentLines(input.arguments)}`,
      // The question names these arguments: a decline is remembered for them, not for the tool.
      key: {
        server,
        tool,
        param: "",
        identity: `${ACTION_IDENTITY}${canonicalJson(input.arguments)}`,
        subject: "tool" as const,
      },
    };
    return { denies: [], asks: [{ reason, question }] };
  }
  return NO_OBJECTION;
}
