/**
 * `bouncer init --check`: lists the stdio entries that are not wrapped, the ones that lost their
 * wrapping (a stash is left but the client rewrote the command — field case F13), wrapped entries
 * whose launcher no longer exists (also the program `/usr/bin/env` runs) or would let Bun read the
 * project's `.env` (a script run by a runtime, an older from-source launcher), whose stash disagrees
 * with the command after `--` (`--undo` would refuse), or whose `--policy` file is missing or
 * invalid (the server would not start), and wrapped entries that enforce nothing (`--mode audit`,
 * `--pins off`). Exit 1 if any, 0 if none, 2 when no config is found or one cannot be read — and then
 * it never says that every server is wrapped. Writes nothing. Edge.
 *
 * Source: SPEC §5.2 ("`--check` lists unwrapped or no-longer-wrapped entries and a launcher that no
 * longer exists, exit 1 if any"), §3.8 (audit mode forwards everything).
 * @module
 */

import path from "node:path";
import { checkPolicyPaths, formatIssueLine } from "../commands/policy-files.ts";
import { escapeControls, shellWord } from "../engine/index.ts";
import { errorLine, isBouncerError } from "../platform/errors.ts";
import type { InitEnvironment } from "./init-environment.ts";
import { launcherProblem } from "./launcher-problem.ts";
import { readConfig, stashDisagrees } from "./plan.ts";
import {
  distinctTargets,
  loadFailureMessage,
  noConfigMessage,
  noServerNamedMessage,
  resolveTargets,
} from "./targets.ts";
import type { ConfigEntry } from "./types.ts";

/** One line of the check's report. */
export interface CheckRow {
  readonly file: string;
  readonly server: string;
  readonly status:
    | "wrapped"
    | "wrapped, not enforcing"
    | "not wrapped"
    | "lost its wrapping"
    | "wrapping unreadable"
    | "stash disagrees"
    | "launcher missing"
    | "launcher unsafe"
    | "policy unreadable"
    | "policy invalid"
    | "skipped";
  readonly detail: string;
  /** Whether this row makes the check fail. */
  readonly problem: boolean;
}

/**
 * Runs `bouncer init --check`.
 *
 * Source: SPEC §5.2.
 * @param request - `--config` / `--client` and an optional `--server` selection.
 * @param environment - Streams, environment, platform.
 * @returns 0 when every stdio entry is wrapped, enforcing, with a working launcher and valid policy
 *   files; 1 otherwise; 2 when no config is found, one cannot be read, or a `--server` name is in
 *   none of them.
 */
export async function runCheck(
  request: { readonly config?: string; readonly client?: string; readonly servers: readonly string[] },
  environment: InitEnvironment,
): Promise<number> {
  const { io } = environment;
  const set = resolveTargets({ ...request, command: "bouncer init --check" }, environment);
  if (set.targets.length === 0) {
    io.err(noConfigMessage(set));
    return 2;
  }
  const rows: CheckRow[] = [];
  const policies = new Map<string, Promise<PolicyProblem | undefined>>();
  const seen = new Set<string>();
  let unreadable = false;
  const onTarget = (line: string, failure: boolean): void => {
    io.err(line);
    if (failure) unreadable = true;
  };
  // Two paths to one file (a symlink): its entries are listed once, as `init` plans them once.
  for await (const target of distinctTargets(set.targets, onTarget)) {
    try {
      const config = readConfig(target.read.text, target.client);
      for (const entry of config.entries) seen.add(entry.name);
      if (config.sections.length === 0 && set.explicit) {
        io.err(errorLine(`Cannot use "${target.path}": it has no MCP server section`));
        unreadable = true;
      }
      for (const entry of config.entries) {
        if (request.servers.length > 0 && !request.servers.includes(entry.name)) continue;
        const row = checkEntry(target.path, entry, environment);
        const policy = row.status.startsWith("launcher ") ? undefined : entryPolicy(entry, io.cwd, policies);
        const problem = await policy;
        rows.push(problem === undefined ? row : { ...row, ...problem, problem: true });
      }
    } catch (error) {
      io.err(errorLine(loadFailureMessage(error, target.path)));
      unreadable = true;
    }
  }
  const missing = request.servers.filter((name) => !seen.has(name));
  if (missing.length > 0 && !unreadable) {
    // As `init` does: a --server name no config holds is a mistake, not "everything is wrapped".
    io.err(noServerNamedMessage(missing));
    return 2;
  }
  if (rows.length === 0 && !unreadable) {
    // Not "Every stdio server is wrapped" over an empty table: nothing was checked.
    io.err("No MCP servers in the selected configs: nothing to check\n");
    return 0;
  }
  if (rows.length > 0) io.out(renderRows(rows));
  const problems = rows.filter((row) => row.problem).length;
  if (problems > 0) {
    const unwrapped = rows.some(
      (row) =>
        row.status === "lost its wrapping" ||
        (row.status === "not wrapped" && !row.detail.startsWith("cannot be wrapped")),
    );
    io.err(`${problems} server(s) need attention${unwrapped ? `: run ${initCommandFor(request)}` : ""}\n`);
  }
  if (unreadable) {
    io.err("bouncer: Check incomplete: a client config could not be read\n");
    return 2;
  }
  if (problems === 0)
    // Not "every stdio server is wrapped" when there was none: only remote (or unwrappable) entries.
    io.err(
      rows.some((row) => row.status !== "skipped")
        ? "Every stdio server is wrapped\n"
        : "No stdio servers in the selected configs (skipped entries are not wrapped by Bouncer)\n",
    );
  return problems > 0 ? 1 : 0;
}

/**
 * Checks one entry.
 *
 * Source: SPEC §5.2.
 * @param file - Its config file.
 * @param entry - The entry.
 * @param environment - PATH and platform for the launcher check.
 * @returns Its row.
 */
export function checkEntry(
  file: string,
  entry: ConfigEntry,
  environment: Pick<InitEnvironment, "env" | "platform">,
): CheckRow {
  const base = { file, server: entry.label };
  switch (entry.kind) {
    case "wrapped": {
      const problem = launcherProblem(entry, environment);
      if (problem !== undefined) {
        const status = problem.kind === "missing" ? "launcher missing" : "launcher unsafe";
        return { ...base, status, detail: problem.message, problem: true };
      }
      if (stashDisagrees(entry)) {
        const detail = `the command after "--" (what the client runs) disagrees with x-bouncer-upstream, so bouncer init --undo refuses it: make them agree by hand`;
        return { ...base, status: "stash disagrees", detail, problem: true };
      }
      const lax = notEnforcing(entry);
      if (lax !== undefined) return { ...base, status: "wrapped, not enforcing", detail: lax, problem: true };
      return {
        ...base,
        status: "wrapped",
        detail: `as "${entry.wrapped?.upstreamName ?? entry.name}"`,
        problem: false,
      };
    }
    case "stdio":
      return entry.stash !== undefined || entry.stashInvalid === true
        ? {
            ...base,
            status: "lost its wrapping",
            detail: "x-bouncer-upstream is present but the command is not Bouncer",
            problem: true,
          }
        : { ...base, status: "not wrapped", detail: "calls reach the server unchecked", problem: true };
    default:
      if (entry.unwrappable === true) {
        // It runs unchecked, and `init` cannot change that until the entry is fixed by hand.
        const detail = `cannot be wrapped: ${entry.reason ?? "unknown reason"}`;
        return { ...base, status: "not wrapped", detail, problem: true };
      }
      if (entry.runsBouncer === true) {
        // `bouncer run` refuses flags it does not know and needs a name and a command: check it.
        return { ...base, status: "wrapping unreadable", detail: entry.reason ?? "", problem: true };
      }
      return { ...base, status: "skipped", detail: entry.reason ?? "not a stdio server", problem: false };
  }
}

/** Why an entry's `--policy` files would stop `bouncer run` from starting. */
interface PolicyProblem {
  readonly status: "policy unreadable" | "policy invalid";
  readonly detail: string;
}

/**
 * Validates the `--policy` files a wrapped entry names, the way `bouncer run` will: a file that cannot
 * be read or does not validate stops the server at start-up. Relative names resolve against the
 * entry's `cwd`, else the working directory. Each distinct list of files is checked once.
 *
 * Source: SPEC §4.2 (strict validation), §5.2.
 * @param entry - A config entry (only wrapped entries name policies).
 * @param cwd - The working directory.
 * @param cache - Results by list of files.
 * @returns The problem, or undefined when there are no policy files or they are valid.
 */
function entryPolicy(
  entry: ConfigEntry,
  cwd: string,
  cache: Map<string, Promise<PolicyProblem | undefined>>,
): Promise<PolicyProblem | undefined> | undefined {
  const files = entry.wrapped?.policies ?? [];
  if (files.length === 0) return undefined;
  const base = entry.cwd !== undefined && path.isAbsolute(entry.cwd) ? entry.cwd : cwd;
  const key = JSON.stringify([base, files]);
  const known = cache.get(key);
  if (known !== undefined) return known;
  const checked = checkPolicyPaths(files, { cwd: base }).then(
    (result): PolicyProblem | undefined => {
      if (result.ok) return undefined;
      const [first, ...rest] = result.issues;
      const more = rest.length === 0 ? "" : ` (and ${rest.length} more)`;
      return { status: "policy invalid", detail: `${formatIssueLine(first)}${more}` };
    },
    (error: unknown): PolicyProblem => {
      if (!isBouncerError(error)) throw error;
      return { status: "policy unreadable", detail: error.message };
    },
  );
  cache.set(key, checked);
  return checked;
}

/**
 * Why a wrapped entry lets calls through unchecked: `--mode audit` forwards every call and only logs
 * the verdict (SPEC §3.8); `--pins off` turns the rug-pull guard off (SPEC §2.2).
 * @param entry - A wrapped entry.
 * @returns The flags and what they do, or undefined when the entry enforces.
 */
function notEnforcing(entry: ConfigEntry): string | undefined {
  const flags: string[] = [];
  const effects: string[] = [];
  if (entry.wrapped?.mode === "audit") {
    flags.push("--mode audit");
    effects.push("every call is forwarded and only logged");
  }
  if (entry.wrapped?.pins === "off") {
    flags.push("--pins off");
    effects.push("tool definitions are not pinned");
  }
  return flags.length === 0 ? undefined : `(${flags.join(", ")}) ${effects.join("; ")}`;
}

/**
 * The report as a table.
 * @param rows - The rows.
 * @returns Aligned text, one line per row after a header.
 */
function renderRows(rows: readonly CheckRow[]): string {
  const table = [
    ["STATUS", "SERVER", "FILE", "DETAIL"],
    ...rows.map((r) => [r.status, r.server, r.file, r.detail]),
  ];
  // Server names and details come from config files: escaped before printing.
  for (const row of table) for (const [i, cell] of row.entries()) row[i] = escapeControls(cell);
  const widths = [0, 1, 2].map((column) =>
    table.reduce((widest, row) => Math.max(widest, (row[column] ?? "").length), 0),
  );
  return table
    .map((row) =>
      row
        .map((cell, i) => (i < 3 ? cell.padEnd(widths[i] ?? 0) : cell))
        .join("  ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}

/**
 * The `bouncer init` command that wraps what `--check` looked at: the same `--config` or `--client`
 * and `--server` names, each flag and value one shell word (`--server='my server'`); when one
 * cannot be written as one (control or non-ASCII characters), the command says to give the same
 * flags.
 *
 * Source: review of the README walk-through (the advice dropped the filters given).
 * @param request - The check's `--config`, `--client` and `--server` values.
 * @returns E.g. `bouncer init --config=.mcp.json --server=fs`.
 */
function initCommandFor(request: {
  readonly config?: string;
  readonly client?: string;
  readonly servers: readonly string[];
}): string {
  const flags = [
    ...(request.config === undefined ? [] : [`--config=${request.config}`]),
    ...(request.client === undefined ? [] : [`--client=${request.client}`]),
    ...request.servers.map((name) => `--server=${name}`),
  ];
  const words = flags.map((flag) => shellWord(flag));
  if (words.some((word) => word === undefined))
    return "bouncer init with the same --config, --client and --server";
  return ["bouncer", "init", ...words].join(" ");
}
