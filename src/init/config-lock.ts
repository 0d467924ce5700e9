/**
 * The lock `bouncer init` holds on a client config while it writes it: `<file>.bouncer-lock`, created
 * with `O_EXCL`, so that two runs on one file take turns (the second waits, then finds the file
 * changed and refuses). A lock whose holder no longer runs on this host is taken over at once, any
 * other once it is 2 minutes old. Edge (file system).
 *
 * Source: SPEC §5.2 ("refuses if the file changed since it was read").
 * @module
 */

import { BouncerError } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { acquireLockWaiting, type HeldLock } from "../platform/lock-file.ts";

/** How long a run waits for another run's lock on the same file. */
export const CONFIG_LOCK_WAIT_MS = 15_000;

/**
 * When a lock counts as a crashed run's and is taken over: well past the wait, so that a live run
 * still writing (a slow disk) never loses its lock to a waiting one (the holder does not refresh it).
 * A lock whose process is gone (same host and PID namespace) is taken over at once.
 */
const CONFIG_LOCK_STALE_MS = 120_000;

/** Options of {@link lockConfig}. */
export interface ConfigLockOptions {
  /** How long to wait, in milliseconds. */
  readonly waitMs: number;
  /** Stops the wait (SIGINT, SIGTERM): the write is then refused as interrupted. */
  readonly signal?: AbortSignal;
  /** Called once when another live run holds the lock and the wait begins, with the lock's path. */
  readonly onWait?: (lockPath: string) => void;
}

/**
 * Takes a config file's lock, waiting for another run to finish with it.
 *
 * Source: SPEC §5.2.
 * @param file - The path as given (for messages) and the real file (the lock is beside it).
 * @param options - The wait, what stops it and what to call when it begins.
 * @returns The held lock.
 * @throws {BouncerError} `CONFIG_LOCKED` after the wait, `INTERRUPTED` when the signal stopped it,
 *   `CONFIG_UNWRITABLE` when the lock file cannot be created.
 */
export async function lockConfig(
  file: { readonly path: string; readonly realPath: string },
  options: ConfigLockOptions,
): Promise<HeldLock> {
  const lockPath = `${file.realPath}.bouncer-lock`;
  let lock: HeldLock | undefined;
  try {
    lock = await acquireLockWaiting(lockPath, {
      waitMs: options.waitMs,
      staleMs: CONFIG_LOCK_STALE_MS,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      onWait: () => options.onWait?.(lockPath),
    });
  } catch (error) {
    throw new BouncerError(
      "CONFIG_UNWRITABLE",
      `Cannot write "${file.path}": cannot create its lock file "${lockPath}": ${describeFsError(error)}`,
      { cause: error },
    );
  }
  if (lock !== undefined) return lock;
  if (options.signal?.aborted === true) throw interruptedError(file.path);
  throw new BouncerError(
    "CONFIG_LOCKED",
    `Cannot write "${file.path}": another bouncer init is writing it (lock file "${lockPath}"): try again (a lock left by a run that is no longer running is taken over at once, or once it is 2 minutes old when its run cannot be looked up)`,
  );
}

/**
 * The error of a write stopped by a signal (nothing of it is left: no temp file, backup or lock).
 *
 * Source: SPEC §5.2.
 * @param file - The config's path as given.
 * @returns `INTERRUPTED`, naming the file.
 */
export function interruptedError(file: string): BouncerError {
  return new BouncerError("INTERRUPTED", `Cannot write "${file}": stopped by a signal: not written`);
}
