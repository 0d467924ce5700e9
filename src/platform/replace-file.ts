/**
 * Replacing a file atomically, with every byte accounted for: the new content goes to a temp file
 * beside the target (a random name, created with `O_EXCL`), written in a loop until the last byte is
 * on disk — a write that takes fewer bytes than it was given (a full disk: `write(2)` returns a short
 * count before it fails with `ENOSPC`) is continued, and one that takes none is an error — then the
 * mode and owner are set, the file is synced and renamed over the target, and the folder is synced.
 * On any failure the temp file is removed and the target is untouched; temp files of the same
 * target that a killed write left (an hour old or more) are removed after a success. Edge (file
 * system).
 *
 * `write-file-atomic` (6.0.0 and 8.0.0 alike) makes one `write` call and ignores its count, so under
 * Bun a full disk left a cut-off file renamed over the config with no error.
 *
 * Source: SPEC §5.2 ("Atomic write (temp file in the same folder, fsync, rename), file mode kept");
 * the brief ("never a half-written file").
 * @module
 */

import { randomBytes } from "node:crypto";
import { type FileHandle, lstat, open, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { errorCode } from "./errors.ts";
import { syncWhereSupported } from "./private-file.ts";

/**
 * One write call: writes up to `length` bytes of `buffer` from `offset`, at `position` in the file.
 * @returns How many bytes it took (may be fewer than `length`).
 */
export type WriteChunk = (
  handle: FileHandle,
  chunk: {
    readonly buffer: Uint8Array;
    readonly offset: number;
    readonly length: number;
    readonly position: number;
  },
) => Promise<number>;

/**
 * The runtime's write: `FileHandle.write`, its count returned as it is.
 * @param handle - An open file.
 * @param chunk - What to write and where.
 * @returns The bytes written.
 */
async function systemWrite(
  handle: FileHandle,
  chunk: {
    readonly buffer: Uint8Array;
    readonly offset: number;
    readonly length: number;
    readonly position: number;
  },
): Promise<number> {
  const { bytesWritten } = await handle.write(chunk.buffer, chunk.offset, chunk.length, chunk.position);
  return bytesWritten;
}

/**
 * Writes all of `bytes` from the start of an open file, continuing after short writes.
 *
 * Source: the brief ("never a half-written file").
 * @param handle - A file open for writing (empty).
 * @param bytes - The content.
 * @param write - The write call (a test seam; default `FileHandle.write`).
 * @throws {Error} The write's own error (`ENOSPC`, `EIO`...), or one with code `ESHORTWRITE` when a
 *   write takes no bytes at all (`the file system took only N of M bytes`).
 */
export async function writeWhole(
  handle: FileHandle,
  bytes: Uint8Array,
  write: WriteChunk = systemWrite,
): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const taken = await write(handle, {
      buffer: bytes,
      offset: done,
      length: bytes.length - done,
      position: done,
    });
    if (!Number.isInteger(taken) || taken <= 0 || taken > bytes.length - done) {
      throw Object.assign(new Error(`the file system took only ${done} of ${bytes.length} bytes`), {
        code: "ESHORTWRITE",
      });
    }
    done += taken;
  }
}

/** Options of {@link replaceFile}. */
export interface ReplaceOptions {
  /** Permission bits of the new file. */
  readonly mode: number;
  /** Owner to give the new file (ignored where the process may not: not root, Windows). */
  readonly owner?: { readonly uid: number; readonly gid: number };
  /** The write call (a test seam). */
  readonly write?: WriteChunk;
  /**
   * The last look before the rename: runs once the temp file is written, synced and closed, right
   * before it is renamed over the target. Throwing cancels the replace (the temp file is removed, the
   * target untouched, the error rethrown as it is): `init` checks here that the config still holds
   * the bytes it read, so a client's save during the temp file's write is not overwritten.
   */
  readonly beforeRename?: () => Promise<void>;
}

/**
 * Replaces `target` with `bytes` atomically: temp file beside it, whole write, mode and owner, fsync,
 * the caller's last look ({@link ReplaceOptions.beforeRename}), rename, folder sync. `target` must be
 * the real file (symlinks resolved): a link would be replaced by a file.
 *
 * Source: SPEC §5.2.
 * @param target - The file to replace (its folder must be writable).
 * @param bytes - The new content.
 * @param options - Mode, owner, the write call and the pre-rename check.
 * @throws {Error} The file system's error (or `ESHORTWRITE`), or what `beforeRename` threw; the
 *   target is then unchanged and the temp file removed.
 */
export async function replaceFile(target: string, bytes: Uint8Array, options: ReplaceOptions): Promise<void> {
  const temp = `${target}.bouncer-tmp-${randomBytes(6).toString("hex")}`;
  const handle = await open(temp, "wx", 0o600);
  let closed = false;
  try {
    await writeWhole(handle, bytes, options.write);
    await handle.chmod(options.mode);
    if (options.owner !== undefined)
      await handle.chown(options.owner.uid, options.owner.gid).catch(ignoreOwnerError);
    await handle.sync();
    closed = true;
    await handle.close();
    await options.beforeRename?.();
    await rename(temp, target);
  } catch (error) {
    if (!closed) await handle.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncDirectory(path.dirname(target));
  await removeStaleTemps(target, { now: Date.now() });
}

/** The suffix `replaceFile` gives its temp files (12 hex digits follow). */
const TEMP_SUFFIX = /^\.bouncer-tmp-[0-9a-f]{12}$/;
/** A temp file untouched for this long was left by a write that was killed (SIGKILL, power loss). */
export const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Removes the temp files an earlier {@link replaceFile} of `target` left behind when it was killed
 * before it could clean up (SIGKILL: no handler runs): regular files named `<target>.bouncer-tmp-`
 * and 12 hex digits, owned by this user, last modified {@link STALE_TEMP_MS} or more before `now`
 * (a write in progress is younger: its folder's lock holder writes within seconds). Best effort:
 * any failure leaves the file.
 *
 * Source: the brief ("lose nothing": a killed `init` left a 0600 copy of the new config beside it);
 * review of `init`.
 * @param target - The file replaced.
 * @param clock - `now` in ms since the epoch.
 * @returns How many files were removed.
 */
export async function removeStaleTemps(target: string, clock: { readonly now: number }): Promise<number> {
  const folder = path.dirname(target);
  const base = path.basename(target);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return 0;
  }
  let removed = 0;
  const uid = process.getuid?.();
  for (const name of names) {
    if (!name.startsWith(base) || !TEMP_SUFFIX.test(name.slice(base.length))) continue;
    const file = path.join(folder, name);
    try {
      const stats = await lstat(file);
      if (!stats.isFile() || clock.now - stats.mtimeMs < STALE_TEMP_MS) continue;
      if (uid !== undefined && stats.uid !== uid) continue;
      await rm(file);
      removed++;
    } catch {
      // Gone already, or not ours to remove: left as it is.
    }
  }
  return removed;
}

/**
 * Creates `target` (never over an existing file: `O_EXCL`) holding `bytes`, with the mode (and, where
 * the process may set it, the owner) given, and syncs it. On a failure after the file was created (a
 * full disk), the partial file is removed.
 *
 * Source: SPEC §5.2 ("timestamped backup beside the file"); the brief ("never a half-written file").
 * @param target - The new file.
 * @param bytes - Its content.
 * @param options - Its mode, its owner (ignored where the process may not set it: not root,
 *   Windows) and the write call (a test seam).
 * @throws {Error} The file system's error (`EEXIST` when the name is taken: nothing is removed then).
 */
export async function writeNewFile(
  target: string,
  bytes: Uint8Array,
  options: {
    readonly mode: number;
    readonly owner?: { readonly uid: number; readonly gid: number };
    readonly write?: WriteChunk;
  },
): Promise<void> {
  const handle = await open(target, "wx", 0o600);
  let closed = false;
  try {
    await writeWhole(handle, bytes, options.write);
    await handle.chmod(options.mode);
    if (options.owner !== undefined)
      await handle.chown(options.owner.uid, options.owner.gid).catch(ignoreOwnerError);
    await handle.sync();
    closed = true;
    await handle.close();
  } catch (error) {
    if (!closed) await handle.close().catch(() => undefined);
    await rm(target, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * Lets a `chown` the process may not make pass (not root: `EPERM`; some file systems: `EINVAL`,
 * `ENOSYS`), as `write-file-atomic` does; any other error is thrown.
 * @param error - What `chown` threw.
 * @throws The error when it is not one of those.
 */
function ignoreOwnerError(error: unknown): void {
  const code = errorCode(error);
  if (code === "EPERM" || code === "EINVAL" || code === "ENOSYS") return;
  throw error;
}

/**
 * Syncs a folder so a rename in it is durable. A folder that cannot be opened (Windows) or a file
 * system without folder fsync is skipped; any other failure of the sync (`EIO`) is thrown, so a
 * write is never reported whole when it may not be.
 *
 * Source: SPEC §5.2 (fsync).
 * @param dir - The folder.
 * @throws {Error} What `fsync` threw other than "not supported" (see `syncWhereSupported`).
 */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r").catch(() => undefined);
  if (handle === undefined) return;
  try {
    syncWhereSupported(handle.fd);
  } finally {
    await handle.close();
  }
}
