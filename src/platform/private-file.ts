/**
 * Files that hold secrets stay private: an existing audit log or session file that group or others
 * may read is narrowed to its owner (SPEC §3.5, §3.6: mode 0600). Edge (file system).
 *
 * Source: SPEC §3.5 ("mode 0600"), §3.6 ("mode 0600").
 * @module
 */

import { fchmodSync, fstatSync } from "node:fs";

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
