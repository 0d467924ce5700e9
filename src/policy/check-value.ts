/**
 * Checks one policy value against its valibot rule and turns a failure into a located issue:
 * the element that is wrong, what was expected, what was found, and the closest valid choice.
 * Pure.
 *
 * Source: SPEC §4.2 (wrong types are errors naming file, line:column, tool and key).
 * @module
 */

import * as v from "valibot";
import { closestKey } from "./closest-key.ts";
import {
  addIssue,
  describeNode,
  type IssueContext,
  type PolicySource,
  plainValue,
  REPEATED_KEY,
  TOO_LARGE,
} from "./policy-source.ts";
import type { ValueRule } from "./value-rules.ts";

/**
 * Describes where a key sits for messages: `in tool "send_email"`, `in tool "send_email" of server
 * "mail"`, `in "defaults"`, `in "match"`.
 *
 * @param context - The issue context.
 * @param section - The section name when not a tool (`defaults`, `match`).
 * @returns The phrase, starting with `in`.
 */
export function placePhrase(context: IssueContext, section?: string): string {
  const server = context.server === undefined ? "" : ` of server "${context.server}"`;
  if (context.tool !== undefined) return `in tool "${context.tool}"${server}`;
  return `in "${section ?? "policy"}"${server}`;
}

/** What {@link checkValue} checks: a value node against a rule, for a key of a tool or section. */
export interface ValueCheck extends IssueContext {
  /** The value's YAML node. */
  readonly node: unknown;
  /** The valibot rule and its expectation phrase. */
  readonly rule: ValueRule;
  /** The key named in the message. */
  readonly key: string;
  /** The section, when the key is not a tool's (`defaults`, `match`). */
  readonly section?: string;
}

/**
 * Validates one value node against a rule. On failure records one issue (located at the failing
 * list item when there is one) and returns `undefined`.
 *
 * @param source - The source being checked.
 * @param check - The node, the rule, and the tool, server and key it belongs to.
 * @returns The validated value, or `undefined` after recording an issue.
 */
export function checkValue(source: PolicySource, check: ValueCheck): unknown {
  const { node, rule, section, ...context } = check;
  const value = plainValue(source, node);
  if (value === TOO_LARGE) {
    const message = `value of "${context.key}" ${placePhrase(context, section)} is too large: through YAML aliases it expands past 100,000 items (or the file's values together past 10,000,000)`;
    addIssue(source, { ...context, at: node, code: "wrong_type", message });
    return undefined;
  }
  if (value === REPEATED_KEY) {
    const message = `value of "${context.key}" ${placePhrase(context, section)} gives a key twice (through a YAML alias, or as a number and a string)`;
    addIssue(source, { ...context, at: node, code: "duplicate_key", message });
    return undefined;
  }
  const result = v.safeParse(rule.schema, value);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const index = issue.path?.[0]?.type === "array" ? Number(issue.path[0].key) : undefined;
  const itemNode =
    index !== undefined && source.tree.shape(node) === "seq" ? source.tree.items(node)[index] : undefined;
  const at = itemNode ?? node;
  const where = `"${context.key}" ${placePhrase(context, section)}`;
  const found = describeNode(source, at);
  if (issue.kind === "validation" && issue.type === "check") {
    const message = `invalid value for ${where}: ${issue.message}, received ${found}`;
    addIssue(source, { ...context, at, code: "wrong_type", message });
    return undefined;
  }
  const item = index === undefined || itemNode === undefined ? "" : ` in item ${index + 1}`;
  const suggestion = typeof value === "string" && rule.choices ? closestKey(value, rule.choices) : undefined;
  const hint = suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
  const message = `wrong type for ${where}: expected ${rule.expected}, received ${found}${item}${hint}`;
  addIssue(source, {
    ...context,
    ...(suggestion === undefined ? {} : { suggestion }),
    at,
    code: "wrong_type",
    message,
  });
  return undefined;
}
