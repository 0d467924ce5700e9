/**
 * Removing a lock file judged stale without ever removing a fresh one in its place. A lock is judged
 * from one look ({@link readLockSnapshot}: its age, identity and token read through one descriptor,
 * so that they belong to one file). Of the processes that judged the same lock stale, one at a time
 * removes it: each first creates, with `O_EXCL`, a break marker named for that lock
 * (`<lock>.<hash of the snapshot>.break`); the one that holds it moves the lock aside under a private
 * name and deletes it only when what it moved is still the lock judged stale, else puts it back.
 * Without the marker, two processes that judged one lock stale raced: the first removed it and took
 * a fresh lock, the second moved that fresh lock aside by mistake, and a third took the lock while it
 * was away, so the first's lock was lost (two holders). Edge (file system).
 *
 * Source: SPEC §3.5 (the `O_EXCL` lock file); the review of the stale lock's removal (ABA race).
 * @module
 */

import { createHash } from "node:crypto";
import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { errorCode } from "./errors.ts";

/** What a lock file was when it was looked at. */
export interface LockSnapshot {
  /** The device of the file. */
  readonly dev: number;
  /** Its inode (with the device: which file, as long as it exists). */
  readonly ino: number;
  /** Its modification time, in milliseconds since the epoch (its age). */
  readonly mtimeMs: number;
  /** Its content: `<pid> <nonce> <host>\n`, an older form, or `""` (a holder stopped before writing). */
  readonly token: string;
}

/**
 * Opens a lock file once and reads its status and content from that descriptor.
 *
 * Source: SPEC §3.5.
 * @param lockPath - The lock file (or a name it was moved to).
 * @returns Its snapshot, or `undefined` when no file is there.
 * @throws {Error} File-system errors other than `ENOENT` (e.g. `EACCES`).
 */
export function readLockSnapshot(lockPath: string): LockSnapshot | undefined {
  let fd: number;
  try {
    fd = openSync(lockPath, "r");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  try {
    const { dev, ino, mtimeMs } = fstatSync(fd);
    return { dev, ino, mtimeMs, token: readFileSync(fd, "utf8") };
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether two snapshots are of one unchanged lock: the same file (device and inode), age and content.
 * An inode given again to a newer lock differs by its age (a lock is taken over once stale, and the
 * newer one is fresh) or by its token (a random nonce each). Content alone does not tell locks apart:
 * an empty stale lock (a holder killed between creating and writing it) reads as a fresh one not yet
 * written.
 *
 * Source: SPEC §3.5.
 * @param a - One snapshot.
 * @param b - The other.
 * @returns True when nothing tells them apart.
 */
export function sameLock(a: LockSnapshot, b: LockSnapshot): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.token === b.token;
}

/**
 * The break marker of one stale lock: held, with `O_EXCL`, by the one process removing that lock.
 *
 * Source: SPEC §3.5.
 * @param lockPath - The lock file.
 * @param stale - The snapshot of the lock judged stale.
 * @returns `<lock>.<16 hex digits of the snapshot's SHA-256>.break`.
 */
export function breakMarkerPath(lockPath: string, stale: LockSnapshot): string {
  const identity = createHash("sha256")
    .update(`${stale.dev}:${stale.ino}:${stale.mtimeMs}:${stale.token}`)
    .digest("hex")
    .slice(0, 16);
  return `${lockPath}.${identity}.break`;
}

/** What {@link removeStaleLock} needs besides the lock's path. */
export interface StaleLockRemoval {
  /** The snapshot of the lock judged stale. */
  readonly stale: LockSnapshot;
  /** This process's token (written into the break marker, and a private name for the moved lock). */
  readonly own: string;
  /** The clock, in milliseconds since the epoch, and the lock's stale age: a break marker older than
   * that was left by a process that died while removing the lock, and is removed. */
  readonly now: () => number;
  readonly staleMs: number;
}

/**
 * Removes the lock judged stale, unless another process is removing it (its break marker exists) or
 * the file at the lock's path is no longer that lock (another process took it over first).
 *
 * Source: SPEC §3.5.
 * @param lockPath - The lock file.
 * @param removal - The lock judged stale, this process's token, the clock and the stale age.
 * @returns True when the stale lock is gone (retry taking it), false when another process is removing
 *   it or holds a fresh lock (wait).
 * @throws {Error} File-system errors other than "exists" and "not found" (e.g. `EACCES`).
 */
export function removeStaleLock(lockPath: string, removal: StaleLockRemoval): boolean {
  const marker = breakMarkerPath(lockPath, removal.stale);
  let fd: number;
  try {
    fd = openSync(marker, "wx", 0o600);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
    const left = readLockSnapshot(marker);
    if (left !== undefined && removal.now() - left.mtimeMs > removal.staleMs) unlinkIfThere(marker);
    return false;
  }
  try {
    writeHolder(fd, removal.own);
    return moveAsideAndDelete(lockPath, removal);
  } finally {
    unlinkIfThere(marker);
  }
}

/**
 * Writes who holds a break marker into it, for a person who finds one left behind. The marker
 * excludes by existing alone (its age, not its content, is read), so a disk too full for these bytes
 * stops nothing: a release on a full disk still removes its lock.
 * @param fd - The marker, just created (closed here).
 * @param own - This process's token.
 * @throws {Error} File-system errors other than a full disk or quota (`ENOSPC`, `EDQUOT`).
 */
function writeHolder(fd: number, own: string): void {
  try {
    writeSync(fd, `${own}\n`);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOSPC" && code !== "EDQUOT") throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves the lock aside and deletes it when it is the lock judged stale, else puts it back (its holder
 * released it meanwhile and another process took it: only a holder past its stale age, still running).
 * @param lockPath - The lock file.
 * @param removal - The lock judged stale and this process's token.
 * @returns True when the stale lock is gone, false when another holder's lock is there.
 */
function moveAsideAndDelete(lockPath: string, removal: StaleLockRemoval): boolean {
  const before = readLockSnapshot(lockPath);
  if (before === undefined) return true;
  if (!sameLock(before, removal.stale)) return false;
  const aside = `${lockPath}.${removal.own.replace(" ", ".")}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return true;
    throw error;
  }
  const moved = readLockSnapshot(aside);
  if (moved !== undefined && sameLock(moved, removal.stale)) {
    unlinkIfThere(aside);
    return true;
  }
  try {
    linkSync(aside, lockPath);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
  } finally {
    unlinkIfThere(aside);
  }
  return false;
}

/**
 * Deletes a file, already gone or not.
 * @param path - The file.
 * @throws {Error} File-system errors other than `ENOENT`.
 */
function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
}
