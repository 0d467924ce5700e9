/**
 * `bouncer check [--policy FILE]... [--json]`: validates the policy files and prints the merged
 * policy — the effective rules of every tool the files name (top level and per server), each value
 * with the layer it came from. Any issue → every issue as `FILE:LINE:COLUMN: message`, exit 2.
 * Edge.
 *
 * Source: SPEC §5.5, §4.1–4.2, §5 (exit codes, `--json`).
 * @module
 */

import { defineCommand } from "citty";
import type { JsonObject, ToolRules } from "../engine/index.ts";
import { safeName } from "../engine/index.ts";
import { repeatedFlag } from "../platform/args.ts";
import { terminalJson } from "../platform/terminal-json.ts";
import {
  type ConfinementWarning,
  confinementWarnings,
  explainToolRules,
  matchPacks,
  type Policy,
  type PolicyFile,
  policyFileJson,
  resolveToolRules,
} from "../policy/index.ts";
import { type CommandIo, commandIo } from "./io.ts";
import { checkEveryPolicyPath, checkPolicyPaths, formatIssueLine } from "./policy-files.ts";
import { placeholderNotes, rulesLines, settingSourceMembers, warningJson } from "./rules-view.ts";

/** What `bouncer check` was asked to do. */
export interface CheckOptions {
  /** The `--policy` files in command-line order. */
  readonly policies: readonly string[];
  readonly json?: boolean;
}

/** One tool of the merged policy: its server section (if any), the matched packs, its rules. */
export interface MergedTool {
  /** The `servers.<name>` section, or undefined for a top-level tool. */
  readonly server?: string;
  readonly tool: string;
  /** Packs matched by the server name (none for top-level tools). */
  readonly packs: readonly string[];
  readonly rules: ToolRules;
  /** Its user prefixes that confine nothing (SPEC §2.4): `[]`, or no `write_params` in any layer. */
  readonly warnings: readonly ConfinementWarning[];
}

/**
 * The merged policy: effective rules of every top-level tool the files name (no server, so no pack
 * applies) and of every `servers.<name>` tool (packs matched by the server name, as for a server
 * without a command line), sorted by server and tool.
 *
 * Source: SPEC §4.1, §5.5.
 * @param policy - The validated policy.
 * @returns One entry per tool.
 */
export function mergedPolicy(policy: Policy): MergedTool[] {
  const toolNames = new Set<string>();
  const servers = new Map<string, Set<string>>();
  for (const file of policy.files) {
    for (const name of file.tools.keys()) toolNames.add(name);
    for (const [server, entry] of file.servers) {
      const names = servers.get(server) ?? new Set<string>();
      for (const name of entry.tools.keys()) names.add(name);
      servers.set(server, names);
    }
  }
  // No command line here: show a pack's `$COMMAND_LINE_DIRS` rather than no confinement at all.
  const merged: MergedTool[] = [...toolNames].sort().map((tool) => ({
    tool,
    packs: [],
    rules: resolveToolRules(policy, { server: "", tool, packs: [], showPlaceholders: true }),
    warnings: confinementWarnings(policy, { server: "", packs: [], tools: [tool], showPlaceholders: true }),
  }));
  for (const [server, names] of [...servers].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const packs = matchPacks(policy.packs, { upstreamName: server });
    for (const tool of [...names].sort()) {
      const rules = resolveToolRules(policy, { server, tool, packs, showPlaceholders: true });
      const warnings = confinementWarnings(policy, { server, packs, tools: [tool], showPlaceholders: true });
      merged.push({ server, tool, packs: packs.map((matched) => matched.pack.name), rules, warnings });
    }
  }
  return merged;
}

/**
 * The merged policy as one JSON document.
 * @param policy - The validated policy.
 * @param merged - Its {@link mergedPolicy}.
 * @returns `{ ok, files, tools: [...] }`, each tool with its server, packs and rules.
 */
function mergedJson(policy: Policy, merged: readonly MergedTool[]): JsonObject {
  return {
    ok: true,
    files: policy.files.map(policyFileJson),
    warnings: distinctWarnings(merged).map(warningJson),
    tools: merged.map((entry) => ({
      ...(entry.server === undefined ? {} : { server: entry.server, packs: [...entry.packs] }),
      tool: entry.tool,
      rules: explainToolRules(entry.rules).map((row) => ({ ...row })),
      taint_min_length: entry.rules.taintMinLength,
      heuristics: entry.rules.heuristics,
      ...settingSourceMembers(entry.rules),
    })),
  };
}

/**
 * The merged tools' warnings, each once (a top-level entry's can show under a server's tool too).
 * @param merged - The merged policy.
 * @returns The warnings with the server section they were found under.
 */
function distinctWarnings(merged: readonly MergedTool[]): { server?: string; warning: ConfinementWarning }[] {
  const seen = new Set<string>();
  const found: { server?: string; warning: ConfinementWarning }[] = [];
  for (const entry of merged) {
    for (const warning of entry.warnings) {
      if (seen.has(warning.message)) continue;
      seen.add(warning.message);
      found.push(entry.server === undefined ? { warning } : { server: entry.server, warning });
    }
  }
  return found;
}

/**
 * The `defaults:` a file sets, one `key: value` line each (SPEC §4.2 names).
 * @param defaults - The file's defaults section.
 * @returns The lines, indented; none when the file sets no default.
 */
function defaultsLines(defaults: PolicyFile["defaults"]): string[] {
  const rows: [string, unknown][] = [
    ["on_tainted", defaults.onTainted],
    ["taint_fields", defaults.taintFields],
    ["taint_min_length", defaults.taintMinLength],
    ["unclassified", defaults.unclassified],
    ["heuristics", defaults.heuristics],
    [
      "trusted_destinations",
      defaults.trustedDestinations === undefined
        ? undefined
        : defaults.trustedDestinations.length === 0
          ? "[] (none)"
          : defaults.trustedDestinations.map((entry) => safeName(entry)).join(", "),
    ],
  ];
  return rows.filter(([, value]) => value !== undefined).map(([key, value]) => `  ${key}: ${String(value)}`);
}

/**
 * The merged policy for people.
 * @param policy - The validated policy.
 * @param merged - Its {@link mergedPolicy}.
 * @returns The text, ending in a newline.
 */
function mergedText(policy: Policy, merged: readonly MergedTool[]): string {
  const files = policy.files.map((file) => safeName(file.file));
  const lines = [
    files.length === 0 ? "No policy files: built-in defaults only" : `Policy OK: ${files.join(", ")}`,
  ];
  const blocks: string[] = [];
  for (const file of policy.files) {
    const source = `(user:${safeName(file.file)})`;
    const defaults = defaultsLines(file.defaults);
    if (defaults.length > 0) blocks.push("", `defaults:   ${source}`, ...defaults);
    for (const [server, entry] of file.servers) {
      if (entry.trustedDestinations === undefined) continue;
      blocks.push("", `servers.${safeName(server)}.defaults:   ${source}`);
      blocks.push(...defaultsLines({ trustedDestinations: entry.trustedDestinations }));
    }
    const setsNothing =
      defaults.length === 0 &&
      file.tools.size === 0 &&
      [...file.servers.values()].every(
        (entry) => entry.tools.size === 0 && entry.trustedDestinations === undefined,
      );
    if (setsNothing) {
      lines.push(
        `Note: ${safeName(file.file)} sets no rules (built-in defaults, packs and heuristics decide)`,
      );
    }
  }
  for (const { warning } of distinctWarnings(merged)) lines.push(`Warning: ${warning.message}`);
  lines.push(...blocks);
  for (const entry of merged) {
    const where = entry.server === undefined ? "" : `servers.${safeName(entry.server)}.`;
    const packs = entry.packs.length === 0 ? "" : `  (packs: ${entry.packs.join(", ")})`;
    lines.push("", `${where}${safeName(entry.tool)}:${packs}`, ...rulesLines(entry.rules));
  }
  lines.push(...placeholderNotes(merged.map((entry) => entry.rules)));
  return `${lines.join("\n")}\n`;
}

/**
 * Runs `bouncer check`.
 *
 * Source: SPEC §5.5.
 * @param options - The policy files and the output format.
 * @param io - Where output goes (with the working directory).
 * @returns 0 when every file is valid, 2 on any issue (with `--json`, also when a file cannot be read:
 *   `{"ok":false,"issues":[...]}` lists it as an issue of code `unreadable`, line and column 0).
 * @throws {BouncerError} `POLICY_UNREADABLE` (exit 2) when a file cannot be read, without `--json`.
 */
export async function runCheck(options: CheckOptions, io: CommandIo): Promise<number> {
  if (options.json === true) {
    const result = checkEveryPolicyPath(options.policies, { cwd: io.cwd });
    if (!result.ok) {
      io.out(`${terminalJson({ ok: false, issues: result.issues })}\n`);
      return 2;
    }
    io.out(`${terminalJson(mergedJson(result.policy, mergedPolicy(result.policy)))}\n`);
    return 0;
  }
  const result = await checkPolicyPaths(options.policies, { cwd: io.cwd });
  if (!result.ok) {
    for (const issue of result.issues) io.err(`${formatIssueLine(issue)}\n`);
    const count = result.issues.length;
    io.err(`bouncer: Policy check failed: ${count} ${count === 1 ? "issue" : "issues"}\n`);
    return 2;
  }
  io.out(mergedText(result.policy, mergedPolicy(result.policy)));
  return 0;
}

/** The citty definition of `bouncer check`. */
export const checkCommand = defineCommand({
  meta: {
    name: "check",
    description: "Validate policy files and print the merged policy (exit 2 on any issue)",
  },
  args: {
    policy: { type: "string", description: "A policy file (repeatable; later files win)", valueHint: "FILE" },
    json: { type: "boolean", description: "Print one JSON document" },
  },
  run: ({ args, rawArgs, data }): Promise<number> =>
    runCheck({ policies: repeatedFlag(rawArgs, "policy"), json: args.json === true }, commandIo(data)),
});

export default checkCommand;
