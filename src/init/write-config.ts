/**
 * Reading and writing client config files safely: the bytes read are kept, the file must still hold
 * exactly those bytes before the backup and again right before the rename (else the write is refused
 * and nothing is left behind), a timestamped backup is written beside the file with the same
 * permissions, and the new text replaces the file atomically (`replaceFile`: temp file in the same
 * folder written to its last byte, fsync, the last look, rename; mode and owner kept), then the
 * folder is synced: a full disk is an error naming the file, never a cut-off config. A symlinked config is written through to its target. A byte-order mark is kept. Edge.
 *
 * Source: SPEC §5.2 ("Atomic write ..., file mode kept, timestamped backup beside the file; refuses if
 * the file changed since it was read"), field case F13, STYLE #14, #16.
 * @module
 */

import { lstat, readlink, realpath, rm } from "node:fs/promises";
import { renderUntrusted } from "../engine/index.ts";
import { BouncerError, errorCode, isBouncerError } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { decodeUtf8Text, readRegularFile } from "../platform/regular-file.ts";
import { replaceFile, type WriteChunk, writeNewFile } from "../platform/replace-file.ts";
import { CONFIG_LOCK_WAIT_MS, interruptedError, lockConfig } from "./config-lock.ts";
import { stillHolds, unchangedNow } from "./config-unchanged.ts";

/** A config file as read. */
export interface ConfigFileRead {
  /** The path as given (absolute). */
  readonly path: string;
  /** The file the path leads to (symlinks resolved): what is backed up and replaced. */
  readonly realPath: string;
  /** The exact bytes read. */
  readonly bytes: Uint8Array;
  /** The text without a byte-order mark. */
  readonly text: string;
  /** Whether the file starts with a UTF-8 byte-order mark. */
  readonly bom: boolean;
  /** Permission bits of the file. */
  readonly mode: number;
  /** Owner of the file (kept by the replace where the process may set it). */
  readonly owner: { readonly uid: number; readonly gid: number };
  /**
   * The file's link count: above 1, other names (hard links) share it, and the atomic replace (a new
   * file renamed over this name) leaves them with the old content.
   */
  readonly links: number;
}

/**
 * Why a config file that `realpath` did not find is missing: no such file, or a symbolic link (of a
 * chain) whose target does not exist — named, since the link itself is there to see.
 * @param file - The path given.
 * @returns The words after the file's name.
 */
async function missingWhy(file: string): Promise<string> {
  try {
    if (!(await lstat(file)).isSymbolicLink()) return "no such file";
    return `it is a symbolic link to ${renderUntrusted(await readlink(file))}, which does not exist`;
  } catch {
    return "no such file";
  }
}

/**
 * Reads a config file, refusing anything that is not UTF-8 text.
 *
 * Source: SPEC §5.2.
 * @param file - An absolute path.
 * @returns The file's bytes, text and mode.
 * @throws {BouncerError} `CONFIG_NOT_FOUND` when it does not exist, `CONFIG_UNREADABLE` when it cannot
 *   be read, `CONFIG_INVALID` when it is not UTF-8.
 */
export async function readConfigFile(file: string): Promise<ConfigFileRead> {
  let realPath: string;
  let bytes: Uint8Array;
  let mode: number;
  let owner: { uid: number; gid: number };
  let links: number;
  try {
    realPath = await realpath(file);
    const read = readRegularFile(realPath); // a FIFO is refused, not waited on
    bytes = new Uint8Array(read.bytes);
    mode = read.stats.mode & 0o7777;
    owner = { uid: read.stats.uid, gid: read.stats.gid };
    links = read.stats.nlink;
  } catch (error) {
    if (errorCode(error) === "ENOENT")
      throw new BouncerError(
        "CONFIG_NOT_FOUND",
        `Cannot read client config "${file}": ${await missingWhy(file)}`,
      );
    throw new BouncerError(
      "CONFIG_UNREADABLE",
      `Cannot read client config "${file}": ${describeFsError(error)}`,
      {
        cause: error,
      },
    );
  }
  let text: string;
  try {
    text = decodeUtf8Text(bytes);
  } catch (error) {
    throw new BouncerError(
      "CONFIG_INVALID",
      `Cannot read client config "${file}": ${describeFsError(error)}`,
      {
        cause: error,
      },
    );
  }
  const bom = text.startsWith("\uFEFF");
  return { path: file, realPath, bytes, text: bom ? text.slice(1) : text, bom, mode, owner, links };
}

/** Options of {@link writeConfigFile}. */
export interface WriteConfigOptions {
  /** The clock value for the backup's name. */
  readonly now: Date;
  /** Runs once the backup is written (a test seam for a write landing then). */
  readonly afterBackup?: () => Promise<void>;
  /** Runs after the backup, right before the temp file is written, under the lock (a test seam). */
  readonly beforeReplace?: () => Promise<void>;
  /** Runs once the temp file is written and synced, right before the last look (a test seam). */
  readonly beforeLastLook?: () => Promise<void>;
  /** The write call (a test seam for a file system that takes fewer bytes than given). */
  readonly write?: WriteChunk;
  /** How long to wait for another run's lock, in milliseconds (default 15 s). */
  readonly lockWaitMs?: number;
  /**
   * Aborted on SIGINT or SIGTERM (`write-signals.ts`): the write stops at its next step (the lock
   * wait, after the backup, right before the rename), removes its temp file and backup, releases the
   * lock and throws `INTERRUPTED`. Once the rename is done, the write is whole and is reported.
   */
  readonly signal?: AbortSignal;
  /** Called once when another run holds the lock and the wait for it begins, with the lock's path. */
  readonly onLockWait?: (lockPath: string) => void;
}

/**
 * Writes a new text over a config file read earlier: backup first, then one atomic replace. From
 * the first look at the file to the rename, the run holds `<file>.bouncer-lock` (created with
 * `O_EXCL`, removed after), so two `bouncer init` runs on one file never both pass the "unchanged"
 * check and rename in turn (the first one's wrap lost): the second waits for the lock, then finds
 * the file changed and refuses. A lock whose run is gone is taken over (`config-lock.ts`).
 *
 * Source: SPEC §5.2 ("refuses if the file changed since it was read").
 * @param read - The file as read (its bytes must still be on disk).
 * @param text - The new text (without a byte-order mark; the old one is restored).
 * @param options - The clock, test seams, and how long to wait for the lock.
 * @returns The backup's path.
 * @throws {BouncerError} `CONFIG_CHANGED` when the file changed since it was read (nothing written),
 *   `CONFIG_UNREADABLE` when it can no longer be read to check that (nothing written),
 *   `CONFIG_LOCKED` when another run holds the lock longer than the wait, `INTERRUPTED` when
 *   `options.signal` was aborted before the rename (nothing written, nothing left),
 *   `CONFIG_UNWRITABLE` when
 *   the lock, the backup or the write fails (a full disk included: the file is then untouched, no
 *   temp file and no backup left).
 */
export async function writeConfigFile(
  read: ConfigFileRead,
  text: string,
  options: WriteConfigOptions,
): Promise<{ backup: string }> {
  const lock = await lockConfig(read, {
    waitMs: options.lockWaitMs ?? CONFIG_LOCK_WAIT_MS,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onLockWait === undefined ? {} : { onWait: options.onLockWait }),
  });
  try {
    return await writeLocked(read, text, options);
  } finally {
    lock.release();
  }
}

/**
 * The write itself, under the lock: check, backup, replace — with the last look inside the replace,
 * once the temp file is written and synced, right before its rename.
 * @param read - The file as read.
 * @param text - The new text.
 * @param options - The clock and test seams.
 * @returns The backup's path.
 * @throws {BouncerError} As {@link writeConfigFile}.
 */
async function writeLocked(
  read: ConfigFileRead,
  text: string,
  options: WriteConfigOptions,
): Promise<{ backup: string }> {
  const changed = (): BouncerError =>
    new BouncerError(
      "CONFIG_CHANGED",
      `Cannot write "${read.path}": it changed since it was read: run bouncer init again`,
    );
  // A function, not a narrowed property: a signal may come during any await below.
  const stopped = (): boolean => options.signal?.aborted === true;
  if (stopped()) throw interruptedError(read.path);
  if (!(await stillHolds(read))) throw changed();
  const backup = await writeBackup(read, {
    now: options.now,
    ...(options.write === undefined ? {} : { write: options.write }),
  });
  await options.afterBackup?.();
  await options.beforeReplace?.();
  if (stopped()) {
    await rm(backup, { force: true }).catch(() => undefined);
    throw interruptedError(read.path);
  }
  try {
    const bytes = new TextEncoder().encode(`${read.bom ? "\uFEFF" : ""}${text}`);
    await replaceFile(read.realPath, bytes, {
      mode: read.mode,
      owner: read.owner,
      ...(options.write === undefined ? {} : { write: options.write }),
      // The last look, once the temp file is written and synced, right before the rename: a client
      // that saved the file meanwhile (Claude Code rewrites ~/.claude.json often; writing and syncing
      // 7 MB takes 13-30 ms) keeps its write. What is left is the rename itself: another bouncer init
      // waits for the lock, a client does not.
      beforeRename: async () => {
        await options.beforeLastLook?.();
        if (stopped()) throw interruptedError(read.path);
        if (!(await unchangedNow(read))) throw changed();
      },
    });
  } catch (error) {
    // Nothing was replaced: a backup of an untouched file would only be clutter beside it.
    await rm(backup, { force: true }).catch(() => undefined);
    if (isBouncerError(error)) throw error;
    throw new BouncerError("CONFIG_UNWRITABLE", `Cannot write "${read.path}": ${describeFsError(error)}`, {
      cause: error,
    });
  }
  return { backup };
}

/**
 * The backup's name: `<file>.bouncer-backup-<UTC timestamp>` (with `-1`, `-2` ... if taken).
 *
 * Source: SPEC §5.2.
 * @param file - The config file.
 * @param now - The clock value.
 * @param attempt - 0 for the plain name.
 * @returns The backup path.
 */
export function backupPath(file: string, now: Date, attempt = 0): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(".", "");
  return `${file}.bouncer-backup-${stamp}${attempt === 0 ? "" : `-${attempt}`}`;
}

/**
 * Writes the bytes read next to the file, never over an existing file, with the original's
 * permission bits and (where the process may set it: `sudo bouncer init` on a user's config) owner,
 * so whoever owns the config can read its backup. The bytes are the ones read (and checked to be on disk still), not a copy made
 * now. A backup that cannot be written in full is removed, and the error names it.
 * @param read - The file as read.
 * @param options - The clock value and the write call.
 * @returns The backup path.
 * @throws {BouncerError} `CONFIG_UNWRITABLE`, naming the backup file.
 */
async function writeBackup(
  read: ConfigFileRead,
  options: { readonly now: Date; readonly write?: WriteChunk },
): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const target = backupPath(read.realPath, options.now, attempt);
    try {
      await writeNewFile(target, read.bytes, {
        mode: read.mode,
        owner: read.owner,
        ...(options.write === undefined ? {} : { write: options.write }),
      });
      return target;
    } catch (error) {
      if (errorCode(error) === "EEXIST" && attempt < 100) continue;
      throw new BouncerError(
        "CONFIG_UNWRITABLE",
        `Cannot write "${read.path}": cannot write its backup "${target}": ${describeFsError(error)}`,
        { cause: error },
      );
    }
  }
}
