/**
 * The policy file validator over a document tree (see `policy-source.ts`): reserved keys, tool
 * entries, `servers` and `defaults`, compiled into a {@link PolicyFile}. Pure; no YAML library here.
 *
 * Source: SPEC §4.2 (file format, strict validation); STYLE #4 (compile once).
 * @module
 */

import {
  addToolEntry,
  checkDefaults,
  checkServers,
  checkToolsSection,
  checkVersion,
} from "./check-sections.ts";
import { misspeltSection } from "./closest-key.ts";
import { addIssue, describeNode, mappingEntries, type PolicySource } from "./policy-source.ts";
import type {
  CheckPolicyResult,
  DefaultsEntry,
  PolicyIssue,
  PolicyIssues,
  ServerEntry,
  ToolEntry,
} from "./types.ts";

/**
 * Validates a policy document. Never throws for bad input: every problem is an issue with file,
 * line:column (from the tree), tool and key. An empty document is an empty policy.
 *
 * @param source - The document, already read (syntax issues, if any, already recorded); its file
 * name is the one the user gave (messages and `user:<file>` sources).
 * @returns `{ ok: true, policy }` or `{ ok: false, issues }` (issues in file order).
 * Source: SPEC §4.2.
 */
export function checkPolicySource(source: PolicySource): CheckPolicyResult {
  const fileName = source.file;
  const { tree } = source;
  let defaults: DefaultsEntry = {};
  let servers = new Map<string, ServerEntry>();
  const tools = new Map<string, ToolEntry>();
  const root = tree.root;
  if (source.issues.length === 0 && root !== null && root !== undefined) {
    const isMap = tree.shape(root) === "map";
    const isEmptyScalar = !isMap && describeNode(source, root) === "nothing";
    if (!isMap && !isEmptyScalar) {
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
        default: {
          // `default:` for `defaults:` would pass as a tool whose keys all happen to be valid: a
          // top-level name one or two letters from a section is refused, naming both readings.
          const section = misspeltSection(entry.name, SECTIONS);
          if (section !== undefined) {
            addIssue(source, {
              key: entry.name,
              at: entry.keyNode,
              code: "unknown_key",
              message: `top-level key "${entry.name}" would be read as a tool: did you mean "${section}"? (a tool of that name goes under "tools:")`,
              suggestion: section,
            });
          } else addToolEntry(source, entry, scope);
        }
      }
    }
  }
  const issues = sortIssues(source.issues);
  if (issues) return { ok: false, issues };
  return { ok: true, policy: { file: fileName, defaults, servers, tools } };
}

/** The sections of a policy file: a top-level key close to one of them is a typo, not a tool. */
const SECTIONS = ["version", "defaults", "servers", "tools"] as const;

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
