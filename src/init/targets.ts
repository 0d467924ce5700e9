/**
 * Which config files a run of `init` or `doctor` works on: the one named by `--config`, every file
 * of the client named by `--client`, or every client file found. Also reads one target and
 * recognises its client. Edge.
 *
 * Source: SPEC §5.2 ("`--client` means all of that client's files; `--config` names one file (format
 * recognised from content and name); neither means every client file found, listed before anything is
 * written"), §5.3.
 * @module
 */

import path from "node:path";
import { escapeControls } from "../engine/index.ts";
import { BouncerError, errorLine, isBouncerError } from "../platform/errors.ts";
import { candidateFiles, findClientFiles } from "./client-files.ts";
import { CLIENTS, type ClientInfo, clientByName, detectClient } from "./client-table.ts";
import { isConfigSyntaxError } from "./config-syntax-error.ts";
import type { InitEnvironment } from "./init-environment.ts";
import { pathFor } from "./launcher.ts";
import { type ConfigFileRead, readConfigFile } from "./write-config.ts";

/** A file to work on; `client` is unknown until a `--config` file has been read. */
export interface Target {
  readonly path: string;
  readonly client?: ClientInfo;
  /** Where discovery found it (`project`: the working directory); undefined for `--config FILE`. */
  readonly scope?: "project" | "user";
}

/** The targets of a run and whether the user named the file. */
export interface TargetSet {
  readonly targets: readonly Target[];
  /** True for `--config FILE`: problems with the file are usage errors (exit 2). */
  readonly explicit: boolean;
  /**
   * With no file found (and no `--config`): where discovery looked, for the message — the client
   * named by `--client` (none: every client), the working directory and home, and each file looked
   * for with its scope.
   */
  readonly searched?: {
    readonly client?: string;
    readonly cwd: string;
    readonly home: string;
    readonly platform: NodeJS.Platform;
    readonly files: readonly { readonly path: string; readonly scope: "project" | "user" }[];
  };
}

/** A target read from disk, its client known. */
export interface LoadedTarget {
  readonly path: string;
  readonly client: ClientInfo;
  readonly read: ConfigFileRead;
  /** As {@link Target.scope}. */
  readonly scope?: "project" | "user";
}

/**
 * Resolves `--config` / `--client` / neither into files.
 *
 * Source: SPEC §5.2.
 * @param request - The flags (`command` names the command for messages).
 * @param environment - Working directory, home, platform, environment, probes.
 * @returns The targets (possibly none).
 * @throws {BouncerError} `USAGE` for both flags at once or an unknown client name.
 */
export function resolveTargets(
  request: { readonly config?: string; readonly client?: string; readonly command: string },
  environment: InitEnvironment,
): TargetSet {
  if (request.config !== undefined && request.client !== undefined) {
    throw new BouncerError("USAGE", `Cannot run "${request.command}": give --config or --client, not both`);
  }
  if (request.config !== undefined) {
    return { targets: [{ path: path.resolve(environment.io.cwd, request.config) }], explicit: true };
  }
  let clients: readonly ClientInfo[] = CLIENTS;
  if (request.client !== undefined) {
    const client = clientByName(request.client);
    if (client === undefined) {
      const known = CLIENTS.map((info) => info.kind).join(", ");
      throw new BouncerError("USAGE", `Unknown client "${request.client}": expected one of ${known}`);
    }
    clients = [client];
  }
  const context = {
    home: environment.home,
    platform: environment.platform,
    env: environment.env,
    cwd: environment.io.cwd,
  };
  const files = findClientFiles(context, { clients, ...environment.probes });
  const targets = files.map((file) => ({ path: file.path, client: file.client, scope: file.scope }));
  if (targets.length > 0) return { targets, explicit: false };
  const searched = {
    ...(request.client === undefined ? {} : { client: request.client }),
    cwd: context.cwd,
    home: context.home,
    platform: context.platform,
    files: candidateFiles(context, clients).map((file) => ({ path: file.path, scope: file.scope })),
  };
  return { targets, explicit: false, searched };
}

/**
 * The message for a run that found no config file. With `--client`, it names the client and the
 * files looked for; without, the project files looked for in the working directory (relative to
 * it) and the user's files of every client (under `~`).
 *
 * Source: SPEC §5.2, §5.3.
 * @param set - The (empty) targets.
 * @returns One line, ending in a newline.
 */
export function noConfigMessage(set: TargetSet): string {
  const searched = set.searched;
  if (searched === undefined) return "bouncer: No MCP client config found: name one with --config FILE\n";
  if (searched.client !== undefined) {
    const files = searched.files.map((file) => file.path);
    return safeLine(
      `bouncer: No config of client "${searched.client}" found (looked for ${files.join(", ")}): name one with --config FILE`,
    );
  }
  const p = pathFor(searched.platform);
  const project = searched.files
    .filter((file) => file.scope === "project")
    .map((file) => p.relative(searched.cwd, file.path));
  const user = searched.files
    .filter((file) => file.scope === "user")
    .map((file) => underHome(file.path, searched.home, p));
  return safeLine(
    `bouncer: No MCP client config found (looked in the current folder ${searched.cwd} for ${project.join(", ")}, and for the user's configs ${user.join(", ")}): name one with --config FILE`,
  );
}

/**
 * A path under the home directory written from `~`, any other path as it is.
 *
 * @param file - An absolute path.
 * @param home - The home directory.
 * @param p - The platform's path functions.
 * @returns `~/…` (`~\…` on Windows) or `file`.
 */
function underHome(file: string, home: string, p: ReturnType<typeof pathFor>): string {
  const relative = p.relative(home, file);
  if (relative === "" || relative.startsWith("..") || p.isAbsolute(relative)) return file;
  return `~${p.sep}${relative}`;
}

/**
 * Reads a target and recognises its client (from name and content for `--config` files).
 *
 * Source: SPEC §5.2.
 * @param target - The file.
 * @returns The file as read, with its client.
 * @throws {BouncerError} From {@link readConfigFile}.
 */
async function loadTarget(target: Target): Promise<LoadedTarget> {
  const read = await readConfigFile(target.path);
  const client = target.client ?? detectClient(target.path, read.text);
  return { path: target.path, client, read, ...(target.scope === undefined ? {} : { scope: target.scope }) };
}

/**
 * The list of files printed before anything is written.
 *
 * Source: SPEC §5.2.
 * @param targets - The files found (with their clients).
 * @returns One line per file: client title and path.
 */
export function describeTargets(targets: readonly Target[]): string {
  const title = (target: Target): string => target.client?.title ?? "MCP client";
  const width = Math.max(...targets.map((target) => title(target).length), 0);
  return targets.map((target) => safeLine(`  ${title(target).padEnd(width)}  ${target.path}`)).join("");
}

/**
 * A line of `init`'s output that quotes a config (a path, a server name, a message about an entry),
 * with every control and invisible character escaped — a line feed too, so a name cannot print a
 * line of its own. The one helper of `init` and `init --check` for such lines (error lines use
 * `errorLine`, which escapes the same way).
 *
 * Source: README ("Everything `init` prints from a config ... has its control and invisible
 * characters escaped").
 * @param text - The line's text, without its line feed.
 * @returns The escaped line, ending in a line feed.
 */
export function safeLine(text: string): string {
  return `${escapeControls(text)}\n`;
}

/**
 * Loads each client config found, once per file: a second path to a file already loaded (a
 * symlink, `.cursor/mcp.json` → the Windsurf file) is skipped with a note, so the file is planned,
 * written, checked or started once. A file that cannot be read or parsed is reported and skipped.
 * The one loop of `init`, `init --check` and `doctor` over their targets (SPEC §5.2).
 *
 * Source: SPEC §5.2.
 * @param targets - The files found, in order.
 * @param report - Gets each line to print (control characters escaped, ending in a line feed) and
 *   whether it is a failure (an unreadable file) rather than a note (a second path).
 * @returns The loaded files, in order, each file once.
 * @throws What {@link loadFailureMessage} throws: an error that is not bad input (a bug).
 */
export async function* distinctTargets(
  targets: readonly Target[],
  report: (line: string, failure: boolean) => void,
): AsyncGenerator<LoadedTarget> {
  const seen = new Map<string, string>();
  for (const candidate of targets) {
    let target: LoadedTarget;
    try {
      target = await loadTarget(candidate);
    } catch (error) {
      report(errorLine(loadFailureMessage(error, candidate.path)), true);
      continue;
    }
    const first = seen.get(target.read.realPath);
    if (first !== undefined) {
      report(safeLine(`${target.path}: the same file as ${first}, skipped`), false);
      continue;
    }
    seen.set(target.read.realPath, target.path);
    yield target;
  }
}

/**
 * The one-line message for a client config that could not be loaded or parsed, for every command that
 * walks client files (init, init --check, doctor).
 * @param error - What loading or parsing threw.
 * @param file - The config file's path.
 * @returns The message (without the `bouncer: ` prefix), e.g. `Cannot read client config "x.json": line 3, column 5: …`.
 * @throws The error itself when it is neither a config syntax error nor a BouncerError (a bug, not bad input).
 */
export function loadFailureMessage(error: unknown, file: string): string {
  if (isConfigSyntaxError(error)) return `Cannot read client config "${file}": ${error.message}`;
  if (isBouncerError(error)) return error.message;
  throw error;
}

/**
 * The line for `--server` names no selected config holds (a mistake, not "nothing to do"), control
 * characters of the names escaped (a line feed too).
 *
 * Source: SPEC §5.2.
 * @param missing - The names not found (at least one).
 * @param tail - What follows the sentence, e.g. `: nothing written` (default none).
 * @returns The line, ending in a line feed.
 */
export function noServerNamedMessage(missing: readonly string[], tail = ""): string {
  return safeLine(`bouncer: No server named "${missing.join('", "')}" in the selected configs${tail}`);
}
