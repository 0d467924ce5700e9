/**
 * Validators for the reserved sections shared by policy files and packs: `version`, `defaults`,
 * `servers`, `tools`, and tool entries at any level (duplicates refused).
 * Pure.
 *
 * Source: SPEC §4.2 (file format), §4.1 (`servers.<name>.defaults`).
 * @module
 */

import { isMap, isScalar } from "yaml";
import { checkToolEntry } from "./check-tool-entry.ts";
import { checkValue, placePhrase } from "./check-value.ts";
import { closestKey } from "./closest-key.ts";
import type { DefaultsEntry, ServerEntry, ToolEntry } from "./types.ts";
import { DEFAULTS_VALUE_RULES, type ValueRule } from "./value-rules.ts";
import {
  addIssue,
  deref,
  describeNode,
  type Entry,
  type IssueContext,
  mappingEntries,
  type YamlSource,
} from "./yaml-source.ts";

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
export function checkVersion(source: YamlSource, entry: Entry): void {
  const node = deref(source, entry.valueNode);
  if (isScalar(node) && node.value === 1) return;
  const found = describeNode(source, entry.valueNode);
  addIssue(
    source,
    entry.valueNode ?? entry.keyNode,
    "bad_version",
    `unsupported "version": expected 1, received ${found}`,
    {
      key: "version",
    },
  );
}

/**
 * Checks a mapping whose keys each have a value rule (`defaults`, `match`), reporting unknown keys
 * with the closest key suggested.
 *
 * @param source - The source being checked.
 * @param node - The section's node.
 * @param rules - Value rules by key.
 * @param context - Section name, and the server for `servers.<name>.defaults`.
 * @returns The validated values by YAML key (only those that passed).
 */
export function checkKeyedSection(
  source: YamlSource,
  node: unknown,
  rules: ReadonlyMap<string, ValueRule>,
  context: IssueContext & { readonly section: string },
): Map<string, unknown> {
  const values = new Map<string, unknown>();
  const { section, ...issueContext } = context;
  const target = deref(source, node);
  if (!isMap(target)) {
    const found = describeNode(source, node);
    addIssue(source, node, "not_mapping", `"${section}" must be a mapping of keys, received ${found}`, {
      ...issueContext,
      key: section,
    });
    return values;
  }
  for (const { name, keyNode, valueNode } of mappingEntries(source, target, "key", issueContext)) {
    const rule = rules.get(name);
    if (!rule) {
      const suggestion = closestKey(name, [...rules.keys()]);
      const hint = suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
      const where = placePhrase(issueContext, section);
      const extra = suggestion === undefined ? {} : { suggestion };
      addIssue(source, keyNode, "unknown_key", `unknown key "${name}" ${where}${hint}`, {
        ...issueContext,
        key: name,
        ...extra,
      });
      continue;
    }
    const value = checkValue(source, valueNode ?? keyNode, rule, { ...issueContext, key: name, section });
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
export function checkDefaults(source: YamlSource, node: unknown, context: IssueContext = {}): DefaultsEntry {
  const rules =
    context.server === undefined
      ? DEFAULTS_VALUE_RULES
      : new Map([["trusted_destinations", DEFAULTS_VALUE_RULES.get("trusted_destinations")!]]);
  const values = checkKeyedSection(source, node, rules, { ...context, section: "defaults" });
  const out: Record<string, unknown> = {};
  for (const [key, value] of values) out[DEFAULTS_FIELDS.get(key)!] = value;
  return out as DefaultsEntry;
}

/**
 * Adds one tool entry to a map, refusing a second entry for the same tool in one scope
 * (top level and `tools:` share a scope).
 *
 * @param source - The source being checked.
 * @param tools - The scope's tool map, filled in place.
 * @param entry - The tool's name and nodes.
 * @param context - The server, for `servers.<name>` entries; `inPack` for packs.
 */
export function addToolEntry(
  source: YamlSource,
  tools: Map<string, ToolEntry>,
  entry: Entry,
  context: IssueContext & { readonly inPack?: boolean },
): void {
  const { inPack, ...issueContext } = context;
  const toolContext = { ...issueContext, tool: entry.name };
  if (tools.has(entry.name)) {
    const scope = issueContext.server === undefined ? "" : ` in server "${issueContext.server}"`;
    addIssue(
      source,
      entry.keyNode,
      "duplicate_tool",
      `tool "${entry.name}" is given twice${scope}`,
      toolContext,
    );
    return;
  }
  const checked = checkToolEntry(source, entry.valueNode ?? entry.keyNode, toolContext, {
    inPack: inPack === true,
  });
  if (checked) tools.set(entry.name, checked);
}

/**
 * Checks a `tools:` section: a mapping of tool name → entry, for names that clash with reserved keys.
 *
 * @param source - The source being checked.
 * @param node - The section's node.
 * @param tools - The scope's tool map, filled in place.
 * @param context - The server, or `inPack`.
 */
export function checkToolsSection(
  source: YamlSource,
  node: unknown,
  tools: Map<string, ToolEntry>,
  context: IssueContext & { readonly inPack?: boolean },
): void {
  const target = deref(source, node);
  if (!isMap(target)) {
    const found = describeNode(source, node);
    addIssue(
      source,
      node,
      "not_mapping",
      `"tools" must be a mapping of tool names to entries, received ${found}`,
      {
        ...serverOnly(context),
        key: "tools",
      },
    );
    return;
  }
  for (const entry of mappingEntries(source, target, "tool", serverOnly(context))) {
    addToolEntry(source, tools, entry, context);
  }
}

/**
 * Checks `servers:`: server name → its `defaults` (trusted destinations only), `tools` and tool entries.
 *
 * @param source - The source being checked.
 * @param node - The section's node.
 * @returns The server sections by name.
 * Source: SPEC §4.1, §4.2.
 */
export function checkServers(source: YamlSource, node: unknown): Map<string, ServerEntry> {
  const servers = new Map<string, ServerEntry>();
  const target = deref(source, node);
  if (!isMap(target)) {
    const found = describeNode(source, node);
    addIssue(
      source,
      node,
      "not_mapping",
      `"servers" must be a mapping of server names to sections, received ${found}`,
      {
        key: "servers",
      },
    );
    return servers;
  }
  for (const server of mappingEntries(source, target, "server", {})) {
    const section = deref(source, server.valueNode);
    if (!isMap(section)) {
      const found = describeNode(source, server.valueNode);
      addIssue(
        source,
        server.valueNode ?? server.keyNode,
        "not_mapping",
        `server "${server.name}" must be a mapping of tools, received ${found}`,
        {
          server: server.name,
        },
      );
      continue;
    }
    const tools = new Map<string, ToolEntry>();
    let trusted: readonly string[] | undefined;
    for (const entry of mappingEntries(source, section, "tool", { server: server.name })) {
      if (entry.name === "defaults") {
        trusted = checkDefaults(source, entry.valueNode ?? entry.keyNode, {
          server: server.name,
        }).trustedDestinations;
      } else if (entry.name === "tools") {
        checkToolsSection(source, entry.valueNode ?? entry.keyNode, tools, { server: server.name });
      } else {
        addToolEntry(source, tools, entry, { server: server.name });
      }
    }
    servers.set(server.name, trusted === undefined ? { tools } : { tools, trustedDestinations: trusted });
  }
  return servers;
}

function serverOnly(context: IssueContext): IssueContext {
  return context.server === undefined ? {} : { server: context.server };
}
