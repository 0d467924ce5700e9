/**
 * The argument list of a wrapped entry: built by `bouncer init`, recognised again by the second
 * `init` (idempotence), `--undo`, `--check` and `doctor`. Pure.
 *
 * A wrapped entry runs `LAUNCHER [prefixArgs...] run --upstream-name NAME [--policy FILE]... -- COMMAND
 * [ARG]...` (`--upstream-name=NAME` for a name starting with `-`); everything after `--` is the
 * original command line, element for element.
 *
 * Source: SPEC §5.1 (`bouncer run` flags), §5.2 (the wrapped entry).
 * @module
 */

import type { Launcher, WrappedArgs } from "./types.ts";

/** Flags of `bouncer run` that take a value (SPEC §5.1); a wrapped entry uses only these before `--`. */
const RUN_VALUE_FLAGS: ReadonlySet<string> = new Set([
  "--upstream-name",
  "--policy",
  "--config",
  "--audit-log",
  "--record",
  "--pins",
  "--mode",
  "--ask-timeout",
  "--max-asks",
  "--human-min-ms",
  "--unknown-methods",
]);

/**
 * The arguments Bouncer adds in front of the original command: the launcher's prefix, `run`,
 * `--upstream-name NAME` (`--upstream-name=NAME` for a name starting with `-`), one `--policy FILE`
 * per policy, then `--`.
 *
 * Source: SPEC §5.2.
 * @param launcher - How the client starts Bouncer.
 * @param upstream - The server's name in the client config (its `--upstream-name`) and the absolute
 *   policy paths, in order.
 * @returns The arguments before the original command.
 * @example wrapperArgs({ command: "/opt/homebrew/bin/bouncer", prefixArgs: [] }, { name: "fs", policies: [] })
 * // ["run", "--upstream-name", "fs", "--"]
 */
export function wrapperArgs(
  launcher: Launcher,
  upstream: { readonly name: string; readonly policies: readonly string[] },
): string[] {
  const { name, policies } = upstream;
  // A name that looks like a flag (`--mode`, `--`) is joined to its flag, or `run` would read it as one.
  const named = name.startsWith("-") ? [`--upstream-name=${name}`] : ["--upstream-name", name];
  return [
    ...launcher.prefixArgs,
    "run",
    ...named,
    ...policies.flatMap((policy) => ["--policy", policy]),
    "--",
  ];
}

/**
 * Recognises a wrapped entry's arguments: the first `run` followed only by known `bouncer run` flags,
 * including `--upstream-name`, then either `-- COMMAND [ARG]...` (the form `init` writes) or a
 * `--config` flag (the form other wrappers write, upstream in the stash).
 *
 * Source: SPEC §5.1, §5.2 ("wrapped entries are left alone").
 * @param args - An entry's `args`.
 * @returns The split arguments, or undefined when the entry is not wrapped by Bouncer.
 */
export function parseWrappedArgs(args: readonly string[]): WrappedArgs | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== "run") continue;
    const parsed = parseRunFlags(args, i + 1);
    if (parsed !== undefined) return { prefixArgs: args.slice(0, i), ...parsed };
  }
  return undefined;
}

/**
 * Reads `bouncer run` flags from `from` up to `--` (or the end).
 * @param args - An entry's arguments.
 * @param from - Index just after `run`.
 * @returns Everything but the prefix, or undefined when the flags are not Bouncer's.
 */
function parseRunFlags(args: readonly string[], from: number): Omit<WrappedArgs, "prefixArgs"> | undefined {
  let upstreamName: string | undefined;
  let config: string | undefined;
  const policies: string[] = [];
  const modes: { mode?: string; pins?: string } = {};
  let index = from;
  for (; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (arg === "--") break;
    const eq = arg.indexOf("=");
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (!RUN_VALUE_FLAGS.has(flag)) return undefined;
    let value: string | undefined;
    if (eq === -1) {
      index++;
      value = args[index];
    } else {
      value = arg.slice(eq + 1);
    }
    if (value === undefined) return undefined;
    if (flag === "--upstream-name") upstreamName = value;
    else if (flag === "--policy") policies.push(value);
    else if (flag === "--config") config = value;
    else if (flag === "--mode") modes.mode = value;
    else if (flag === "--pins") modes.pins = value;
  }
  if (upstreamName === undefined) return undefined;
  if (index < args.length) {
    const command = args[index + 1];
    if (command === undefined) return undefined;
    const rest = args.slice(index + 2);
    return { upstreamName, policies, ...modes, form: "dash", command, args: rest, dashIndex: index };
  }
  if (config === undefined) return undefined;
  return { upstreamName, policies, ...modes, form: "config", command: "", args: [], dashIndex: -1 };
}

/**
 * Launchers of other tools that MCP configs commonly use: an entry one of them runs is Bouncer's only
 * when its arguments before `run` name Bouncer (`cmd /c bouncer run …`, `bun …/src/cli.ts run …`).
 * A command not in this list (a renamed Bouncer executable, say) is judged by its arguments alone.
 */
const OTHER_RUNNERS: ReadonlySet<string> = new Set([
  "docker",
  "podman",
  "npx",
  "pnpx",
  "pnpm",
  "yarn",
  "bunx",
  "bun",
  "node",
  "deno",
  "uvx",
  "uv",
  "pipx",
  "python",
  "python3",
  "py",
  "java",
  "go",
  "cargo",
  "dotnet",
  "cmd",
  "powershell",
  "pwsh",
  "sh",
  "bash",
  "zsh",
  "env",
  "nix",
]);

/**
 * The executable name of a path or command, lower case, without a Windows extension.
 * @param token - A command or argument.
 * @returns e.g. `bouncer` for `C:\\bin\\bouncer.exe`.
 */
function executableName(token: string): string {
  const last = token.split(/[\\/]/).at(-1) ?? token;
  return last.toLowerCase().replace(/\.(?:exe|cmd|bat|com|ps1)$/, "");
}

/**
 * Whether a command or argument names Bouncer: an executable `bouncer…` (`bouncer`,
 * `bouncer-linux-x64`) or a checkout's `src/cli.ts`.
 * @param token - A command or argument.
 * @returns True when it does.
 */
function namesBouncer(token: string): boolean {
  return executableName(token).startsWith("bouncer") || /(?:^|[\\/])src[\\/]cli\.ts$/.test(token);
}

/**
 * Whether the argument after a `run` reads as `bouncer run`'s: a flag or `--` (`bouncer run` takes
 * nothing else before `--`).
 * @param next - The argument after `run`, if any.
 * @returns True when it does.
 */
function isRunFlag(next: string | undefined): boolean {
  return next?.startsWith("-") === true;
}

/**
 * Whether an entry whose arguments read as `… run --upstream-name NAME …` is started by Bouncer: the
 * command names Bouncer, or an argument before `run` does, or the command is not a known launcher of
 * other tools (`docker run --upstream-name x -- img` is docker's, not a wrapped entry).
 *
 * Source: SPEC §5.2 ("wrapped entries are left alone"; `--undo` restores only Bouncer's).
 * @param command - The entry's command.
 * @param prefixArgs - Its arguments before `run`.
 * @returns True when the entry is taken as Bouncer's.
 */
export function isBouncerLaunch(command: string, prefixArgs: readonly string[]): boolean {
  if (namesBouncer(command) || prefixArgs.some(namesBouncer)) return true;
  return !OTHER_RUNNERS.has(executableName(command));
}

/**
 * Whether an entry that is not wrapped in a form `init` reads still runs Bouncer's `run`: the command
 * or an argument before a `run` names Bouncer, and the argument after that `run` is a flag or `--`
 * (a form written by hand or by another tool: no `--upstream-name`, an unknown flag later,
 * nothing after `--`). Wrapping it again would nest Bouncer in Bouncer.
 *
 * Source: SPEC §5.2.
 * @param command - The entry's command.
 * @param args - Its arguments.
 * @returns True when the command or an argument before `run` names Bouncer.
 */
export function runsBouncer(command: string, args: readonly string[]): boolean {
  // Any `run` (a runtime's own `bun run …` may come first) followed by one of Bouncer's run flags.
  return args.some(
    (arg, run) =>
      arg === "run" &&
      isRunFlag(args[run + 1]) &&
      (namesBouncer(command) || args.slice(0, run).some(namesBouncer)),
  );
}
