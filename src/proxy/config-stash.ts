/**
 * `bouncer run --config CLIENT_CONFIG --upstream-name NAME`: reads the upstream (command, args, cwd —
 * never env) from that server's `x-bouncer-upstream` stash in a client config, JSON/JSONC (with
 * `jsonc-parser`) or TOML (with `smol-toml`). Server sections searched: `mcpServers`, `servers`,
 * `mcp.servers`, `context_servers`, `mcp_servers`, and `projects.<dir>.mcpServers` (the project of the
 * working directory first). Edge.
 *
 * Source: SPEC §5.1 (second form), §5.2 (the stash), field case F15 (cwd).
 * @module
 */

import { extname, isAbsolute, resolve } from "node:path";
import { type ParseError, parse as parseJsonc, printParseErrorCode } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { BouncerError } from "../platform/errors.ts";
import { describeReadError } from "../platform/fs-error-text.ts";
import { readRegularTextFile } from "../platform/regular-file.ts";
import type { UpstreamLaunch } from "./run-args.ts";

/** The stash key: written by `bouncer init` (SPEC §5.2) and other wrappers, read here (§5.1). */
export const STASH_KEY = "x-bouncer-upstream";

/** Top-level keys holding server maps. */
const SECTIONS: readonly (readonly string[])[] = [
  ["mcpServers"],
  ["servers"],
  ["mcp", "servers"],
  ["context_servers"],
  ["mcp_servers"],
];

/**
 * An own property of a plain object (keys are hostile, STYLE #6).
 * @param value - Anything.
 * @param key - The key.
 * @returns The property, or undefined.
 */
function own(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return Object.hasOwn(value, key) ? Reflect.get(value, key) : undefined;
}

/**
 * Parses a config file's text.
 * @param file - The path (for messages and the format).
 * @param text - Its contents.
 * @returns The parsed document.
 * @throws {BouncerError} `CONFIG_INVALID` with line:column.
 */
function parseConfig(file: string, text: string): unknown {
  if (extname(file).toLowerCase() === ".toml") {
    try {
      return parseToml(text);
    } catch (error) {
      const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new BouncerError("CONFIG_INVALID", `Cannot read client config "${file}": ${detail}`, {
        cause: error,
      });
    }
  }
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    const before = text.slice(0, first.offset);
    const line = before.split("\n").length;
    const column = first.offset - before.lastIndexOf("\n");
    throw new BouncerError(
      "CONFIG_INVALID",
      `Cannot read client config "${file}": line ${line}:${column}: ${printParseErrorCode(first.error)}`,
    );
  }
  return value;
}

/**
 * The server entries named `name`, in search order.
 * @param document - The parsed config.
 * @param options - The server name and the working directory (for `projects`).
 * @returns The entries found.
 */
function findEntries(document: unknown, options: { readonly name: string; readonly cwd: string }): unknown[] {
  const found: unknown[] = [];
  const projects = own(document, "projects");
  const project = own(projects, options.cwd);
  const fromProject = own(own(project, "mcpServers"), options.name);
  if (fromProject !== undefined) found.push(fromProject);
  for (const path of SECTIONS) {
    let section: unknown = document;
    for (const key of path) section = own(section, key);
    const entry = own(section, options.name);
    if (entry !== undefined) found.push(entry);
  }
  if (typeof projects === "object" && projects !== null) {
    for (const key of Object.keys(projects)) {
      const entry = own(own(own(projects, key), "mcpServers"), options.name);
      if (entry !== undefined && !found.includes(entry)) found.push(entry);
    }
  }
  return found;
}

/**
 * Reads the upstream of server `name` from a client config's stash.
 *
 * Source: SPEC §5.1, §5.2, F15 (a relative or absent stash `cwd` means Bouncer's own cwd).
 * @param file - The client config path (relative to `cwd`).
 * @param options - The server name and Bouncer's working directory.
 * @returns The upstream to launch.
 * @throws {BouncerError} `CONFIG_UNREADABLE` (I/O), `CONFIG_INVALID` (parse error, no such server, no or
 *   malformed stash).
 */
export function readUpstreamStash(
  file: string,
  options: { readonly name: string; readonly cwd: string },
): UpstreamLaunch {
  const path = resolve(options.cwd, file);
  let text: string;
  try {
    text = readRegularTextFile(path); // a FIFO is refused, not waited on
  } catch (error) {
    throw new BouncerError(
      "CONFIG_UNREADABLE",
      `Cannot read client config "${file}": ${describeReadError(error)}`,
      {
        cause: error,
      },
    );
  }
  const entries = findEntries(parseConfig(file, text), options);
  if (entries.length === 0) {
    throw new BouncerError(
      "CONFIG_INVALID",
      `Cannot run server "${options.name}": client config "${file}" has no such server`,
    );
  }
  const stashed = entries.find((entry) => own(entry, STASH_KEY) !== undefined);
  const stash = stashed === undefined ? undefined : own(stashed, STASH_KEY);
  if (stash === undefined) {
    throw new BouncerError(
      "CONFIG_INVALID",
      `Cannot run server "${options.name}": client config "${file}" has no "${STASH_KEY}" for it: give the command after "--" instead`,
    );
  }
  const command = own(stash, "command");
  const args = own(stash, "args") ?? [];
  const cwd = own(stash, "cwd");
  const argsOk = Array.isArray(args) && args.every((arg) => typeof arg === "string");
  if (
    typeof command !== "string" ||
    command === "" ||
    !argsOk ||
    (cwd !== undefined && typeof cwd !== "string")
  ) {
    throw new BouncerError(
      "CONFIG_INVALID",
      `Cannot run server "${options.name}": "${STASH_KEY}" in "${file}" must hold a "command" string, an "args" list of strings and an optional "cwd" string`,
    );
  }
  return {
    command,
    args: args as string[],
    cwd: typeof cwd === "string" && isAbsolute(cwd) ? cwd : options.cwd,
    source: "config",
    entryPolicies: policyFlags(own(stashed, "args")),
  };
}

/**
 * The `--policy` values of a wrapped entry's own arguments (`run --policy FILE --upstream-name fs --
 * …`), up to `--`; both `--policy FILE` and `--policy=FILE`.
 * @param args - The entry's `args` (any JSON).
 * @returns The files as written, in order; none when `args` is no list of strings.
 */
function policyFlags(args: unknown): string[] {
  if (!Array.isArray(args)) return [];
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg: unknown = args[i];
    if (typeof arg !== "string" || arg === "--") break;
    if (arg.startsWith("--policy=")) files.push(arg.slice("--policy=".length));
    else if (arg === "--policy" && typeof args[i + 1] === "string") files.push(args[++i] as string);
  }
  return files;
}
