/**
 * Files that hold secrets stay private: an existing audit log or session file that group or others
 * may read is narrowed to its owner (SPEC §3.5, §3.6: mode 0600). Edge (file system).
 *
 * Source: SPEC §3.5 ("mode 0600"), §3.6 ("mode 0600").
 * @module
 */

import { closeSync, constants, fchmodSync, fstatSync, openSync } from "node:fs";
import { errorCode } from "./errors.ts";
import { ensureParentDir } from "./parent-dir.ts";

/**
 * Removes the group and other permission bits of an open file when it has any (POSIX only; Windows
 * keeps the user profile's ACL). A file Bouncer may not chmod (another user's) is left as it is:
 * writing to it was the user's choice.
 * @param fd - An open descriptor (anything but a regular file — a device, a FIFO — is left alone).
 * @returns True when the mode was narrowed.
 * @throws Never.
 * @example keepPrivate(openSync(path, "a")) // 0644 → 0600
 */
export function keepPrivate(fd: number): boolean {
  if (process.platform === "win32") return false;
  try {
    const stats = fstatSync(fd);
    // Only a regular file: `--record /dev/null` must not make a device private to its owner.
    if (!stats.isFile() || (stats.mode & 0o077) === 0) return false;
    fchmodSync(fd, stats.mode & 0o700);
    return true;
  } catch {
    return false;
  }
}

/** `O_NONBLOCK` where the platform has it (not on Windows): an open that cannot wait on a FIFO. */
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Opens a file that holds secrets for appending: created with mode 0600 (its missing folders with
 * mode 0700), or, when it exists, opened as it is and narrowed by {@link keepPrivate}. The open never
 * waits: a FIFO that nobody reads is refused (`ENXIO`) instead of blocking the process, signals
 * included; one that is read is reopened for ordinary (blocking) writes. Used by the audit log and
 * the session recorder.
 *
 * Source: SPEC §3.5 ("mode 0600"), §3.6 ("mode 0600"); the brief ("never a hang").
 * @param path - The file.
 * @returns The open descriptor (write-only, append).
 * @throws {Error} The file system's error (`EACCES`, `EISDIR`, `ENXIO` for a FIFO without a reader,
 *   `ENOTDIR` from {@link ensureParentDir}...).
 * @example const fd = openPrivateAppend("/home/me/.bouncer/audit.jsonl")
 */
export function openPrivateAppend(path: string): number {
  ensureParentDir(path);
  const flags = constants.O_WRONLY | constants.O_APPEND;
  try {
    const fd = openSync(path, flags | constants.O_CREAT | constants.O_EXCL, 0o600);
    // The umask may have taken bits the file should keep (0600 exactly, whatever the umask).
    fchmodSync(fd, 0o600);
    return fd;
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
  }
  // O_CREAT again: the file may have been rotated away since the first open.
  const fd = openSync(path, flags | constants.O_CREAT | NONBLOCK, 0o600);
  if (NONBLOCK !== 0 && fstatSync(fd).isFIFO()) {
    // Someone reads it (else ENXIO): writes to it should wait for that reader, not fail.
    try {
      return openSync(path, flags);
    } finally {
      closeSync(fd);
    }
  }
  keepPrivate(fd);
  return fd;
}
