/**
 * An `O_EXCL` lock file, so that several Bouncer processes never do the same file work at once: the
 * audit log's rotation (SPEC §3.5), a pin file's update, `init`'s write of a client config. A lock
 * older than its stale age (10 s by default, as SPEC §3.5 fixes for rotation) is taken to be left by
 * a holder that died and is taken over; so is a younger one whose holder is known to be gone: the
 * lock records its process id with the host, PID namespace and boot it runs in (`<pid> <nonce>
 * <host>`), and a process of this host, namespace and boot with that id no longer runs. A lock from
 * another host, namespace or boot, of an older form, or looked at where the namespace or boot id
 * cannot be read, is judged by its age alone (a PID reused since only makes the holder look alive:
 * the lock is then waited out, never taken early). Edge (file system).
 *
 * Source: SPEC §3.5 ("rotation … happens only while holding an `O_EXCL` lock file (stale after 10 s)").
 * @module
 */

import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, readlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { errorCode } from "./errors.ts";
import { readLockSnapshot, removeStaleLock } from "./stale-lock.ts";

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
  /** The unique token written into the lock file (`<pid> <nonce> <host>`). */
  readonly token: string;
  /** Removes the lock file if it is still this process's lock (never another holder's). */
  release(): void;
}

/** Where this process runs, as written in its locks: see {@link hostTag}. */
interface HostTag {
  /** `<host>/<PID namespace>/<boot id>`, URI-encoded so that it holds no space. */
  readonly tag: string;
  /** False when the namespace or the boot id could not be read: the tag then names no one machine. */
  readonly complete: boolean;
}

/**
 * Reads a `/proc` entry, or returns `""` when it cannot be read (no `/proc`: macOS, Windows).
 * @param read - The read.
 * @returns Its trimmed text, or `""`.
 */
function procText(read: () => string): string {
  try {
    return read().trim();
  } catch {
    return "";
  }
}

/**
 * Where this process runs, as written in its locks: the host name, the PID namespace
 * (`/proc/self/ns/pid`: a container sharing the folder counts process ids apart) and the boot id
 * (`/proc/sys/kernel/random/boot_id`: every host's initial PID namespace has the same inode, so two
 * machines of one host name sharing a folder over NFS or a volume differ only there).
 * @returns The tag, and whether both `/proc` parts were read.
 */
function hostTag(): HostTag {
  const namespace = procText(() => readlinkSync("/proc/self/ns/pid"));
  const bootId = procText(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8"));
  return {
    tag: encodeURIComponent(`${hostname()}/${namespace}/${bootId}`),
    complete: namespace !== "" && bootId !== "",
  };
}

/**
 * Whether a lock's holder is known to be gone: its token names this host, PID namespace and boot,
 * this process could read both (without them a machine is not told apart from another of its name),
 * and no process with its id runs (`kill(pid, 0)` fails with `ESRCH`; `EPERM` is a process of
 * another user, alive). Anything else — an older token without a host or boot id, another host, a
 * live or reused id — is not known to be gone.
 *
 * Source: the review of `init` interrupted by SIGINT (a dead run's lock held the next run 16 s); the
 * review of two hosts of one name sharing `BOUNCER_HOME` (each took the other's live lock).
 * @param token - The lock file's content.
 * @returns True when the holder no longer runs.
 */
function holderGone(token: string): boolean {
  const [pid, nonce, host, ...rest] = token.trim().split(" ");
  const here = hostTag();
  if (
    !here.complete ||
    nonce === undefined ||
    host !== here.tag ||
    rest.length > 0 ||
    !/^[1-9][0-9]{0,9}$/.test(pid ?? "")
  )
    return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return errorCode(error) === "ESRCH";
  }
}

/**
 * Takes the lock if it is free, or if it is stale (older than `staleMs`, or its holder gone:
 * {@link holderGone}): a stale lock is removed by one process at a time and only while it is still the
 * lock that was looked at (`stale-lock.ts`), and then taken with `O_EXCL` like a free one. Never waits: when another live process holds a fresh
 * lock, returns `undefined` (that process is rotating).
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
  const token = `${process.pid} ${randomBytes(8).toString("hex")} ${hostTag().tag}`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      try {
        writeSync(fd, `${token}\n`);
      } finally {
        closeSync(fd);
      }
      return heldLock(lockPath, { token, now, staleMs });
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
    const seen = readLockSnapshot(lockPath);
    if (seen === undefined) continue;
    if (now() - seen.mtimeMs <= staleMs && !holderGone(seen.token)) return undefined;
    if (!removeStaleLock(lockPath, { stale: seen, own: token, now, staleMs })) return undefined;
  }
  return undefined;
}

/**
 * The handle of a lock this process created. Its release removes the lock by the stale-lock
 * protocol (`stale-lock.ts`): under the break marker of the lock as it was looked at, and only while
 * the file is still that lock. A holder that ran past its stale age and is released while another
 * process takes its lock over therefore never removes the successor's fresh lock (a plain look and
 * delete could, between the two); when that process holds the marker, the release leaves the
 * removal to it.
 *
 * Source: SPEC §3.5 (the `O_EXCL` lock file); the review of a lock's release.
 * @param lockPath - The lock file this process created.
 * @param own - The token it wrote, the clock and the lock's stale age.
 * @returns The handle whose `release()` removes the file only while it still holds `token`.
 * @throws {Error} From `release()`: file-system errors other than "exists" and "not found".
 */
function heldLock(
  lockPath: string,
  own: { readonly token: string; readonly now: () => number; readonly staleMs: number },
): HeldLock {
  const { token } = own;
  return {
    token,
    release(): void {
      const seen = readLockSnapshot(lockPath);
      if (seen === undefined || seen.token.trim() !== token) return;
      removeStaleLock(lockPath, { stale: seen, own: token, now: own.now, staleMs: own.staleMs });
    },
  };
}

/** Options of {@link acquireLockWaiting}. */
export interface WaitingLockOptions extends LockOptions {
  /** How long to wait, in milliseconds. */
  readonly waitMs: number;
  /** Stops the wait (a signal came): the result is then `undefined` at once. */
  readonly signal?: AbortSignal;
  /** Called once, when the lock is found held by another live process and the wait begins. */
  readonly onWait?: () => void;
}

/**
 * Takes the lock, waiting for another holder to finish with it: {@link tryAcquireLock} every 20 ms
 * until `waitMs` have passed or `signal` is aborted (a stale lock, or one whose holder is gone, is
 * taken over at once, as there).
 *
 * Source: SPEC §2.2 (pin files), §5.2 (`init`'s write), both under a lock file.
 * @param lockPath - The lock file.
 * @param options - How long to wait, what stops the wait, what to call when it begins, and the
 *   staleness age and clock of {@link tryAcquireLock}.
 * @returns The held lock, or `undefined` when another process still holds it after the wait (or the
 *   signal was aborted).
 * @throws {Error} What {@link tryAcquireLock} throws (the caller words it).
 */
export async function acquireLockWaiting(
  lockPath: string,
  options: WaitingLockOptions,
): Promise<HeldLock | undefined> {
  const end = Date.now() + options.waitMs;
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted === true) return undefined;
    const lock = tryAcquireLock(lockPath, options);
    if (lock !== undefined || Date.now() > end) return lock;
    if (attempt === 0) options.onWait?.();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
