/**
 * Files that hold secrets stay private: an existing audit log or session file that group or others
 * may read is narrowed to its owner (SPEC §3.5, §3.6: mode 0600). Edge (file system).
 *
 * Source: SPEC §3.5 ("mode 0600"), §3.6 ("mode 0600").
 * @module
 */

import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, openSync } from "node:fs";
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
 * mode 0700), or, when it exists, opened as it is and narrowed by {@link keepPrivate}. A FIFO or a
 * socket is refused, whether or not something reads it: the open would wait for a reader (past
 * signals), and every write would stall the proxy once the reader stops reading. A device such as
 * `/dev/null` is written as a file. Used by the audit log and the session recorder.
 *
 * Source: SPEC §3.5 ("mode 0600"), §3.6 ("mode 0600"); the brief ("never a hang").
 * @param path - The file.
 * @returns The open descriptor (write-only, append).
 * @throws {Error} The file system's error (`EACCES`, `EISDIR`, `ENXIO` for a FIFO without a reader,
 *   `ENOTDIR` from {@link ensureParentDir}...), or `it is a FIFO, not a file` (`a socket`).
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
  const stats = fstatSync(fd);
  if (stats.isFIFO() || stats.isSocket()) {
    closeSync(fd);
    throw new Error(`it is ${stats.isFIFO() ? "a FIFO" : "a socket"}, not a file`);
  }
  keepPrivate(fd);
  return fd;
}

/**
 * Flushes a file to its disk, where it has one: a device such as `/dev/null` cannot be synced
 * (`EINVAL`), which is no failure to write.
 *
 * Source: SPEC §3.5, §3.6 (nothing written is lost).
 * @param fd - An open descriptor.
 * @returns Nothing.
 * @throws {Error} Any other error of `fsync` (`EIO`: the data may be lost).
 */
export function syncWhereSupported(fd: number): void {
  try {
    fsyncSync(fd);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "EINVAL" && code !== "ENOTSUP" && code !== "EROFS") throw error;
  }
}
