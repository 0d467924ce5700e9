/**
 * Finds how a client should start Bouncer (the {@link Launcher}) and looks executables up on PATH
 * (whether a wrapped entry's launcher still exists is `launcher-problem.ts`). Edge (reads the file
 * system).
 *
 * Order (SPEC §5.2): a `bouncer` on PATH — the Homebrew or scoop shim survives upgrades, and its
 * absolute path is written because clients start servers with a short PATH (field case F10); on
 * Windows only a real `bouncer.exe` counts (a `.cmd` shim would need `cmd /c`, F09) — else the running
 * executable when it is the compiled Bouncer binary (its CLI module is not a file on disk,
 * {@link isSourceFile}); else, running from source, the absolute path of
 * the Bun (or Node) executable with the absolute path of `src/cli.ts` as the script, after the flags
 * that keep Bun from reading the client's working folder ({@link sourceRuntimeFlags}). A PATH
 * `bouncer` that is a script whose `#!` names a runtime (what `npm link` of a checkout puts there) is
 * passed over: it would start that runtime without those flags.
 *
 * Source: SPEC §5.2 ("`command` = the Bouncer launcher"), field cases F09, F10.
 * @module
 */

import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isFullWindowsPath } from "../platform/resolve-command.ts";
import { RUNTIMES, scriptRuntime } from "./script-runtime.ts";
import type { Launcher } from "./types.ts";

/** Where to look for the launcher. */
export interface LauncherContext {
  /** The environment (its PATH, and PATHEXT on Windows). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  /** The running executable (`process.execPath`). */
  readonly execPath: string;
  /**
   * The CLI module's path (default: {@link sourceCliPath}); a file on disk means running from source,
   * a path inside a compiled executable (`/$bunfs/...`) or no file means the compiled Bouncer.
   */
  readonly cliPath?: string;
}

/** A `bouncer` found on PATH that is not written as the launcher, and why. */
export interface SkippedLauncher {
  /** Its absolute path. */
  readonly path: string;
  /** The runtime its `#!` line names (`bun`, `node`...). */
  readonly runtime: string;
}

/** The launcher `init` writes, and the PATH `bouncer` it passed over, if any. */
export interface LauncherChoice {
  readonly launcher: Launcher;
  readonly skipped?: SkippedLauncher;
}

/**
 * The launcher a client should use to start Bouncer.
 *
 * Source: SPEC §5.2.
 * @param context - Environment, platform and running executable.
 * @returns The launcher.
 */
export function findLauncher(context: LauncherContext): Launcher {
  return chooseLauncher(context).launcher;
}

/**
 * The launcher a client should use to start Bouncer, and the `bouncer` on PATH it passed over: a
 * script whose `#!` names a runtime (what `npm link` puts on PATH) starts that runtime without
 * {@link sourceRuntimeFlags}, so it would let a project's `.env` and `bunfig.toml` into Bouncer. The
 * search goes on along PATH, then falls back to the running executable (SPEC order).
 *
 * Source: SPEC §5.2; the review of `npm link` launchers.
 * @param context - Environment, platform and running executable.
 * @returns The launcher, and the first PATH `bouncer` skipped.
 */
export function chooseLauncher(context: LauncherContext): LauncherChoice {
  let skipped: SkippedLauncher | undefined;
  const onPath = findExecutable("bouncer", {
    ...context,
    extensions: context.platform === "win32" ? [".exe"] : [""],
    accept: (candidate) => {
      const runtime = scriptRuntime(candidate);
      if (runtime !== undefined) skipped ??= { path: candidate, runtime };
      return runtime === undefined;
    },
  });
  const found = skipped === undefined ? {} : { skipped };
  if (onPath !== undefined) return { launcher: { command: onPath, prefixArgs: [] }, ...found };
  // From source when the CLI is a file on disk, whatever the executable is named: a compiled
  // Bouncer renamed `bun` is still itself, and a Bun renamed `bouncer-dev` still needs the script.
  const cli = context.cliPath ?? sourceCliPath();
  if (!isSourceFile(cli)) return { launcher: { command: context.execPath, prefixArgs: [] }, ...found };
  const base = pathFor(context.platform)
    .basename(context.execPath)
    .toLowerCase()
    .replace(/\.exe$/, "");
  // The source runs on Bun only: a runtime of another name gets Bun's flags too.
  const runtime = RUNTIMES.has(base) ? base : "bun";
  const prefixArgs = [...sourceRuntimeFlags(runtime, cli, context.platform), cli];
  return { launcher: { command: context.execPath, prefixArgs }, ...found };
}

/**
 * The flags that keep Bun from reading the client's working folder when it starts Bouncer from a
 * checkout: a project's `.env` (it could move `BOUNCER_HOME`), its `bunfig.toml` (a `preload` runs
 * code before Bouncer) and its `tsconfig.json` (its `paths` could redirect Bouncer's imports). The
 * checkout's own files are used instead — what the compiled binary does by not reading them at all.
 *
 * Source: SPEC §5.2 (the launcher), §6 (what the executable reads); the brief ("fail closed").
 * @param runtime - The runtime's base name (`bun`, `node`...); only Bun reads these files.
 * @param cli - The absolute path of the checkout's `src/cli.ts`.
 * @param platform - For path handling.
 * @returns The flags, before the script.
 */
export function sourceRuntimeFlags(runtime: string, cli: string, platform: NodeJS.Platform): string[] {
  if (runtime !== "bun" && runtime !== "bunx") return [];
  const root = pathFor(platform).dirname(pathFor(platform).dirname(cli));
  const paths = pathFor(platform);
  return [
    "--no-env-file",
    `--config=${paths.join(root, "bunfig.toml")}`,
    `--tsconfig-override=${paths.join(root, "tsconfig.json")}`,
  ];
}

/**
 * The absolute path of this checkout's `src/cli.ts`.
 *
 * Source: SPEC §5.2.
 * @returns The path.
 */
export function sourceCliPath(): string {
  return fileURLToPath(new URL("../cli.ts", import.meta.url));
}

/**
 * Whether a CLI path is a real file on disk — running from source — rather than a module inside a
 * compiled Bun executable, whose modules live under `/$bunfs/` (`B:/~BUN/` on Windows), a path Bun's
 * own `fs` answers for from inside the executable.
 *
 * Source: SPEC §5.2 ("from source: whatever launches this checkout's CLI absolutely").
 * @param cli - The CLI's path ({@link sourceCliPath}).
 * @returns True for a regular file outside a compiled executable.
 */
export function isSourceFile(cli: string): boolean {
  if (/^(?:\/\$bunfs[\\/]|[A-Za-z]:[\\/]~BUN[\\/])/.test(cli)) return false;
  try {
    return statSync(cli).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds an executable on PATH (with PATHEXT on Windows), or checks a path given with a separator.
 * Only absolute PATH entries are searched (on Windows, with a drive or a UNC share): a relative one
 * would be resolved against Bouncer's working directory, a folder of whatever project `init` runs in
 * (its `node_modules/.bin/bouncer` would be written as every client's launcher), not the folder the
 * client starts the server in.
 *
 * Source: SPEC §5.2; the review of relative PATH entries (resolved against the working directory).
 * @param name - A command name or path.
 * @param context - Environment and platform; `extensions` overrides PATHEXT; `accept` filters.
 * @returns Its absolute path, or undefined when not found.
 */
export function findExecutable(
  name: string,
  context: Pick<LauncherContext, "env" | "platform"> & {
    readonly extensions?: readonly string[];
    /** Whether an executable found counts (default: every one); the search goes on past a refusal. */
    readonly accept?: (file: string) => boolean;
  },
): string | undefined {
  const paths = pathFor(context.platform);
  const windows = context.platform === "win32";
  if (name.includes("/") || (windows && name.includes("\\"))) {
    return paths.isAbsolute(name) && isExecutableFile(name, context.platform) ? name : undefined;
  }
  const pathKey = Object.keys(context.env).find((key) =>
    windows ? key.toUpperCase() === "PATH" : key === "PATH",
  );
  // Only absolute PATH entries: a relative one (`node_modules/.bin`, `.`, an empty one) names a
  // folder of whatever working directory the lookup runs in, not of the client's.
  const dirs = (pathKey === undefined ? "" : (context.env[pathKey] ?? ""))
    .split(windows ? ";" : ":")
    .map((dir) => (windows ? dir.trim().replace(/^"(.*)"$/, "$1") : dir))
    .filter((dir) => (windows ? isFullWindowsPath(dir) : paths.isAbsolute(dir)));
  const pathExt = (context.env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").toLowerCase().split(";").filter(Boolean);
  const extensions = context.extensions ?? (windows && paths.extname(name) === "" ? pathExt : [""]);
  for (const dir of dirs) {
    for (const extension of extensions) {
      const candidate = paths.resolve(dir, `${name}${extension}`);
      if (isExecutableFile(candidate, context.platform) && (context.accept?.(candidate) ?? true))
        return candidate;
    }
  }
  return undefined;
}

/**
 * Whether a path is an existing regular file that may be executed.
 * @param file - An absolute path.
 * @param platform - The platform (Windows has no execute bit).
 * @returns True for an executable file.
 */
function isExecutableFile(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (platform !== "win32") accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The path functions of a platform.
 *
 * Source: SPEC §5.2.
 * @param platform - A platform name.
 * @returns `path.win32` or `path.posix`.
 */
export function pathFor(platform: NodeJS.Platform): typeof path.posix {
  return platform === "win32" ? path.win32 : path.posix;
}
