/**
 * The pack validator over a document tree (see `policy-source.ts`): packs use the policy format
 * (the same section and tool-entry validators) plus `match:`; `defaults`, `servers` and `replace`
 * belong to user policy only. Pure; no YAML library here.
 *
 * Source: SPEC §4.3 (packs), §4.2 (format).
 * @module
 */

import { sortIssues } from "./check-policy-source.ts";
import { addToolEntry, checkKeyedSection, checkToolsSection, checkVersion } from "./check-sections.ts";
import { addIssue, describeNode, mappingEntries, type PolicySource } from "./policy-source.ts";
import type { CheckPackResult, PackMatch, ToolEntry } from "./types.ts";
import { MATCH_VALUE_RULES } from "./value-rules.ts";

/**
 * Validates a pack document.
 *
 * @param source - The document, already read (syntax issues, if any, already recorded), named
 * `<name>.yaml`.
 * @param name - The pack's name (its file name without `.yaml`); rules carry `pack:<name>`.
 * @returns `{ ok: true, pack }` or `{ ok: false, issues }`.
 * Source: SPEC §4.3.
 */
export function checkPackSource(source: PolicySource, name: string): CheckPackResult {
  const { file, tree } = source;
  const tools = new Map<string, ToolEntry>();
  let match: PackMatch | undefined;
  const root = tree.root;
  if (source.issues.length === 0) {
    if (tree.shape(root) !== "map") {
      const message = `a pack must be a mapping of keys, received ${describeNode(source, root)}`;
      addIssue(source, { at: root, code: "not_mapping", message });
    }
    const scope = { tools, inPack: true };
    for (const entry of mappingEntries(source, root, { what: "tool" })) {
      const valueNode = entry.valueNode ?? entry.keyNode;
      switch (entry.name) {
        case "version":
          checkVersion(source, entry);
          break;
        case "match":
          match = toMatch(
            checkKeyedSection(source, { node: valueNode, rules: MATCH_VALUE_RULES, section: "match" }),
          );
          break;
        case "tools":
          checkToolsSection(source, valueNode, scope);
          break;
        case "defaults":
        case "servers":
          addIssue(source, {
            key: entry.name,
            at: entry.keyNode,
            code: "not_in_pack",
            message: `key "${entry.name}" is only for user policy, not for packs`,
          });
          break;
        default:
          addToolEntry(source, entry, scope);
      }
    }
    if (source.issues.length === 0 && !hasPatterns(match)) {
      const message = `pack "${name}" needs "match" with at least one pattern`;
      addIssue(source, { key: "match", at: 0, code: "no_match", message });
    }
  }
  const issues = sortIssues(source.issues);
  if (issues || match === undefined) {
    return {
      ok: false,
      issues: issues ?? [{ code: "no_match", file, line: 1, column: 1, message: "no match" }],
    };
  }
  const header = packHeader(tree.leadingComment());
  return { ok: true, pack: { name, header, match, tools } };
}

function toMatch(values: ReadonlyMap<string, unknown>): PackMatch {
  const list = (key: string): readonly string[] => (values.get(key) as readonly string[] | undefined) ?? [];
  return {
    commands: list("commands"),
    serverNames: list("server_names"),
    upstreamNames: list("upstream_names"),
  };
}

function hasPatterns(match: PackMatch | undefined): boolean {
  if (!match) return false;
  return match.commands.length + match.serverNames.length + match.upstreamNames.length > 0;
}

/** The leading comment, each line trimmed of the single space YAML comments start with. */
function packHeader(comment: string): string {
  return comment
    .split("\n")
    .map((line) => line.replace(/^ /u, "").trimEnd())
    .join("\n")
    .trim();
}
