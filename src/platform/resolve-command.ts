/**
 * Finds the executable an upstream command names, the way the OS would, so that a missing command is
 * reported with the PATH searched (answered as the `initialize` error) rather than as a bare ENOENT.
 * On Windows: PATH (not the working directory) with `.com`/`.exe`/`.bat`/`.cmd`, `cmd` from
 * `COMSPEC`, and `.cmd`/`.bat` files run through `cmd.exe /d /v:off /s /c` with a verbatim
 * command line (Node refuses to spawn batch files directly). Edge; the file-system check is
 * injected so the Windows rules are tested on any OS.
 *
 * Source: SPEC §3.3 ("A command that cannot be found → the initialize error names it and the PATH
 * searched"), field cases F09, F10, F15.
 * @module
 */

import { accessSync, constants, statSync } from "node:fs";
import { posix, win32 } from "node:path";
import { BouncerError } from "./errors.ts";
import { describeFsError } from "./fs-error-text.ts";
import { cmdExeArguments } from "./windows-command-line.ts";

/** What to launch, as configured. */
export interface CommandSpec {
  readonly command: string;
  readonly args: readonly string[];
  /** The upstream's working directory (absolute). */
  readonly cwd: string;
  /** The environment the upstream gets (PATH and PATHEXT are read from it). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A command ready for `child_process.spawn`. */
export interface ResolvedCommand {
  /** The file to spawn (`cmd.exe` for a batch file). */
  readonly file: string;
  readonly args: readonly string[];
  /** True when `args` is one pre-quoted command line for `cmd.exe` (F09). */
  readonly windowsVerbatimArguments: boolean;
  /** The absolute path the configured command resolved to (recorded for audit, F15). */
  readonly executable: string;
}

/** Options of {@link resolveCommand}. */
export interface ResolveCommandOptions {
  /** Default: the running platform. */
  readonly platform?: "posix" | "win32";
  /** Whether a path is a file this process may execute (default: a real `stat`/`access` check). */
  readonly isExecutable?: (path: string) => boolean;
}

/**
 * Whether a path names an executable regular file (on Windows: any regular file).
 * @param path - An absolute path.
 * @param platform - The platform whose rules apply.
 * @returns True when it can be spawned.
 */
function defaultIsExecutable(path: string, platform: "posix" | "win32"): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (platform === "posix") accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads an environment variable; on Windows names are case-insensitive (`Path` = `PATH`).
 * @param env - The environment.
 * @param name - The variable, upper case.
 * @param platform - The platform whose rules apply.
 * @returns The value, or undefined.
 */
export function readEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  platform: "posix" | "win32",
): string | undefined {
  if (Object.hasOwn(env, name)) return env[name];
  if (platform === "posix") return undefined;
  for (const key of Object.keys(env)) if (key.toUpperCase() === name) return env[key];
  return undefined;
}

/** The extensions Windows can start a file by (`CreateProcess` for the first two, `cmd.exe` for the others). */
const RUNNABLE_EXTENSIONS: readonly string[] = [".COM", ".EXE", ".BAT", ".CMD"];

/**
 * The candidate files for a command on Windows: as given when its extension is `.com`, `.exe`,
 * `.bat` or `.cmd`, otherwise with each of those that PATHEXT lists appended, in PATHEXT's order
 * (other PATHEXT entries, `.JS` or `.VBS`, are not programs to spawn: a `node.js` is not `node`).
 * @param base - The command joined to a directory.
 * @param pathExt - The PATHEXT extensions, upper case.
 * @returns The candidates, in order.
 */
function windowsCandidates(base: string, pathExt: readonly string[]): string[] {
  const ext = win32.extname(base).toUpperCase();
  if (RUNNABLE_EXTENSIONS.includes(ext)) return [base];
  const listed = pathExt.filter((e) => RUNNABLE_EXTENSIONS.includes(e));
  return (listed.length > 0 ? listed : RUNNABLE_EXTENSIONS).map((e) => base + e.toLowerCase());
}

/**
 * Whether a Windows path is absolute with a drive or a UNC share (`C:\x`, `\\srv\share\x`): not
 * drive-relative (`C:x`) or root-relative (`\x`), which depend on the working directory.
 *
 * Source: SPEC §5.1 (the upstream's lookup), §5.2 (the launcher's).
 * @param path - A path.
 * @returns True when it names the same file from any directory.
 */
export function isFullWindowsPath(path: string): boolean {
  return /^(?:[A-Za-z]:[\\/]|[\\/]{2}[^\\/])/.test(path);
}

/**
 * The command interpreter: `COMSPEC` when it names a file, else `%SystemRoot%\System32\cmd.exe` —
 * never a `cmd.bat` or `cmd.exe` of the working directory or of PATH.
 * @param spec - The command spec (its environment; its command for the error).
 * @param isExecutable - The file check.
 * @returns The absolute path of `cmd.exe`.
 * @throws {BouncerError} `UPSTREAM_NOT_FOUND` when neither names a file.
 */
function commandInterpreter(spec: CommandSpec, isExecutable: (path: string) => boolean): string {
  const comspec = readEnv(spec.env, "COMSPEC", "win32");
  const systemRoot = readEnv(spec.env, "SYSTEMROOT", "win32");
  const candidates = [
    comspec,
    systemRoot === undefined ? undefined : win32.join(systemRoot, "System32", "cmd.exe"),
  ];
  const found = candidates.find(
    (path): path is string => path !== undefined && isFullWindowsPath(path) && isExecutable(path),
  );
  if (found !== undefined) return found;
  throw new BouncerError(
    "UPSTREAM_NOT_FOUND",
    `Cannot start upstream "${spec.command}": cmd.exe not found (neither COMSPEC nor %SystemRoot%\\System32\\cmd.exe names a file)`,
  );
}

/**
 * Resolves the configured command to an executable and the exact spawn arguments.
 *
 * POSIX: a command containing `/` is resolved against the upstream's cwd; otherwise each PATH entry
 * is searched (an empty entry means the cwd). Windows: a command with a separator or drive is resolved
 * against the cwd; otherwise each absolute PATH entry (not the cwd), trying `.com`, `.exe`, `.bat`
 * and `.cmd` in PATHEXT's order; a `.cmd`/`.bat` result runs as `cmd.exe /d /v:off /s /c "…"` with
 * `windowsVerbatimArguments`. `cmd` itself is `COMSPEC` or `%SystemRoot%\System32\cmd.exe`, and an
 * explicit `cmd /c …` entry is kept as it is (no second cmd layer).
 *
 * Source: SPEC §3.3, F09, F10.
 * @param spec - Command, arguments, cwd and environment.
 * @param options - Platform and file check (injected for tests).
 * @returns The spawnable command.
 * @throws {BouncerError} `UPSTREAM_NOT_FOUND` naming the command and the PATH searched (or, for `cmd`
 *   and batch files, that `cmd.exe` cannot be found).
 */
export function resolveCommand(spec: CommandSpec, options: ResolveCommandOptions = {}): ResolvedCommand {
  const platform = options.platform ?? (process.platform === "win32" ? "win32" : "posix");
  const isExecutable = options.isExecutable ?? ((path: string) => defaultIsExecutable(path, platform));
  const pathValue = readEnv(spec.env, "PATH", platform) ?? "";
  if (spec.command === "")
    throw new BouncerError("UPSTREAM_NOT_FOUND", "Cannot start upstream: empty command");
  if (platform === "posix") {
    const found = findPosix(spec, pathValue, isExecutable);
    if (found === undefined) {
      const isPath = spec.command.includes("/");
      throw notFound(spec.command, pathValue, { isPath, at: posix.resolve(spec.cwd, spec.command) });
    }
    return { file: found, args: [...spec.args], windowsVerbatimArguments: false, executable: found };
  }
  const pathExt = (readEnv(spec.env, "PATHEXT", platform) ?? ".COM;.EXE;.BAT;.CMD")
    .split(";")
    .map((e) => e.trim().toUpperCase())
    .filter((e) => e.startsWith("."));
  const isPath = /[\\/]/.test(spec.command) || /^[a-zA-Z]:/.test(spec.command);
  if (!isPath && /^cmd(?:\.exe)?$/i.test(spec.command)) {
    const cmd = commandInterpreter(spec, isExecutable);
    return { file: cmd, args: [...spec.args], windowsVerbatimArguments: false, executable: cmd };
  }
  const found = findWindows(spec, { pathValue, pathExt, isExecutable });
  if (found === undefined) throw notFound(spec.command, pathValue, { isPath });
  const ext = win32.extname(found).toLowerCase();
  if (ext === ".cmd" || ext === ".bat") {
    return {
      file: commandInterpreter(spec, isExecutable),
      args: cmdExeArguments(found, spec.args),
      windowsVerbatimArguments: true,
      executable: found,
    };
  }
  return { file: found, args: [...spec.args], windowsVerbatimArguments: false, executable: found };
}

/**
 * POSIX lookup.
 * @param spec - The command spec.
 * @param pathValue - The PATH searched.
 * @param isExecutable - The file check.
 * @returns The absolute executable, or undefined.
 */
function findPosix(
  spec: CommandSpec,
  pathValue: string,
  isExecutable: (path: string) => boolean,
): string | undefined {
  if (spec.command.includes("/")) {
    const candidate = posix.resolve(spec.cwd, spec.command);
    return isExecutable(candidate) ? candidate : undefined;
  }
  for (const dir of pathValue.split(":")) {
    const candidate = posix.resolve(spec.cwd, dir === "" ? "." : dir, spec.command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Windows lookup: a command with a separator or a drive against the cwd; a bare name in each
 * absolute PATH entry only, never the cwd (what `NoDefaultCurrentDirectoryInExePath` asks of
 * `cmd.exe`, and what libuv and Rust clients do): a cloned project's `npx.cmd` or `node.bat` does
 * not stand in for the real one. Extensions as {@link windowsCandidates} says.
 * @param spec - The command spec.
 * @param options - PATH, PATHEXT and the file check.
 * @returns The absolute file, or undefined.
 */
function findWindows(
  spec: CommandSpec,
  options: {
    readonly pathValue: string;
    readonly pathExt: readonly string[];
    readonly isExecutable: (path: string) => boolean;
  },
): string | undefined {
  const hasDir = /[\\/]/.test(spec.command) || /^[a-zA-Z]:/.test(spec.command);
  const dirs = hasDir
    ? [spec.cwd]
    : options.pathValue
        .split(";")
        .map((d) => d.trim().replace(/^"(.*)"$/, "$1"))
        .filter(isFullWindowsPath);
  for (const dir of dirs) {
    const base = win32.resolve(spec.cwd, dir, spec.command);
    for (const candidate of windowsCandidates(base, options.pathExt)) {
      if (options.isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * The not-found error (F10): names the command and the PATH searched, or — for a command given as a
 * path — why nothing can run there.
 * @param command - The configured command.
 * @param pathValue - The PATH searched.
 * @param where - Whether the command is a path (on this platform's rules) and, on POSIX, the file it
 *   resolves to.
 * @returns The error.
 */
function notFound(
  command: string,
  pathValue: string,
  where: { readonly isPath: boolean; readonly at?: string },
): BouncerError {
  const why = where.isPath ? whatIsThere(where.at) : `not found in PATH "${pathValue}"`;
  return new BouncerError("UPSTREAM_NOT_FOUND", `Cannot start upstream "${command}": ${why}`);
}

/**
 * Why a command given as a path cannot run: nothing there, a folder, or a file without the execute
 * permission.
 * @param path - The absolute path it resolves to (absent: not known).
 * @returns The reason.
 */
function whatIsThere(path: string | undefined): string {
  if (path === undefined) return "no executable file there";
  try {
    const stats = statSync(path);
    if (stats.isDirectory()) return "it is a folder";
    return "the file is not executable (it needs the execute permission, or run it through its interpreter)";
  } catch (error) {
    return describeFsError(error);
  }
}
