/**
 * Whether an already wrapped entry's launcher can still start Bouncer (`init --check`, `init`'s
 * warning, `doctor`): its command exists and is executable (on the PATH its client starts it with,
 * or the program `env` runs in
 * `/usr/bin/env bouncer`), its launcher script is there, and it is not a launcher that lets Bun read
 * the project folder's `.env` and `bunfig.toml` (an `npm link` script, an older from-source
 * launcher). Edge (reads the file system).
 *
 * Source: SPEC §5.2 (`--check` lists "a launcher that no longer exists").
 * @module
 */

import { existsSync } from "node:fs";
import { type EnvLaunch, throughEnv } from "./env-launcher.ts";
import { findExecutable, type LauncherContext, pathFor } from "./launcher.ts";
import { scriptRuntime } from "./script-runtime.ts";
import type { ConfigEntry, Launcher } from "./types.ts";

/** Why a wrapped entry's launcher cannot start Bouncer (`missing`) or should not (`unsafe`). */
export interface LauncherProblem {
  readonly kind: "missing" | "unsafe";
  /** What is wrong and what to run, one line. */
  readonly message: string;
}

/**
 * Why a wrapped entry's launcher can no longer start Bouncer, if it cannot: its command is missing
 * or not executable, not on PATH (the entry's own `env.PATH` when it sets one: {@link clientLookupEnv}), or a launcher script in its prefix is gone — or should not: a
 * from-source launcher without {@link sourceRuntimeFlags} (an older init wrote it), or a command
 * that is a script run by a runtime (`npm link`'s `bouncer`), lets Bun read the project folder's
 * `.env` and `bunfig.toml`.
 *
 * Source: SPEC §5.2 (`--check` lists "a launcher that no longer exists").
 * @param entry - A wrapped entry.
 * @param context - Environment and platform.
 * @returns The problem, or undefined when the launcher is there.
 */
export function launcherProblem(
  entry: ConfigEntry,
  context: Pick<LauncherContext, "env" | "platform">,
): LauncherProblem | undefined {
  const written = { command: entry.command ?? "", prefixArgs: entry.wrapped?.prefixArgs ?? [] };
  const paths = pathFor(context.platform);
  context = { ...context, env: clientLookupEnv(context, entry.env) };
  const missing = missingLauncher(written, context);
  if (missing !== undefined) return { kind: "missing", message: missing };
  // Behind `/usr/bin/env`, the program it runs is the launcher to judge.
  const viaEnv = throughEnv(written);
  const { command, prefixArgs: prefix } = viaEnv?.launcher ?? written;
  const found = findExecutable(command, envContext(context, viaEnv)) ?? command;
  const redo = "run bouncer init --undo, then bouncer init";
  // Written as Bouncer itself, it is a script a runtime runs with none of the flags (`npm link`).
  const runtime = prefix.length === 0 ? scriptRuntime(found) : undefined;
  if (runtime !== undefined) {
    const message = `launcher "${command}" is a script run by ${runtime} without the flags that keep it from reading the project folder's .env and bunfig.toml: ${redo}`;
    return { kind: "unsafe", message };
  }
  // From source, written by an older init: Bun reads the project's .env and bunfig.toml preload.
  const base = paths
    .basename(command)
    .toLowerCase()
    .replace(/\.exe$/, "");
  const script = prefix.find((arg) => /[\\/]src[\\/]cli\.ts$/.test(arg));
  if ((base === "bun" || base === "bunx") && script !== undefined && !prefix.includes("--no-env-file")) {
    const message = `launcher lets Bun read the project folder's .env and bunfig.toml (an older init wrote it): ${redo}`;
    return { kind: "unsafe", message };
  }
  return undefined;
}

/**
 * The environment a client starts an entry's command in, as far as finding the command goes: the
 * given one with the entry's own `env.PATH` in place of its PATH (the client passes the entry's `env`
 * to the server's process, and both its own lookup of a bare command and `/usr/bin/env`'s look in
 * that PATH). A PATH holding a placeholder (`${env:PATH}`, `$PATH`) only the client fills in is not
 * used: the lookup keeps the given PATH.
 *
 * Source: SPEC §5.2 (`--check` lists "a launcher that no longer exists"); the review of `/usr/bin/env
 * bouncer` judged on Bouncer's own PATH, not the entry's.
 * @param context - The environment (Bouncer's, or doctor's with the entry's `env` filled in) and
 *   platform (on Windows, names are compared without case).
 * @param entryEnv - The entry's `env` pairs, as written (or as filled in).
 * @returns The environment to look the command up in.
 */
export function clientLookupEnv(
  context: Pick<LauncherContext, "env" | "platform">,
  entryEnv: readonly (readonly [string, string])[],
): Readonly<Record<string, string | undefined>> {
  const windows = context.platform === "win32";
  const isPath = (key: string): boolean => (windows ? key.toUpperCase() === "PATH" : key === "PATH");
  const own = entryEnv.findLast(([key]) => isPath(key));
  if (own === undefined || own[1].includes("$")) return context.env;
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(context.env)) if (!isPath(key)) env[key] = value;
  env.PATH = own[1];
  return env;
}

/**
 * The context `env` looks its program up in: the PATH of a `PATH=…` assignment given to it, else
 * the environment's.
 * @param context - Environment and platform.
 * @param viaEnv - What `env` runs, if the launcher is `env`.
 * @returns The context to search with.
 */
function envContext(
  context: Pick<LauncherContext, "env" | "platform">,
  viaEnv: EnvLaunch | undefined,
): Pick<LauncherContext, "env" | "platform"> {
  return viaEnv?.path === undefined ? context : { ...context, env: { ...context.env, PATH: viaEnv.path } };
}

/** What a missing launcher's message ends with: how to point the entries at one that exists. */
const REPOINT = "run bouncer init --undo, then bouncer init, to point the entry at a launcher that exists";

/**
 * Why a launcher cannot start Bouncer, if it cannot: its command is missing, not executable or not
 * on PATH, the program `env` runs (`/usr/bin/env bouncer`) is, or a launcher script in its prefix (a
 * checkout's `src/cli.ts`) is gone. The message says
 * how to fix it: `init` leaves wrapped entries alone, so they are unwrapped and wrapped again.
 *
 * Source: SPEC §5.2 (`--check` lists "a launcher that no longer exists").
 * @param launcher - The command and the arguments before `run` (placeholders already filled in).
 * @param context - Environment and platform.
 * @returns The problem and its fix, one line, or undefined when the launcher is there.
 */
export function missingLauncher(
  launcher: Launcher,
  context: Pick<LauncherContext, "env" | "platform">,
): string | undefined {
  const { command, prefixArgs } = launcher;
  const paths = pathFor(context.platform);
  if (findExecutable(command, context) === undefined) {
    return paths.isAbsolute(command)
      ? `launcher "${command}" does not exist or is not executable: ${REPOINT}`
      : `launcher "${command}" is not on PATH: ${REPOINT}`;
  }
  // `/usr/bin/env bouncer`: env is there; the program it runs must be too, on its PATH.
  const viaEnv = throughEnv(launcher);
  if (
    viaEnv !== undefined &&
    findExecutable(viaEnv.launcher.command, envContext(context, viaEnv)) === undefined
  ) {
    const program = viaEnv.launcher.command;
    const where = paths.isAbsolute(program) ? "does not exist or is not executable" : "is not on PATH";
    return `launcher "${program}", which "${command}" runs, ${where}: ${REPOINT}`;
  }
  const gone = prefixArgs.find((arg) => paths.isAbsolute(arg) && !existsSync(arg));
  return gone === undefined ? undefined : `launcher script "${gone}" does not exist: ${REPOINT}`;
}
