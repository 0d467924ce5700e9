/**
 * `bouncer doctor`: for every server entry of the selected client configs — wrapped or not — start
 * it exactly as the client would (through Bouncer when wrapped; a project file found in the working
 * directory only when named with `--config`, as a client asks before starting a project's servers),
 * and report whether it started (or the error with its stderr tail), the time to `initialize`, its tools, the matched pack, its
 * exfiltrating tools and sink arguments, its tools with unconfined paths, and whether the client can
 * answer asks. A progress line goes to stderr while servers start; the report is a table or, with
 * `--json`, one JSON document. Edge.
 *
 * Source: SPEC §5.3.
 * @module
 */

import path from "node:path";
import { errorText, safeName } from "../engine/index.ts";
import { errorLine } from "../platform/errors.ts";
import type { Interrupted } from "../platform/stop-signals.ts";
import { analyzeServer, pendingReview } from "./doctor-analysis.ts";
import { unnamedProjectFiles } from "./doctor-consent.ts";
import { disabledEntries } from "./doctor-disabled.ts";
import { launchServer } from "./doctor-launch.ts";
import { type DoctorRow, renderDoctorJson, renderDoctorTable } from "./doctor-render.ts";
import { LaunchedServers, watchSignals } from "./doctor-servers.ts";
import type { InitEnvironment } from "./init-environment.ts";
import { clientLookupEnv, missingLauncher } from "./launcher-problem.ts";
import { filledValues, secretPlaceholderNames } from "./placeholder-secrets.ts";
import { expandPlaceholders } from "./placeholders.ts";
import { readConfig } from "./plan.ts";
import { secretArgValues } from "./secret-args.ts";
import { isPlaceholder, isSecretName, maskValues } from "./secrets.ts";
import {
  distinctTargets,
  type LoadedTarget,
  loadFailureMessage,
  noConfigMessage,
  resolveTargets,
} from "./targets.ts";
import type { ConfigEntry } from "./types.ts";

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  /** Deadline per server for `initialize` and for listing tools (default 30 s). */
  readonly timeoutMs?: number;
  /** Servers started at once (default 4). */
  readonly concurrency?: number;
}

/** One entry to report on. */
interface Job {
  readonly target: LoadedTarget;
  readonly entry: ConfigEntry;
  /** The key that turns the entry off (`"disabled": true`), when its client would not start it. */
  readonly disabled?: string | undefined;
  /** Why doctor does not start the entry: its file is a project file not named with `--config`. */
  readonly notStarted?: string | undefined;
}

/** What every check is given. */
interface CheckContext {
  readonly environment: InitEnvironment;
  readonly options: DoctorOptions;
  readonly servers: LaunchedServers;
}

/**
 * Runs `bouncer doctor`.
 *
 * Source: SPEC §5.3.
 * @param request - `--config` / `--client` and `--json`.
 * @param environment - Streams, environment, home, platform.
 * @param options - Deadline and concurrency.
 * @returns 0 when every stdio server started (a project file's not started is no failure), 1 when
 *   one did not, 2 when no config is found or one
 *   cannot be read; 130, 143 or 129 after SIGINT, SIGTERM or SIGHUP (the servers stopped, no report).
 */
export async function runDoctor(
  request: { readonly config?: string; readonly client?: string; readonly json: boolean },
  environment: InitEnvironment,
  options: DoctorOptions = {},
): Promise<number> {
  const { io } = environment;
  const set = resolveTargets({ ...request, command: "bouncer doctor" }, environment);
  if (set.targets.length === 0) {
    io.err(noConfigMessage(set));
    if (request.json) io.out(renderDoctorJson([], { error: noConfigMessage(set) }));
    return 2;
  }
  const jobs: Job[] = [];
  // The error lines of the configs that could not be read, also in the `--json` document.
  const unreadable: string[] = [];
  const onTarget = (line: string, failure: boolean): void => {
    io.err(line);
    if (failure) unreadable.push(line);
  };
  const unnamed = unnamedProjectFiles(set.targets, io.cwd);
  // Two paths to one file (`.cursor/mcp.json` a symlink to `.mcp.json`): its servers start once.
  for await (const target of distinctTargets(set.targets, onTarget)) {
    try {
      const config = readConfig(target.read.text, target.client);
      if (config.sections.length === 0 && set.explicit) {
        // As `init` and `init --check` do: a named file with no server section (`"mcpservers"`) is
        // a mistake, not "no servers".
        const line = errorLine(`Cannot use "${target.path}": it has no MCP server section`);
        io.err(line);
        unreadable.push(line);
        continue;
      }
      const disabled = disabledEntries(config);
      const notStarted = unnamed(target);
      for (const entry of config.entries) jobs.push({ target, entry, disabled: disabled(entry), notStarted });
    } catch (error) {
      // The path is the user's, or a client's file name: its control characters are escaped.
      const line = errorLine(loadFailureMessage(error, target.path));
      io.err(line);
      unreadable.push(line);
    }
  }
  const servers = new LaunchedServers();
  const watch = watchSignals(servers);
  let rows: DoctorRow[] | Interrupted;
  try {
    rows = await Promise.race([checkAll(jobs, { environment, options, servers }), watch.signalled]);
  } finally {
    // Every server started, whatever the SDK did with its transport (and at once after a signal).
    await servers.stopAll();
    watch.remove();
  }
  if (!Array.isArray(rows)) {
    // Over the progress line, when it is redrawn in place.
    io.err(
      `${io.color ? "\r\u001b[K" : ""}doctor: stopped by ${rows.signal}: the servers it started are stopped\n`,
    );
    return rows.code;
  }
  // "No MCP servers" after a file could not be read would only repeat the error, less exactly.
  if (request.json) io.out(renderDoctorJson(rows, { errors: unreadable }));
  else if (rows.length > 0 || unreadable.length === 0) io.out(renderDoctorTable(rows));
  if (unreadable.length > 0) return 2;
  return rows.some((row) => row.status === "error") ? 1 : 0;
}

/**
 * Checks every job, a few at a time, with a progress line on stderr.
 * @param jobs - The entries.
 * @param context - Environment and options.
 * @returns One row per job, in config order.
 */
async function checkAll(jobs: readonly Job[], context: CheckContext): Promise<DoctorRow[]> {
  const { io } = context.environment;
  const launchable = jobs.filter(isLaunched).length;
  const rows: DoctorRow[] = new Array(jobs.length);
  let next = 0;
  let done = 0;
  const progress = (row: DoctorRow): void => {
    // After a signal, the "stopped by" line is the last one doctor prints.
    const notTried = row.status === "skipped" || row.status === "disabled" || row.status === "not-started";
    if (notTried || context.servers.stopped) return;
    done++;
    // A server's name is the config's: control characters (an ESC sequence, a line break) shown, as in the table.
    const line = `doctor: [${done}/${launchable}] ${safeName(row.server)}: ${row.status}`;
    io.err(io.color ? `\r\u001b[K${line}${done === launchable ? "\n" : ""}` : `${line}\n`);
  };
  if (launchable > 0) io.err(`doctor: starting ${launchable} server(s)\n`);
  const worker = async (): Promise<void> => {
    for (let index = next++; index < jobs.length; index = next++) {
      // After a signal: nothing more is started.
      if (context.servers.stopped) return;
      const job = jobs[index];
      if (job === undefined) continue;
      const row = await checkEntry(job, context);
      rows[index] = row;
      progress(row);
    }
  };
  const workers = Math.max(1, context.options.concurrency ?? 4);
  await Promise.all(Array.from({ length: Math.min(workers, Math.max(jobs.length, 1)) }, worker));
  return rows;
}

/**
 * Starts (or skips) one entry and analyses its tools.
 * @param job - The entry and its file.
 * @param context - Environment and options.
 * @returns Its row.
 */
async function checkEntry(job: Job, context: CheckContext): Promise<DoctorRow> {
  const { target, entry } = job;
  const { environment } = context;
  const base = {
    client: target.client.title,
    file: target.path,
    server: entry.label,
    wrapped: entry.kind === "wrapped",
    clientAsks: target.client.asks,
  };
  if (job.disabled !== undefined) {
    return { ...base, status: "disabled", detail: `its client does not start it (${job.disabled})` };
  }
  if (entry.kind !== "stdio" && entry.kind !== "wrapped") {
    return { ...base, status: "skipped", detail: entry.reason ?? "not a stdio server" };
  }
  if (job.notStarted !== undefined) return { ...base, status: "not-started", detail: job.notStarted };
  const workspace = workspaceFolder(target.path, environment.io.cwd);
  const expand = (value: string): string => {
    const result = expandPlaceholders(value, {
      client: target.client.kind,
      env: environment.env,
      workspaceFolder: workspace,
      home: environment.home,
    });
    if ("unresolved" in result) throw new Error(`${result.unresolved} can only be filled in by the client`);
    return result.value;
  };
  const secrets = entry.env.map(([, value]) => value).filter((value) => !isPlaceholder(value));
  let spec: Parameters<typeof launchServer>[0];
  // The entry's `env` filled in: its PATH is where the client looks Bouncer's launcher up.
  const filledEnv: [string, string][] = [];
  try {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(environment.env)) if (value !== undefined) env[key] = value;
    for (const [key, value] of entry.env) {
      env[key] = expand(value);
      filledEnv.push([key, env[key]]);
      // A secret kept out of the file as `${VAR}` is as secret once filled in: by the entry's key,
      // the variable's name (`${GH_TOKEN}`) or a credential around it (`Bearer ${T}`, a URL's
      // password): the whole value and each variable's own value, which a server may print alone.
      const names = secretPlaceholderNames(value, { all: isSecretName(key) });
      if (env[key] !== value && (isSecretName(key) || names.length > 0)) {
        // Under a secret-named key every variable counts; otherwise only the secret ones.
        secrets.push(env[key], ...filledValues(names, environment.env));
      }
      secrets.push(...secretArgValues([env[key]]));
    }
    const cwd = entry.cwd === undefined ? workspace : path.resolve(workspace, expand(entry.cwd));
    const args = (entry.args ?? []).map(expand);
    secrets.push(...secretArgValues(args, { command: expand(entry.command ?? "") }));
    // A whole command line written as `command` (`npx pkg --password=…`): its words are arguments too.
    secrets.push(...secretArgValues(expand(entry.command ?? "").split(/\s+/)));
    for (const arg of entry.args ?? []) {
      secrets.push(...filledValues(secretPlaceholderNames(arg), environment.env));
    }
    spec = { command: expand(entry.command ?? ""), args, env, cwd, wrapped: entry.kind === "wrapped" };
  } catch (error) {
    return { ...base, status: "skipped", detail: maskValues(String((error as Error).message), secrets) };
  }
  // Bouncer's own launcher gone (not the upstream): named as such, with the fix.
  const prefixArgs = spec.args.slice(0, entry.wrapped?.prefixArgs.length ?? 0);
  const missing =
    spec.wrapped === true
      ? missingLauncher(
          { command: spec.command, prefixArgs },
          { platform: environment.platform, env: clientLookupEnv(environment, filledEnv) },
        )
      : undefined;
  if (missing !== undefined) {
    return { ...base, status: "error", detail: maskValues(`Cannot start Bouncer: ${missing}`, secrets) };
  }
  const result = await launchServer(spec, {
    timeoutMs: context.options.timeoutMs ?? 30_000,
    track: (transport) => context.servers.track(transport),
  });
  const stderrTail = maskValues(result.stderrTail, secrets);
  if (result.status === "error" || result.tools === undefined) {
    return {
      ...base,
      status: "error",
      detail: maskValues(result.error ?? "did not start", secrets),
      stderrTail,
    };
  }
  const started = {
    ...base,
    status: "started" as const,
    tools: result.tools.length,
    ...(result.initializeMs === undefined ? {} : { initializeMs: result.initializeMs }),
    ...(result.serverInfo === undefined ? {} : { serverInfo: result.serverInfo }),
    ...(result.defect === undefined ? {} : { defect: result.defect }),
    ...reviewField(pendingReview(entry, spec)),
  };
  try {
    const facts = {
      tools: result.tools,
      cwd: spec.cwd,
      ...(result.serverInfo ? { serverInfoName: result.serverInfo.name } : {}),
    };
    return { ...started, analysis: await analyzeServer(entry, facts) };
  } catch (error) {
    return { ...started, analysisError: errorText(error) };
  }
}

/**
 * Whether doctor starts a job's server: a stdio or wrapped entry its client does not leave off, of a
 * file it may start (not a project file left unnamed).
 * @param job - The job.
 * @returns True when it is launched.
 */
function isLaunched(job: Job): boolean {
  const stdio = job.entry.kind === "stdio" || job.entry.kind === "wrapped";
  return stdio && job.disabled === undefined && job.notStarted === undefined;
}

/**
 * The project folder of a config file (what `${workspaceFolder}` and relative paths mean): the folder
 * holding `.vscode/`, `.cursor/`, `.zed/`, `.gemini/`, `.codex/` or `.mcp.json`; else the working
 * directory.
 * @param file - The config file.
 * @param cwd - The working directory.
 * @returns The folder.
 */
function workspaceFolder(file: string, cwd: string): string {
  const dir = path.dirname(file);
  if ([".vscode", ".cursor", ".zed", ".gemini", ".codex"].includes(path.basename(dir)))
    return path.dirname(dir);
  if (path.basename(file) === ".mcp.json") return dir;
  return cwd;
}

/**
 * The row's `pending` member: the tools Bouncer holds back until reviewed, when there are some.
 *
 * Source: SPEC §5.3, §2.2 (pending definitions).
 * @param pending - The server's tools waiting for review, if known.
 * @returns A spreadable `{ pending }` when there are some, or nothing.
 */
function reviewField(pending: DoctorRow["pending"]): Pick<DoctorRow, "pending"> {
  return pending === undefined || pending.tools.length === 0 ? {} : { pending };
}
