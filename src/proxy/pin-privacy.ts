/**
 * Whether a pin file, and the folder that holds it, are the user's own: what `file-pin-store.ts`
 * checks before it trusts what they say. Edge (POSIX modes and owners; nothing on Windows, where the
 * user profile's ACL keeps them).
 *
 * Source: SPEC §2.2 (the pin store), §3.5 (fail closed).
 * @module
 */

import { BouncerError } from "../platform/errors.ts";

/**
 * Refuses a pin file, or the folder that holds it, that other users may change (POSIX): one with
 * the group or world write bit, or owned by another user than the one Bouncer runs as (or root).
 * Whoever can change the file, or replace it in its folder, decides which tool definitions are
 * trusted. Bouncer writes its pin files 0600 in a 0700 folder; one made writable by hand (or by a
 * umask), or someone else's, is an error naming the fix, never silently used.
 *
 * Source: SPEC §2.2 (the pin store), §3.5 (fail closed); review of `bouncer pins` (a pin file
 * owned by another user, and a world-writable pins folder, were used without a word).
 * @param path - The pin file or its folder.
 * @param stats - Its `stat` mode and owner.
 * @param what - `Pin file` or `Pins folder`, for the message.
 * @throws {BouncerError} `PINS_UNSAFE`.
 */
export function assertPrivate(
  path: string,
  stats: { readonly mode: number; readonly uid: number },
  what = "Pin file",
): void {
  if (process.platform === "win32") return;
  const quoted = `'${path.replaceAll("'", "'\\''")}'`;
  if ((stats.mode & 0o022) !== 0) {
    const octal = (stats.mode & 0o777).toString(8).padStart(3, "0");
    const private_ = what === "Pin file" ? "600" : "700";
    throw new BouncerError(
      "PINS_UNSAFE",
      `${what} "${path}" can be written by other users (mode ${octal}), who could change which tool definitions are trusted: make it private with chmod ${private_} ${quoted}`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid && stats.uid !== 0) {
    throw new BouncerError(
      "PINS_UNSAFE",
      `${what} "${path}" belongs to another user (uid ${stats.uid}, not ${uid}), who could change which tool definitions are trusted: remove it (its server is then pinned again on first sight), or give it to this user with chown`,
    );
  }
}
