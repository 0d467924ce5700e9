/**
 * What `bouncer pins` does to the pin files under `$BOUNCER_HOME/pins`: list them (per server name,
 * as recorded inside each file — the file names are identity hashes) and forget a server (removing
 * its file); accepting pending definitions is `pin-accepting.ts`. Edge (file system).
 *
 * Source: SPEC §2.2 ("Changed tool": `bouncer pins accept SERVER TOOL`), §5.7.
 * @module
 */

import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { renderUntrusted, shellWord } from "../engine/index.ts";
import { BouncerError, errorCode } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { readRegularTextFile } from "../platform/regular-file.ts";
import { pinsDir, readPinFile } from "./file-pin-store.ts";
import type { PinFile } from "./pin-file.ts";
import { checkIdentityId, describeIdentities, hasIdentity, identityId } from "./pin-identities.ts";
import { withPinLock } from "./pin-lock.ts";

/** One pin file as listed. */
export interface ListedPins {
  /** The file's absolute path. */
  readonly path: string;
  readonly file: PinFile;
}

/**
 * One pin file that could not be read: why (a message naming it), and the server it names when its
 * `server` field can still be read (valid JSON of another hash scheme, a bad hash) — what
 * `pins forget` may remove.
 */
export interface UnreadablePins {
  readonly path: string;
  readonly problem: string;
  readonly server?: string;
}

/** The result of listing: the files read, and every file that could not be read (named). */
export interface PinListing {
  readonly servers: readonly ListedPins[];
  readonly unreadable: readonly UnreadablePins[];
}

/**
 * The `server` field of a pin file that does not parse as a pin file, when it can still be read.
 * @param path - The file.
 * @returns The server name, or undefined.
 */
function serverNamedBy(path: string): string | undefined {
  try {
    const value: unknown = JSON.parse(readRegularTextFile(path));
    const server =
      typeof value === "object" && value !== null ? (value as { server?: unknown }).server : undefined;
    return typeof server === "string" ? server : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads every pin file, optionally only one server's.
 *
 * Source: SPEC §5.7, STYLE #14 (a corrupt file is reported by name, never skipped silently).
 * @param home - Bouncer's home directory.
 * @param server - Only files of this `--upstream-name`.
 * @returns The files, sorted by server name then path, and the files that could not be read.
 */
export function listPins(home: string, server?: string): PinListing {
  const dir = pinsDir(home);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { servers: [], unreadable: [] };
    throw new BouncerError("PINS_UNREADABLE", `Cannot list pins in "${dir}": ${describeFsError(error)}`, {
      cause: error,
    });
  }
  const servers: ListedPins[] = [];
  const unreadable: UnreadablePins[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    try {
      const read = readPinFile(path);
      if (read !== undefined && (server === undefined || read.file.server === server)) {
        servers.push({ path, file: read.file });
      }
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      const named = serverNamedBy(path);
      unreadable.push(named === undefined ? { path, problem } : { path, problem, server: named });
    }
  }
  servers.sort((a, b) => a.file.server.localeCompare(b.file.server) || a.path.localeCompare(b.path));
  return { servers, unreadable };
}

/**
 * A listing cut down to the identity an `--id` names.
 *
 * Source: SPEC §5.7.
 * @param listing - The server's files.
 * @param id - The checked id, or undefined for all.
 * @returns The files of that identity.
 */
export function ofIdentity(listing: PinListing, id: string | undefined): PinListing {
  if (id === undefined) return listing;
  return {
    servers: listing.servers.filter(({ path }) => hasIdentity(path, id)),
    unreadable: listing.unreadable.filter(({ path }) => hasIdentity(path, id)),
  };
}

/**
 * Forgets a server: removes its pin file, also one that cannot be read as pins but still names it
 * (the next session pins it again on first sight). A name pinned under several identities (another
 * command or cwd) is refused, naming each, unless `id` chooses one. Each file is removed under its
 * lock, so a running session's write that read the file just before never puts it back: that
 * session finds it gone and keeps its pins in memory.
 *
 * Source: SPEC §5.7.
 * @param home - Bouncer's home directory.
 * @param server - The server name.
 * @param options - `id`: the file id of the identity to forget (`--id`).
 * @returns The removed files.
 * @throws {BouncerError} `USAGE` for a bad `--id`; `PINS_UNKNOWN_SERVER` when no file names that
 *   server (of that id; a file that cannot be read as pins counts when its `server` field still
 *   names it); `PINS_SEVERAL_IDENTITIES` when several identities have that name and no `id`
 *   chooses; `PINS_LOCKED` or `PINS_UNWRITABLE` when a file's lock cannot be taken or the file
 *   cannot be removed.
 */
export async function forgetServer(
  home: string,
  server: string,
  options: { readonly id?: string } = {},
): Promise<string[]> {
  const action = `forget server ${JSON.stringify(server)}`;
  const id = options.id === undefined ? undefined : checkIdentityId(options.id, action);
  const listing = ofIdentity(listPins(home, server), id);
  const files = [
    ...listing.servers,
    ...listing.unreadable.filter((file) => file.server === server).map(({ path }) => ({ path })),
  ];
  const paths = files.map(({ path }) => path);
  if (files.length > 1) {
    throw new BouncerError(
      "PINS_SEVERAL_IDENTITIES",
      `Cannot ${action}: it is pinned under ${files.length} identities (another command or working directory): ${describeIdentities(files)}: choose one with --id, e.g. bouncer pins forget --id ${identityId(paths[0] ?? "")} -- ${shellWord(server) ?? renderUntrusted(server)}; nothing was removed`,
    );
  }
  if (paths.length === 0 && id !== undefined) {
    throw new BouncerError("PINS_UNKNOWN_SERVER", `Cannot ${action}: it has no pins of id ${id}`);
  }
  if (paths.length === 0) {
    const [first] = listing.unreadable;
    const more =
      first === undefined
        ? ""
        : `; ${listing.unreadable.length} pin file(s) name no server that can be read, remove them by hand: ${first.problem}`;
    throw new BouncerError("PINS_UNKNOWN_SERVER", `Cannot forget server "${server}": it has no pins${more}`);
  }
  const removed: string[] = [];
  for (const path of paths) {
    const gone = await withPinLock(path, { verb: "remove", action: () => removeIfThere(path) });
    if (gone) removed.push(path);
  }
  return removed;
}

/**
 * Removes a file.
 * @param path - The file.
 * @returns False when it was not there.
 * @throws {BouncerError} `PINS_UNWRITABLE`.
 */
function removeIfThere(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw new BouncerError("PINS_UNWRITABLE", `Cannot remove pins "${path}": ${describeFsError(error)}`, {
      cause: error,
    });
  }
}
