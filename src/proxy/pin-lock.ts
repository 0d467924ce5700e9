/**
 * The lock of one pin file: `<file>.lock`, taken with `O_EXCL` by every writer of the file (a
 * session's store, `bouncer pins accept`) and by `bouncer pins forget` before it removes it, so that
 * a writer that read the file never renames its copy back over a removal. Edge (file system).
 *
 * Source: SPEC §2.2 ("written atomically (temp file + rename) under a lock file"), §5.7.
 * @module
 */

import { BouncerError } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { acquireLockWaiting } from "../platform/lock-file.ts";
import { ensureParentDir } from "../platform/parent-dir.ts";

/** How long a pin file's lock is waited for (a lock older than 10 s is taken over). */
const LOCK_WAIT_MS = 15_000;

/**
 * Runs `action` while holding a pin file's lock, waiting up to 15 s for another holder; the lock is
 * released when `action` ends, whether it returns or throws.
 *
 * Source: SPEC §2.2, §5.7.
 * @param path - The pin file (its folder is created when `verb` is `write`).
 * @param options - What is done to the file (`write` or `remove`, for the error messages) and the
 *   action to run under the lock.
 * @returns What `action` returns.
 * @throws {BouncerError} `PINS_LOCKED` when the lock is still held after the wait; `PINS_UNWRITABLE`
 *   when the folder or the lock file cannot be created; whatever `action` throws.
 */
export async function withPinLock<T>(
  path: string,
  options: { readonly verb: "write" | "remove"; readonly action: () => T | Promise<T> },
): Promise<T> {
  const lockPath = `${path}.lock`;
  let lock: Awaited<ReturnType<typeof acquireLockWaiting>>;
  try {
    if (options.verb === "write") ensureParentDir(path);
    lock = await acquireLockWaiting(lockPath, { waitMs: LOCK_WAIT_MS });
  } catch (error) {
    throw new BouncerError(
      "PINS_UNWRITABLE",
      `Cannot ${options.verb} pins "${path}": ${describeFsError(error)}`,
      {
        cause: error,
      },
    );
  }
  if (lock === undefined) {
    throw new BouncerError(
      "PINS_LOCKED",
      `Cannot ${options.verb} pins "${path}": the lock "${lockPath}" is held`,
    );
  }
  try {
    return await options.action();
  } finally {
    lock.release();
  }
}
