/**
 * Creates the folder a file Bouncer writes will live in (audit log, session file, pins), with an
 * error that names the real obstacle: `mkdir -p` through a path whose component is a regular file
 * fails with `EEXIST` ("file already exists") or `ENOTDIR`, which reads as if the file itself were
 * the problem. Edge (file system).
 *
 * Source: brief ("clear, specific error"); SPEC §3.5, §3.6 (files created with mode 0700 folders).
 * @module
 */

import { lstatSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { errorCode } from "./errors.ts";

/**
 * The first ancestor of `path` (from the root down) that exists and is not a folder (a file, or a
 * symbolic link that does not lead to a folder: a dangling one included).
 * @param path - An absolute or relative file path.
 * @returns That ancestor, or undefined when there is none.
 */
function blockingAncestor(path: string): string | undefined {
  const chain: string[] = [];
  for (let at = dirname(path); ; at = dirname(at)) {
    chain.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const at of chain) {
    try {
      if (lstatSync(at).isDirectory()) continue;
    } catch {
      return undefined;
    }
    try {
      // A link to a folder is a folder for mkdir; anything else (a file, a dangling link) blocks it.
      if (!isFolder(at)) return at;
    } catch {
      return at;
    }
  }
  return undefined;
}

/**
 * Whether a path leads to a folder (links followed).
 * @param path - The path.
 * @returns True for a folder.
 * @throws {Error} When it leads nowhere (a dangling link).
 */
function isFolder(path: string): boolean {
  return statSync(path).isDirectory();
}

/**
 * Creates the parent folder of `path` (and its parents) with `mode` when missing.
 *
 * Source: SPEC §3.5, §3.6 (Bouncer's files live in folders of mode 0700); the brief ("clear,
 * specific error").
 * @param path - The file about to be written.
 * @param mode - The mode of folders it creates (default 0700).
 * @throws {Error} `"<ancestor>" is not a folder` (code `ENOTDIR`) when a component of the path is a
 *   file; otherwise the file system's own error (`EACCES`, ...).
 * @example ensureParentDir("/home/me/.bouncer/audit.jsonl")
 */
export function ensureParentDir(path: string, mode = 0o700): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode });
  } catch (error) {
    const code = errorCode(error);
    const blocker = code === "EEXIST" || code === "ENOTDIR" ? blockingAncestor(path) : undefined;
    if (blocker === undefined) throw error;
    throw Object.assign(new Error(`"${blocker}" is not a folder`, { cause: error }), { code: "ENOTDIR" });
  }
}
