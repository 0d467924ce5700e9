/**
 * A user policy file's text → a validated, compiled {@link PolicyFile}, as a non-throwing check
 * and a throwing parse over one implementation.
 * Pure: the caller reads the file.
 *
 * Source: SPEC §4.2 (file format, strict validation); STYLE #4 (compile once), #13 (twin API).
 * @module
 */

import { isMap } from "yaml";
import {
  addToolEntry,
  checkDefaults,
  checkServers,
  checkToolsSection,
  checkVersion,
} from "./check-sections.ts";
import { PolicyError } from "./policy-error.ts";
import type {
  CheckPolicyResult,
  DefaultsEntry,
  PolicyFile,
  PolicyIssue,
  PolicyIssues,
  ServerEntry,
  ToolEntry,
} from "./types.ts";
import { addIssue, deref, describeNode, mappingEntries, readYamlSource } from "./yaml-source.ts";

/**
 * Validates a policy file. Never throws for bad input: every problem is an issue with file,
 * line:column, tool and key. An empty file is an empty policy.
 *
 * @param text - The file's text.
 * @param fileName - The file name as the user gave it (messages and `user:<file>` sources).
 * @returns `{ ok: true, policy }` or `{ ok: false, issues }` (issues in file order).
 * Source: SPEC §4.2.
 * @example
 * ```ts
 * const result = checkPolicy("send_email: { alow: true }\n", "bouncer.yaml");
 * if (!result.ok) result.issues[0].message; // unknown key "alow" in tool "send_email" (did you mean "action"?)
 * ```
 */
export function checkPolicy(text: string, fileName: string): CheckPolicyResult {
  const source = readYamlSource(text, fileName);
  let defaults: DefaultsEntry = {};
  let servers = new Map<string, ServerEntry>();
  const tools = new Map<string, ToolEntry>();
  const root = deref(source, source.doc.contents);
  if (source.issues.length === 0 && root !== null && root !== undefined) {
    const isEmptyScalar = !isMap(root) && describeNode(source, root) === "nothing";
    if (!isMap(root) && !isEmptyScalar) {
      const message = `a policy must be a mapping of keys, received ${describeNode(source, root)}`;
      addIssue(source, { at: root, code: "not_mapping", message });
    }
    const scope = { tools };
    for (const entry of mappingEntries(source, root, { what: "tool" })) {
      switch (entry.name) {
        case "version":
          checkVersion(source, entry);
          break;
        case "defaults":
          defaults = checkDefaults(source, entry.valueNode ?? entry.keyNode);
          break;
        case "servers":
          servers = checkServers(source, entry.valueNode ?? entry.keyNode);
          break;
        case "tools":
          checkToolsSection(source, entry.valueNode ?? entry.keyNode, scope);
          break;
        case "match":
          addIssue(source, {
            key: "match",
            at: entry.keyNode,
            code: "pack_only",
            message: `key "match" is only for packs (use "tools: { match: ... }" for a tool named "match")`,
          });
          break;
        default:
          addToolEntry(source, entry, scope);
      }
    }
  }
  const issues = sortIssues(source.issues);
  if (issues) return { ok: false, issues };
  return { ok: true, policy: { file: fileName, defaults, servers, tools } };
}

/**
 * Validates a policy file and returns it, or throws.
 *
 * @param text - The file's text.
 * @param fileName - The file name as the user gave it.
 * @returns The validated, compiled policy file.
 * @throws {PolicyError} `POLICY_INVALID` with every issue, when the file is invalid.
 * Source: SPEC §4.2; STYLE #13.
 */
export function parsePolicy(text: string, fileName: string): PolicyFile {
  const result = checkPolicy(text, fileName);
  if (!result.ok) throw new PolicyError(fileName, result.issues);
  return result.policy;
}

/**
 * Issues in file order, or `undefined` when there are none.
 *
 * @param issues - Issues in discovery order.
 * @returns A non-empty sorted list, or `undefined`.
 */
export function sortIssues(issues: readonly PolicyIssue[]): PolicyIssues | undefined {
  const sorted = [...issues].sort((a, b) => a.line - b.line || a.column - b.column);
  const [first, ...rest] = sorted;
  return first === undefined ? undefined : [first, ...rest];
}
