/**
 * What Bouncer's policy makes of a started server's tools, for `bouncer doctor`: the packs that match
 * it, its exfiltrating tools with their sink arguments, and its tools that write paths without
 * confinement. Uses the policy module (`matchPacks`, `resolveToolRules`), the built-in packs and the
 * `--policy` files of a wrapped entry. Edge (reads policy files).
 *
 * Source: SPEC §5.3 ("matched pack, exfiltrating tools and their sink arguments, tools with
 * unconfined paths"), §4.3, §4.4.
 * @module
 */

import { realpathSync } from "node:fs";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { loadPolicyPaths } from "../commands/policy-files.ts";
import { isSinkShapedName, type JsonObject, schemaProperties, type ToolDefinition } from "../engine/index.ts";
import { bouncerHome } from "../platform/home-dir.ts";
import { matchPacks, resolveToolRules } from "../policy/index.ts";
import { listPins } from "../proxy/pin-admin.ts";
import type { ConfigEntry } from "./types.ts";

/** One exfiltrating tool and the arguments its destinations are read from. */
export interface ExfiltratingTool {
  readonly tool: string;
  /** Declared sinks first, then sink-shaped argument names of the schema. */
  readonly sinks: readonly string[];
}

/** The policy's view of one server. */
export interface ServerAnalysis {
  /** Names of the matched packs (empty: none). */
  readonly packs: readonly string[];
  readonly exfiltrating: readonly ExfiltratingTool[];
  /** Tools with path arguments (`write_params`) and no `allowed_path_prefixes`. */
  readonly unconfined: readonly string[];
}

/**
 * Analyses a server's tools under the policy its entry would run with.
 *
 * Source: SPEC §5.3.
 * @param entry - The config entry (a wrapped entry brings its `--policy` files and upstream).
 * @param facts - The listed tools, the server's `serverInfo.name`, and the folder policy paths resolve in.
 * @returns The analysis.
 * @throws {BouncerError} When a policy file cannot be read or is invalid.
 */
export async function analyzeServer(
  entry: ConfigEntry,
  facts: { readonly tools: readonly Tool[]; readonly serverInfoName?: string; readonly cwd: string },
): Promise<ServerAnalysis> {
  const wrapped = entry.wrapped;
  const policy = await loadPolicyPaths(wrapped?.policies ?? [], { cwd: facts.cwd });
  const command =
    wrapped?.form === "dash"
      ? [wrapped.command, ...wrapped.args]
      : [entry.command ?? "", ...(entry.args ?? [])];
  const server = wrapped?.upstreamName ?? entry.name;
  const packs = matchPacks(policy.packs, {
    command,
    upstreamName: server,
    ...(facts.serverInfoName === undefined ? {} : { serverInfoName: facts.serverInfoName }),
  });
  const exfiltrating: ExfiltratingTool[] = [];
  const unconfined: string[] = [];
  for (const tool of facts.tools) {
    const definition = toDefinition(tool);
    const rules = resolveToolRules(policy, { server, tool: tool.name, definition, packs, command });
    if (rules.exfiltrating?.value === true) {
      const declared = rules.sinkParams.map((sink) => sink.value);
      const shaped = rules.heuristics
        ? // The heuristics' own walk (nested names, `$ref`s), so the sinks shown are the ones it found.
          schemaProperties(definition.inputSchema)
            .map(([name]) => name)
            .filter((n) => isSinkShapedName(n, tool.name))
        : [];
      exfiltrating.push({ tool: tool.name, sinks: [...new Set([...declared, ...shaped])] });
    }
    const writes = rules.writeParams?.value ?? [];
    const prefixes = rules.allowedPathPrefixes?.value ?? [];
    if (writes.length > 0 && prefixes.length === 0) unconfined.push(tool.name);
  }
  return { packs: [...new Set(packs.map((match) => match.pack.name))], exfiltrating, unconfined };
}

/**
 * The fields of a listed tool that rules are resolved from.
 * @param tool - A tool from `tools/list`.
 * @returns Its definition.
 */
function toDefinition(tool: Tool): ToolDefinition {
  return {
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema as JsonObject,
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations as JsonObject }),
  };
}

/**
 * The tools of a wrapped entry's server whose changed or new definitions wait in its pin files (of
 * its name, run in the folder doctor started it in) for review (`bouncer pins list NAME`), after
 * doctor started it: what Bouncer holds back (a changed
 * tool kept at its pinned definition, a new one hidden) and a person should look at.
 *
 * Source: SPEC §5.3 ("see what Bouncer makes of your setup"), §2.2 (pending definitions); review of
 * `bouncer doctor` (it reported such a server as started, with no word of what was held back).
 * @param entry - The config entry.
 * @param where - The environment and working directory it was started with (`BOUNCER_HOME`).
 * @returns Its `--upstream-name` and the tool names (sorted, each once), or undefined for an entry
 *   that is not wrapped, runs with `--pins off`, or whose pins cannot be listed (`pins list` says
 *   why).
 */
export function pendingReview(
  entry: ConfigEntry,
  where: { readonly env: Readonly<Record<string, string | undefined>>; readonly cwd: string },
): { readonly server: string; readonly tools: readonly string[] } | undefined {
  const wrapped = entry.wrapped;
  if (wrapped === undefined || wrapped.pins === "off") return undefined;
  try {
    const { servers } = listPins(bouncerHome(where), wrapped.upstreamName);
    // The identity doctor started: the name run in this folder (the same name elsewhere, another
    // project's, has pins of its own).
    const folders = new Set([where.cwd, realFolder(where.cwd)]);
    const own = servers.filter(({ file }) => folders.has(file.cwd));
    const tools = [...new Set(own.flatMap(({ file }) => file.pending.map((record) => record.name)))];
    return { server: wrapped.upstreamName, tools: tools.sort() };
  } catch {
    return undefined;
  }
}

/**
 * A folder's real path (symbolic links resolved), or the folder as given when it cannot be resolved.
 * @param folder - An absolute folder.
 * @returns Its real path.
 */
function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}
