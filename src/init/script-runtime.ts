/**
 * Whether an executable is a script a JavaScript runtime runs (its first line a `#!` naming Bun,
 * Node or Deno, directly or through `env`), as `npm link` or `npm i -g` of a checkout puts on PATH:
 * such a launcher starts the runtime without the flags that keep it from reading the project
 * folder's `.env` and `bunfig.toml` (`sourceRuntimeFlags` in `launcher.ts`). Edge (reads a file's
 * first bytes).
 *
 * Source: SPEC §5.2 (the launcher), §6 (what the executable reads).
 * @module
 */

import { closeSync, openSync, readSync } from "node:fs";

/** Executable names of JavaScript runtimes (`.exe` removed, lower case). */
export const RUNTIMES: ReadonlySet<string> = new Set(["bun", "bunx", "node", "deno"]);

/** Bytes of a file read for its `#!` line (Linux reads 256; longer lines are cut there too). */
const SHEBANG_BYTES = 512;

/**
 * The runtime a `#!` line names: its interpreter, or the program `env` runs (after `env`'s options
 * such as `-S` and any `NAME=value`), when that is one of {@link RUNTIMES}.
 *
 * Source: SPEC §5.2.
 * @param firstLine - A file's first line, with or without its line end.
 * @returns The runtime's name (`bun`, `node`...), or undefined for another interpreter or no `#!`.
 * @example shebangRuntime("#!/usr/bin/env bun") // "bun"
 */
export function shebangRuntime(firstLine: string): string | undefined {
  if (!firstLine.startsWith("#!")) return undefined;
  const words = firstLine
    .slice(2)
    .replace(/[\r\n].*$/s, "")
    .trim()
    .split(/[ \t]+/)
    .filter(Boolean);
  let program = baseName(words[0] ?? "");
  if (program === "env") {
    const rest = words.slice(1).filter((word) => !word.startsWith("-") && !/^[A-Za-z_]\w*=/.test(word));
    program = baseName(rest[0] ?? "");
  }
  return RUNTIMES.has(program) ? program : undefined;
}

/**
 * The runtime that runs an executable file, from its `#!` line (symbolic links followed).
 *
 * Source: SPEC §5.2.
 * @param file - An absolute path.
 * @returns The runtime's name, or undefined for a binary, another interpreter, or a file that
 *   cannot be read (a script no one may read cannot be run by an interpreter either).
 */
export function scriptRuntime(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buffer = Buffer.alloc(SHEBANG_BYTES);
    const read = readSync(fd, buffer, 0, SHEBANG_BYTES, 0);
    return shebangRuntime(buffer.subarray(0, read).toString("latin1"));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The last path part of a program name, lower case, without `.exe`.
 * @param program - A path or name (either separator).
 * @returns The base name.
 */
function baseName(program: string): string {
  return (program.split(/[\\/]/).at(-1) ?? "").toLowerCase().replace(/\.exe$/, "");
}
