/**
 * An `O_EXCL` lock file, so that several Bouncer processes never do the same file work at once: the
 * audit log's rotation (SPEC §3.5), a pin file's update, `init`'s write of a client config. A lock
 * older than its stale age (10 s by default, as SPEC §3.5 fixes for rotation) is taken to be left by
 * a holder that died and is taken over. Edge (file system).
 *
 * Source: SPEC §3.5 ("rotation … happens only while holding an `O_EXCL` lock file (stale after 10 s)").
 * @module
 */

import { randomBytes } from "node:crypto";
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { errorCode } from "./errors.ts";

/** A lock older than this (by its file's mtime) is stale (SPEC §3.5: 10 s). */
export const LOCK_STALE_MS = 10_000;

/** Options of {@link tryAcquireLock}. */
export interface LockOptions {
  /** The clock, in milliseconds since the epoch (compared with the lock file's mtime). */
  readonly now?: () => number;
  /** Age after which a lock is stale. Default {@link LOCK_STALE_MS}. */
  readonly staleMs?: number;
}

/** A lock this process holds. */
export interface HeldLock {
  /** The unique token written into the lock file (`<pid> <nonce>`). */
  readonly token: string;
  /** Removes the lock file if it is still this process's lock (never another holder's). */
  release(): void;
}

/**
 * Reads a file, or returns `undefined` when it does not exist.
 * @param path - The file.
 * @returns Its text or `undefined`.
 */
function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Takes the lock if it is free, or if it is stale (older than `staleMs`): a stale lock is moved aside
 * under a private name and removed only when it is still the stale lock that was looked at — a fresh
 * lock grabbed by mistake in a race is put back — and then taken with `O_EXCL` like a free one. Never
 * waits: when another process holds a fresh lock, returns `undefined` (that process is rotating).
 *
 * Source: SPEC §3.5.
 * @param lockPath - The lock file, e.g. `audit.jsonl.lock`.
 * @param options - Clock and staleness age.
 * @returns The held lock, or `undefined` when another process holds it.
 * @throws {Error} File-system errors other than "exists" and "not found" (e.g. `EACCES`).
 */
export function tryAcquireLock(lockPath: string, options: LockOptions = {}): HeldLock | undefined {
  const now = options.now ?? Date.now;
  const staleMs = options.staleMs ?? LOCK_STALE_MS;
  const token = `${process.pid} ${randomBytes(8).toString("hex")}`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      try {
        writeSync(fd, `${token}\n`);
      } finally {
        closeSync(fd);
      }
      return heldLock(lockPath, token);
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
    let mtimeMs: number;
    try {
      mtimeMs = statSync(lockPath).mtimeMs;
    } catch (error) {
      if (errorCode(error) === "ENOENT") continue;
      throw error;
    }
    if (now() - mtimeMs <= staleMs) return undefined;
    const staleToken = readIfExists(lockPath);
    if (staleToken === undefined) continue;
    if (!removeStaleLock(lockPath, { stale: staleToken, own: token })) return undefined;
  }
  return undefined;
}

/**
 * Moves a stale lock aside and deletes it, unless what was moved is not the stale lock (another
 * process took the stale lock over first): then the moved lock is put back.
 * @param lockPath - The lock file.
 * @param tokens - The content of the lock judged stale, and this process's token (for a private name).
 * @returns True when the stale lock is gone (retry taking it), false when another process holds it.
 */
function removeStaleLock(
  lockPath: string,
  tokens: { readonly stale: string; readonly own: string },
): boolean {
  const staleToken = tokens.stale;
  const token = tokens.own;
  const aside = `${lockPath}.${token.replace(" ", ".")}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return true;
    throw error;
  }
  const moved = readIfExists(aside);
  if (moved === staleToken) {
    unlinkSync(aside);
    return true;
  }
  try {
    linkSync(aside, lockPath);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
  } finally {
    unlinkSync(aside);
  }
  return false;
}

/**
 * @param lockPath - The lock file this process created.
 * @param token - The token it wrote.
 * @returns The handle whose `release()` removes the file only while it still holds `token`.
 */
function heldLock(lockPath: string, token: string): HeldLock {
  return {
    token,
    release(): void {
      if (readIfExists(lockPath)?.trim() !== token) return;
      try {
        unlinkSync(lockPath);
      } catch (error) {
        if (errorCode(error) !== "ENOENT") throw error;
      }
    },
  };
}

/**
 * Takes the lock, waiting for another holder to finish with it: {@link tryAcquireLock} every 20 ms
 * until `waitMs` have passed (a stale lock is taken over at once, as there).
 *
 * Source: SPEC §2.2 (pin files), §5.2 (`init`'s write), both under a lock file.
 * @param lockPath - The lock file.
 * @param options - `waitMs`: how long to wait, in milliseconds; the staleness age and clock of
 *   {@link tryAcquireLock}.
 * @returns The held lock, or `undefined` when another process still holds it after the wait.
 * @throws {Error} What {@link tryAcquireLock} throws (the caller words it).
 */
export async function acquireLockWaiting(
  lockPath: string,
  options: LockOptions & { readonly waitMs: number },
): Promise<HeldLock | undefined> {
  const end = Date.now() + options.waitMs;
  for (;;) {
    const lock = tryAcquireLock(lockPath, options);
    if (lock !== undefined || Date.now() > end) return lock;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
