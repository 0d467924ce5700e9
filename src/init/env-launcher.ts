/**
 * A launcher behind `env` (`/usr/bin/env bouncer run …`, as a hand-written or older wrapper has it):
 * `env` itself is always there, so whether Bouncer can start depends on the program it runs, looked
 * up on PATH (or the `PATH=…` assignment before it). Pure.
 *
 * Source: SPEC §5.2 (`--check` lists "a launcher that no longer exists"); the review of
 * `/usr/bin/env bouncer` reported as wrapped with no `bouncer` on PATH.
 * @module
 */

import type { Launcher } from "./types.ts";

/** `env` options that take the next argument as their value (GNU and BSD `env`). */
const VALUE_OPTIONS: ReadonlySet<string> = new Set(["-u", "--unset", "-C", "--chdir", "-P"]);

/** A launcher `env` runs, and the PATH `env` searches for it when the arguments set one. */
export interface EnvLaunch {
  /** The program `env` runs and its arguments before `run`. */
  readonly launcher: Launcher;
  /** The value of a `PATH=…` assignment before the program, if any. */
  readonly path?: string;
}

/**
 * The program an `env` launcher runs: `env [OPTION]... [NAME=VALUE]... PROGRAM [ARG]...`.
 *
 * Source: SPEC §5.2.
 * @param launcher - A wrapped entry's command and its arguments before `run`.
 * @returns The program and its arguments (and a `PATH=` given to `env`), or undefined when the command
 *   is not `env`, names no program, or splits a string (`-S`: the program is inside it, not judged).
 * @example throughEnv({ command: "/usr/bin/env", prefixArgs: ["bouncer"] })
 * // { launcher: { command: "bouncer", prefixArgs: [] } }
 */
export function throughEnv(launcher: Launcher): EnvLaunch | undefined {
  const base = (launcher.command.split(/[\\/]/).at(-1) ?? "").toLowerCase().replace(/\.exe$/, "");
  if (base !== "env") return undefined;
  const args = launcher.prefixArgs;
  let path: string | undefined;
  let index = 0;
  let options = true;
  for (; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (options && arg === "--") {
      options = false;
    } else if (options && (arg === "-S" || arg.startsWith("-S") || arg.startsWith("--split-string"))) {
      return undefined;
    } else if (options && arg.startsWith("-") && arg !== "-") {
      if (VALUE_OPTIONS.has(arg)) index++;
    } else if (options && arg === "-") {
      // `env -`: an empty environment, as `-i`.
    } else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      if (arg.startsWith("PATH=")) path = arg.slice("PATH=".length);
    } else {
      break;
    }
  }
  const command = args[index];
  if (command === undefined) return undefined;
  const found = { command, prefixArgs: args.slice(index + 1) };
  return path === undefined ? { launcher: found } : { launcher: found, path };
}
