/**
 * Validators for the reserved sections shared by policy files and packs: `version`, `defaults`,
 * `servers`, `tools`, and tool entries at any level (duplicates refused).
 * Pure.
 *
 * Source: SPEC §4.2 (file format), §4.1 (`servers.<name>.defaults`).
 * @module
 */

import { checkToolEntry } from "./check-tool-entry.ts";
import { checkValue, placePhrase } from "./check-value.ts";
import { closestKey, misspeltSection } from "./closest-key.ts";
import {
  addIssue,
  describeNode,
  type Entry,
  type IssueContext,
  mappingEntries,
  type PolicySource,
} from "./policy-source.ts";
import type { DefaultsEntry, ServerEntry, ToolEntry } from "./types.ts";
import { DEFAULTS_VALUE_RULES, type ValueRule } from "./value-rules.ts";

/** Field names of {@link DefaultsEntry} by YAML key. */
const DEFAULTS_FIELDS: ReadonlyMap<string, keyof DefaultsEntry> = new Map<string, keyof DefaultsEntry>([
  ["heuristics", "heuristics"],
  ["on_tainted", "onTainted"],
  ["taint_fields", "taintFields"],
  ["taint_min_length", "taintMinLength"],
  ["unclassified", "unclassified"],
  ["trusted_destinations", "trustedDestinations"],
]);

/**
 * Checks `version:`; only `1` is supported.
 *
 * @param source - The source being checked.
 * @param entry - The `version` entry.
 */
export function checkVersion(source: PolicySource, entry: Entry): void {
  if (source.tree.shape(entry.valueNode) === "scalar" && source.tree.scalar(entry.valueNode) === 1) return;
  const message = `unsupported "version": expected 1, received ${describeNode(source, entry.valueNode)}`;
  addIssue(source, { key: "version", at: entry.valueNode ?? entry.keyNode, code: "bad_version", message });
}

/** What {@link checkKeyedSection} checks: a mapping whose keys each have a value rule. */
export interface SectionCheck extends IssueContext {
  readonly node: unknown;
  readonly rules: ReadonlyMap<string, ValueRule>;
  /** The section's name for messages (`defaults`, `match`). */
  readonly section: string;
}

/**
 * Checks a mapping whose keys each have a value rule (`defaults`, `match`), reporting unknown keys
 * with the closest key suggested.
 *
 * @param source - The source being checked.
 * @param check - The section's node, its rules by key, its name and the server it belongs to.
 * @returns The validated values by YAML key (only those that passed).
 */
export function checkKeyedSection(source: PolicySource, check: SectionCheck): Map<string, unknown> {
  const { node, rules, section, ...context } = check;
  const values = new Map<string, unknown>();
  if (source.tree.shape(node) !== "map") {
    const message = `"${section}" must be a mapping of keys, received ${describeNode(source, node)}`;
    addIssue(source, { ...context, key: section, at: node, code: "not_mapping", message });
    return values;
  }
  for (const { name, keyNode, valueNode } of mappingEntries(source, node, { what: "key", context })) {
    const rule = rules.get(name);
    if (!rule) {
      const suggestion = closestKey(name, [...rules.keys()]);
      const hint = suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
      const only =
        context.server !== undefined && section === "defaults"
          ? ' (only "trusted_destinations" is allowed here)'
          : "";
      const message = `unknown key "${name}" ${placePhrase(context, section)}${hint}${only}`;
      const extra = suggestion === undefined ? {} : { suggestion };
      addIssue(source, { ...context, ...extra, key: name, at: keyNode, code: "unknown_key", message });
      continue;
    }
    const value = checkValue(source, { ...context, key: name, section, node: valueNode ?? keyNode, rule });
    if (value !== undefined) values.set(name, value);
  }
  return values;
}

/**
 * Checks `defaults:` (or `servers.<name>.defaults:`, where only `trusted_destinations` is allowed).
 *
 * @param source - The source being checked.
 * @param node - The section's node.
 * @param context - The server, for a server's defaults.
 * @returns The validated defaults.
 * Source: SPEC §4.2 `defaults`, §4.1.
 */
export function checkDefaults(
  source: PolicySource,
  node: unknown,
  context: IssueContext = {},
): DefaultsEntry {
  const rules =
    context.server === undefined
      ? DEFAULTS_VALUE_RULES
      : new Map([["trusted_destinations", DEFAULTS_VALUE_RULES.get("trusted_destinations")!]]);
  const values = checkKeyedSection(source, { ...context, node, rules, section: "defaults" });
  const out: Record<string, unknown> = {};
  for (const [key, value] of values) out[DEFAULTS_FIELDS.get(key)!] = value;
  return out as DefaultsEntry;
}

/**
 * The glob character of `match:` patterns and `trusted_destinations`. In a tool or server name it
 * would be taken literally, so an entry written as a glob would apply to nothing: refused.
 */
const WILDCARD = "*";

/** Where tool entries go: the scope's map, the server it belongs to, and whether it is a pack. */
export interface ToolScope {
  /** The scope's tool map, filled in place (top level and `tools:` share a scope). */
  readonly tools: Map<string, ToolEntry>;
  readonly server?: string;
  readonly inPack?: boolean;
}

/**
 * Adds one tool entry to its scope, refusing a second entry for the same tool in one scope and a
 * name holding `*` (no glob: it would name no tool).
 *
 * @param source - The source being checked.
 * @param entry - The tool's name and nodes.
 * @param scope - The scope's map, server and `inPack`.
 */
export function addToolEntry(source: PolicySource, entry: Entry, scope: ToolScope): void {
  const context = { ...serverOnly(scope), tool: entry.name };
  if (entry.name.includes(WILDCARD)) {
    // `delete_*` reads as a glob but named no tool: its `action: deny` applied to nothing.
    const message = `refused tool name "${entry.name}": a tool entry names one tool exactly, and "*" is no wildcard here (MCP tool names have no "*"); write an entry per tool`;
    addIssue(source, { ...context, at: entry.keyNode, code: "refused_name", message });
    return;
  }
  if (scope.tools.has(entry.name)) {
    const where = scope.server === undefined ? "" : ` in server "${scope.server}"`;
    const message = `tool "${entry.name}" is given twice${where}`;
    addIssue(source, { ...context, at: entry.keyNode, code: "duplicate_tool", message });
    return;
  }
  const node = entry.valueNode ?? entry.keyNode;
  const checked = checkToolEntry(source, { ...context, node, inPack: scope.inPack === true });
  if (checked) scope.tools.set(entry.name, checked);
}

/**
 * Checks a `tools:` section: a mapping of tool name → entry, for names that clash with reserved keys.
 *
 * @param source - The source being checked.
 * @param node - The section's node.
 * @param scope - The scope's map, server and `inPack`.
 */
export function checkToolsSection(source: PolicySource, node: unknown, scope: ToolScope): void {
  if (source.tree.shape(node) !== "map") {
    const message = `"tools" must be a mapping of tool names to entries, received ${describeNode(source, node)}`;
    addIssue(source, { ...serverOnly(scope), key: "tools", at: node, code: "not_mapping", message });
    return;
  }
  for (const entry of mappingEntries(source, node, { what: "tool", context: serverOnly(scope) })) {
    addToolEntry(source, entry, scope);
  }
}

/** The sections of a server's entry: a key close to one of them is a typo, not a tool. */
const SERVER_SECTIONS = ["defaults", "tools"] as const;

/**
 * Checks `servers:`: server name → its `defaults` (trusted destinations only), `tools` and tool
 * entries; a key one edit from `tools` (two from `defaults`) is refused as a misspelt section, and
 * a server name holding `*` (no glob: it would name no upstream).
 *
 * @param source - The source being checked.
 * @param node - The section's node.
 * @returns The server sections by name.
 * Source: SPEC §4.1, §4.2.
 */
export function checkServers(source: PolicySource, node: unknown): Map<string, ServerEntry> {
  const servers = new Map<string, ServerEntry>();
  if (source.tree.shape(node) !== "map") {
    const message = `"servers" must be a mapping of server names to sections, received ${describeNode(source, node)}`;
    addIssue(source, { key: "servers", at: node, code: "not_mapping", message });
    return servers;
  }
  for (const server of mappingEntries(source, node, { what: "server" })) {
    if (server.name.includes(WILDCARD)) {
      const message = `refused server name "${server.name}": a servers section applies to the --upstream-name it names exactly, and "*" is no wildcard here (top-level entries apply to every server)`;
      addIssue(source, { server: server.name, at: server.keyNode, code: "refused_name", message });
      continue;
    }
    const section = server.valueNode;
    if (source.tree.shape(section) !== "map") {
      const message = `server "${server.name}" must be a mapping of tools, received ${describeNode(source, server.valueNode)}`;
      addIssue(source, {
        server: server.name,
        at: server.valueNode ?? server.keyNode,
        code: "not_mapping",
        message,
      });
      continue;
    }
    const scope: ToolScope = { tools: new Map<string, ToolEntry>(), server: server.name };
    let trusted: readonly string[] | undefined;
    for (const entry of mappingEntries(source, section, { what: "tool", context: { server: server.name } })) {
      const valueNode = entry.valueNode ?? entry.keyNode;
      if (entry.name === "defaults") {
        trusted = checkDefaults(source, valueNode, { server: server.name }).trustedDestinations;
      } else if (entry.name === "tools") {
        checkToolsSection(source, valueNode, scope);
      } else {
        const meant = misspeltSection(entry.name, SERVER_SECTIONS);
        if (meant === undefined) addToolEntry(source, entry, scope);
        else {
          addIssue(source, {
            server: server.name,
            key: entry.name,
            at: entry.keyNode,
            code: "unknown_key",
            message: `key "${entry.name}" of server "${server.name}" would be read as a tool: did you mean "${meant}"? (a tool of that name goes under "tools:")`,
            suggestion: meant,
          });
        }
      }
    }
    servers.set(
      server.name,
      trusted === undefined ? { tools: scope.tools } : { tools: scope.tools, trustedDestinations: trusted },
    );
  }
  return servers;
}

function serverOnly(scope: IssueContext): IssueContext {
  return scope.server === undefined ? {} : { server: scope.server };
}
