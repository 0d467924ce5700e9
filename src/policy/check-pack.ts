/**
 * A pack file's text → a validated, compiled {@link Pack}. Packs use the policy format (the same
 * validator) plus `match:`; `defaults`, `servers` and `replace` belong to user policy only.
 * Pure: the caller reads or embeds the file.
 *
 * Source: SPEC §4.3 (packs), §4.2 (format); STYLE #13 (twin API).
 * @module
 */

import { isMap, isScalar } from "yaml";
import { sortIssues } from "./check-policy.ts";
import { addToolEntry, checkKeyedSection, checkToolsSection, checkVersion } from "./check-sections.ts";
import { PolicyError } from "./policy-error.ts";
import type { CheckPackResult, Pack, PackMatch, ToolEntry } from "./types.ts";
import { MATCH_VALUE_RULES } from "./value-rules.ts";
import { addIssue, deref, describeNode, mappingEntries, readYamlSource } from "./yaml-source.ts";

/**
 * Validates a pack file.
 *
 * @param text - The pack's YAML text.
 * @param name - The pack's name (its file name without `.yaml`); rules carry `pack:<name>`.
 * @returns `{ ok: true, pack }` or `{ ok: false, issues }`.
 * Source: SPEC §4.3.
 */
export function checkPack(text: string, name: string): CheckPackResult {
  const file = `${name}.yaml`;
  const source = readYamlSource(text, file);
  const tools = new Map<string, ToolEntry>();
  let match: PackMatch | undefined;
  const root = deref(source, source.doc.contents);
  if (source.issues.length === 0) {
    if (!isMap(root)) {
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
  const firstKey = isMap(root) ? root.items[0]?.key : undefined;
  const rootComment = isMap(root)
    ? (root.commentBefore ?? (isScalar(firstKey) ? firstKey.commentBefore : undefined))
    : undefined;
  const header = packHeader(source.doc.commentBefore ?? rootComment ?? "");
  return { ok: true, pack: { name, header, match, tools } };
}

/**
 * Validates a pack file and returns it, or throws.
 *
 * @param text - The pack's YAML text.
 * @param name - The pack's name.
 * @returns The validated pack.
 * @throws {PolicyError} `POLICY_INVALID` with every issue, when the pack is invalid.
 * Source: SPEC §4.3; STYLE #13.
 */
export function parsePack(text: string, name: string): Pack {
  const result = checkPack(text, name);
  if (!result.ok) throw new PolicyError(`${name}.yaml`, result.issues, { what: "pack" });
  return result.pack;
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
