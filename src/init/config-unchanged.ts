/**
 * Whether a client config still holds the bytes `init` read from it: looked at before the backup
 * and, once the temp file is written and synced, right before the rename (also by `stat` around the
 * comparison, so a save landing while the bytes are compared is seen). Edge (file system).
 *
 * Source: SPEC §5.2 ("refuses if the file changed since it was read").
 * @module
 */

import { readFile, stat } from "node:fs/promises";
import { BouncerError, errorCode } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import type { ConfigFileRead } from "./write-config.ts";

/**
 * The last look right before the rename: the file holds the bytes read, and nothing touched it while
 * they were compared (its device, inode, size, mtime and ctime, in nanoseconds, are the same after
 * the comparison as before it). From the second `stat` to the rename is then the only window left.
 *
 * Source: SPEC §5.2; the review's racer (a save while the temp file was written).
 * @param read - The file as read.
 * @returns True when unchanged; false when changed or gone.
 * @throws {BouncerError} `CONFIG_UNREADABLE` when it can no longer be read ({@link stillHolds}).
 */
export async function unchangedNow(read: ConfigFileRead): Promise<boolean> {
  const before = await fileIdentity(read.realPath);
  if (!(await stillHolds(read))) return false;
  return before !== undefined && (await fileIdentity(read.realPath)) === before;
}

/**
 * What changes when a file is written in place or replaced by a rename.
 * @param file - A path.
 * @returns `dev:ino:size:mtimeNs:ctimeNs`, or undefined when it cannot be read.
 */
async function fileIdentity(file: string): Promise<string | undefined> {
  const stats = await stat(file, { bigint: true }).catch(() => undefined);
  if (stats === undefined) return undefined;
  return [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(":");
}

/**
 * Whether the file still holds exactly the bytes it held when read.
 *
 * Source: SPEC §5.2.
 * @param read - The file as read.
 * @returns True when unchanged; false when changed or gone.
 * @throws {BouncerError} `CONFIG_UNREADABLE` when it can no longer be read (its permissions changed:
 *   `permission denied (EACCES)`), which is not a change of its content.
 */
export async function stillHolds(read: ConfigFileRead): Promise<boolean> {
  let current: Uint8Array;
  try {
    current = new Uint8Array(await readFile(read.realPath));
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw new BouncerError(
      "CONFIG_UNREADABLE",
      `Cannot write "${read.path}": cannot read it again to check that it is unchanged: ${describeFsError(error)}`,
      { cause: error },
    );
  }
  return sameBytes(current, read.bytes);
}

/**
 * Byte equality.
 * @param a - Some bytes.
 * @param b - Other bytes.
 * @returns True when equal.
 */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
