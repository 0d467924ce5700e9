/**
 * Checks one policy value against its valibot rule and turns a failure into a located issue:
 * the element that is wrong, what was expected, what was found, and the closest valid choice.
 * Pure.
 *
 * Source: SPEC §4.2 (wrong types are errors naming file, line:column, tool and key).
 * @module
 */

import * as v from "valibot";
import { isSeq } from "yaml";
import { closestKey } from "./closest-key.ts";
import type { ValueRule } from "./value-rules.ts";
import {
  addIssue,
  deref,
  describeNode,
  type IssueContext,
  plainValue,
  type YamlSource,
} from "./yaml-source.ts";

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

/**
 * Validates one value node against a rule. On failure records one issue (located at the failing
 * list item when there is one) and returns `undefined`.
 *
 * @param source - The source being checked.
 * @param valueNode - The value's YAML node.
 * @param rule - The valibot rule and its expectation phrase.
 * @param context - Tool, server and key (required: the key named in the message).
 * @returns The validated value, or `undefined` after recording an issue.
 */
export function checkValue(
  source: YamlSource,
  valueNode: unknown,
  rule: ValueRule,
  context: IssueContext & { readonly key: string; readonly section?: string },
): unknown {
  const value = plainValue(source, valueNode);
  const result = v.safeParse(rule.schema, value);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const index = issue.path?.[0]?.type === "array" ? Number(issue.path[0].key) : undefined;
  const seq = deref(source, valueNode);
  const itemNode = index !== undefined && isSeq(seq) ? seq.items[index] : undefined;
  const where = `"${context.key}" ${placePhrase(context, context.section)}`;
  const { section: _section, ...issueContext } = context;
  if (issue.kind === "validation" && issue.type === "check") {
    const found = describeNode(source, itemNode ?? valueNode);
    addIssue(
      source,
      itemNode ?? valueNode,
      "wrong_type",
      `invalid value for ${where}: ${issue.message}, received ${found}`,
      issueContext,
    );
    return undefined;
  }
  const found = describeNode(source, itemNode ?? valueNode);
  const item = index === undefined || itemNode === undefined ? "" : ` in item ${index + 1}`;
  const suggestion = typeof value === "string" && rule.choices ? closestKey(value, rule.choices) : undefined;
  const hint = suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
  addIssue(
    source,
    itemNode ?? valueNode,
    "wrong_type",
    `wrong type for ${where}: expected ${rule.expected}, received ${found}${item}${hint}`,
    suggestion === undefined ? issueContext : { ...issueContext, suggestion },
  );
  return undefined;
}
