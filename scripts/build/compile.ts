/**
 * Compiles one release target with `bun build --compile`: minified, with the project's `.env`,
 * `bunfig.toml`, `tsconfig.json` and `package.json` autoloading turned off in the executable, so a
 * directory a client starts Bouncer in can neither inject environment values nor preload code. Edge
 * (build tooling: spawns the Bun compiler).
 *
 * Source: SPEC §6, issue 5.
 * @module
 */

import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { readExecutableHeader, readHead } from "./executable-header.ts";
import type { BuildTarget, HostDescription } from "./targets.ts";

/**
 * Whether release executables are precompiled to JavaScriptCore bytecode (`--bytecode --format=esm`).
 * Measured on the build machine (issue 5), the two builds taking turns: about 40% less CPU to start
 * (`--version` 138 → 78 ms CPU median; `initialize` through `bouncer run` 384 → 270 ms at best) for
 * about 4 MiB more per executable. The cross-compiled linux-arm64 executable was checked to run, and
 * to start faster, under emulation too. `bun scripts/build.ts --compare-bytecode` measures it again.
 */
export const DEFAULT_BYTECODE = true;

/** How to compile. */
export interface CompileOptions {
  /** The entry module (absolute, or relative to `cwd`). */
  readonly entry: string;
  /** The folder receiving the executable. */
  readonly outDir: string;
  /** Precompile to JavaScriptCore bytecode (forces `--format=esm`); default {@link DEFAULT_BYTECODE}. */
  readonly bytecode?: boolean;
  /** Minify; default true. */
  readonly minify?: boolean;
  /** The file name; default the target's release name. */
  readonly file?: string;
  /** The Bun executable doing the compiling; default the one running this script. */
  readonly bun?: string;
  /** Working folder of the compiler; default the current one. */
  readonly cwd?: string;
}

/** What one compilation produced. */
export interface CompileResult {
  /** Absolute or `outDir`-relative path of the executable. */
  readonly path: string;
  /** Its size in bytes. */
  readonly bytes: number;
  /** Wall time of the compiler run, in milliseconds. */
  readonly ms: number;
}

/**
 * Flags that keep a compiled executable from reading configuration out of the folder it is started
 * in. Dotenv and bunfig autoloading default to on in Bun executables; tsconfig and package.json
 * default to off and are turned off explicitly so a Bun upgrade cannot change that silently.
 * Source: SPEC §6.
 */
export const NO_AUTOLOAD_FLAGS: readonly string[] = [
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-tsconfig",
  "--no-compile-autoload-package-json",
];

/**
 * The `bun` arguments that compile one target (without the `bun` executable itself).
 * @param target - The release target.
 * @param options - Entry, output folder, bytecode and minify switches.
 * @returns The argument list, starting with `build`.
 */
export function compileArgs(target: BuildTarget, options: CompileOptions): string[] {
  const args = ["build", "--compile", `--target=${target.bunTarget}`, ...NO_AUTOLOAD_FLAGS];
  if (options.minify ?? true) args.push("--minify");
  if (options.bytecode ?? DEFAULT_BYTECODE) args.push("--bytecode", "--format=esm");
  args.push("--outfile", join(options.outDir, options.file ?? target.file), options.entry);
  return args;
}

/**
 * Runs the Bun compiler for one target and waits for the executable.
 * @param target - The release target.
 * @param options - See {@link CompileOptions}.
 * @returns The executable's path, size and the compile time.
 * @throws {Error} When the compiler exits non-zero (the message carries its output) or writes no file.
 */
export async function compileTarget(target: BuildTarget, options: CompileOptions): Promise<CompileResult> {
  const bun = options.bun ?? process.execPath;
  const started = performance.now();
  const child = Bun.spawn([bun, ...compileArgs(target, options)], {
    cwd: options.cwd ?? process.cwd(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  const ms = performance.now() - started;
  const path = join(options.outDir, options.file ?? target.file);
  if (code !== 0) {
    const output = lastLines(`${out}\n${err}`, 30);
    throw new Error(`Cannot compile target "${target.name}": bun build exited with ${code}: ${output}`);
  }
  if (!existsSync(path)) {
    throw new Error(`Cannot compile target "${target.name}": bun build wrote no file "${path}"`);
  }
  return { path, bytes: statSync(path).size, ms };
}

/**
 * The last lines of a compiler's output, without the download progress lines, joined by ` | `
 * (error messages stay on one line, STYLE #12).
 * @param text - The output.
 * @param count - How many lines to keep.
 * @returns The cut output.
 */
function lastLines(text: string, count: number): string {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("Downloading"));
  return lines.slice(-count).join(" | ");
}

/**
 * Describes the machine this script runs on (for choosing the host's own target). On Linux the C
 * library is read from the running Bun's own program interpreter (a musl loader installed beside glibc
 * does not make the host musl).
 * @returns Platform, architecture and whether Linux here uses musl.
 */
export function describeHost(): HostDescription {
  let musl = false;
  if (process.platform === "linux") {
    try {
      musl = (readExecutableHeader(readHead(process.execPath))?.interpreter ?? "").includes("ld-musl-");
    } catch {
      musl = false;
    }
  }
  return { platform: process.platform, arch: process.arch, musl };
}
