/**
 * The pin files under `$BOUNCER_HOME/pins` as `bouncer pins` sees them: listed per server name (as
 * recorded inside each file — the file names are identity hashes), one identity of a name chosen
 * (the same `--upstream-name` run with another command or in another working directory has pin
 * files of its own, named by a file id: the first 8 hex digits of the identity hash), and a server
 * forgotten. Accepting is `pins-accept.ts`, showing `pins-view.ts`. Edge (file system).
 *
 * Source: SPEC §2.2 ("Server identity"; "Changed tool": `bouncer pins accept SERVER TOOL`), §5.7.
 * @module
 */

import { readdirSync, unlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { errorText, renderUntrusted, safeName, shellWord } from "../engine/index.ts";
import { BouncerError, errorCode } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { readRegularTextFile } from "../platform/regular-file.ts";
import { pinsDir, readPinFile } from "./file-pin-store.ts";
import type { PinFile, PinRecord } from "./pin-file.ts";
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
 * @throws {BouncerError} `PINS_UNREADABLE` when the folder cannot be listed.
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
      const problem = errorText(error);
      const named = serverNamedBy(path);
      unreadable.push(named === undefined ? { path, problem } : { path, problem, server: named });
    }
  }
  servers.sort((a, b) => a.file.server.localeCompare(b.file.server) || a.path.localeCompare(b.path));
  return { servers, unreadable };
}

/**
 * The pin a pending definition would replace: the pin of the same tool.
 * @param tools - The file's pins.
 * @param record - The pending definition.
 * @returns `{ replaced }`, or `{}` for a new tool.
 */
export function replacing(tools: readonly PinRecord[], record: PinRecord): { readonly replaced?: PinRecord } {
  const replaced = tools.find((tool) => tool.name === record.name);
  return replaced === undefined ? {} : { replaced };
}

/**
 * The file id of an identity, as `pins list` shows it in brackets.
 *
 * Source: SPEC §5.7.
 * @param path - The pin file (`<identity-hash>.json`).
 * @returns Its first 8 hex digits.
 */
export function identityId(path: string): string {
  return basename(path, ".json").slice(0, 8);
}

/**
 * A server as `bouncer pins` names it to a person: its name, rendered safely, and when the name has
 * several identities, the file id in brackets (`mail [0a1b2c3d]`).
 *
 * Source: SPEC §5.7.
 * @param server - The server name (untrusted).
 * @param path - The identity's pin file.
 * @param shared - Whether the name has several identities (or one was chosen with `--id`).
 * @returns The label.
 */
export function identityLabel(server: string, path: string, shared: boolean): string {
  return shared ? `${safeName(server)} [${identityId(path)}]` : safeName(server);
}

/**
 * The identities of a server, one per file, for a message: `[0a1b2c3d] cwd "/proj/a", command
 * "node server.js"` (a file that cannot be read: its id alone), joined by `; `.
 * @param files - The files, with their content when it could be read.
 * @returns One line.
 */
function describeIdentities(files: readonly { readonly path: string; readonly file?: PinFile }[]): string {
  return files
    .map(({ path, file }) => {
      const what =
        file === undefined
          ? "(cannot be read)"
          : `cwd ${renderUntrusted(file.cwd)}, command ${renderUntrusted(file.command.join(" "))}`;
      return `[${identityId(path)}] ${what}`;
    })
    .join("; ");
}

/**
 * The files of one identity (`--id`: the start of the file id `pins list` shows in brackets).
 *
 * Source: SPEC §2.2 ("Server identity"), §5.7.
 * @param listing - The files listed.
 * @param options - `id` as typed (none: every file); `action`: what the command does, for a bad
 *   id's message (`list pins`).
 * @returns The files whose name starts with the id.
 * @throws {BouncerError} `USAGE` (exit 2) when the id is not 8 to 64 hex digits.
 */
export function ofIdentity(
  listing: PinListing,
  options: { readonly id?: string | undefined; readonly action: string },
): PinListing {
  if (options.id === undefined) return listing;
  if (!/^[0-9a-fA-F]{8,64}$/.test(options.id)) {
    throw new BouncerError(
      "USAGE",
      `Cannot ${options.action}: --id ${JSON.stringify(options.id)} is not 8 to 64 hex digits of an identity (bouncer pins list shows them in brackets)`,
    );
  }
  const id = options.id.toLowerCase();
  const ofId = ({ path }: { readonly path: string }): boolean => basename(path, ".json").startsWith(id);
  return { servers: listing.servers.filter(ofId), unreadable: listing.unreadable.filter(ofId) };
}

/**
 * Chooses the one identity of a server name that `pins accept` or `pins forget` acts on: checks
 * `id` (8 to 64 hex digits), lists the server's pin files of that identity (every file without an
 * id), takes from them what the command acts on, and refuses when that lies in several files (the
 * name is pinned for several commands or working directories), naming each identity.
 *
 * Source: SPEC §2.2 ("Server identity"), §5.7.
 * @param home - Bouncer's home directory.
 * @param options - `server`; `id` as typed (`--id`); `action`: what the command does, for a bad
 *   id's message (`accept pins`); `take`: what the command acts on, from the listing and the
 *   checked id (it throws the command's own errors); `refusal`: the message for several identities,
 *   from their files and their description (`[0a1b2c3d] cwd "/a", command "x"; …`).
 * @returns The listing (of that id), the checked id (lower case), and what was taken, all of one file.
 * @throws {BouncerError} `USAGE` (exit 2) for a bad id; `PINS_SEVERAL_IDENTITIES` when what was
 *   taken lies in several files; `PINS_UNREADABLE` and what `take` throws.
 */
export function chooseIdentity<T extends { readonly path: string; readonly file?: PinFile }>(
  home: string,
  options: {
    readonly server: string;
    readonly id?: string;
    readonly action: string;
    readonly take: (listing: PinListing, id: string | undefined) => T[];
    readonly refusal: (files: readonly T[], identities: string) => string;
  },
): { readonly listing: PinListing; readonly id?: string; readonly taken: T[] } {
  const id = options.id?.toLowerCase();
  const listing = ofIdentity(listPins(home, options.server), options);
  const taken = options.take(listing, id);
  const files = [...new Map(taken.map((item) => [item.path, item])).values()];
  if (files.length > 1) {
    throw new BouncerError("PINS_SEVERAL_IDENTITIES", options.refusal(files, describeIdentities(files)));
  }
  return id === undefined ? { listing, taken } : { listing, id, taken };
}

/**
 * The pin files `bouncer pins forget` would remove for a server, without removing any: its pin
 * file, also one that cannot be read as pins but still names it. A name pinned under several
 * identities (another command or cwd) is refused, naming each, unless `id` chooses one.
 *
 * Source: SPEC §5.7.
 * @param home - Bouncer's home directory.
 * @param server - The server name.
 * @param options - `id`: the file id of the identity to forget (`--id`).
 * @returns The files, with their content when it could be read.
 * @throws {BouncerError} `USAGE` for a bad `--id`; `PINS_UNKNOWN_SERVER` when no file names that
 *   server (of that id; a file that cannot be read as pins counts when its `server` field still
 *   names it); `PINS_SEVERAL_IDENTITIES` when several identities have that name and no `id`
 *   chooses.
 */
export function pinsToForget(
  home: string,
  server: string,
  options: { readonly id?: string } = {},
): { readonly path: string; readonly file?: PinFile }[] {
  const action = `forget server ${JSON.stringify(server)}`;
  const { listing, id, taken } = chooseIdentity<{ readonly path: string; readonly file?: PinFile }>(home, {
    server,
    ...(options.id === undefined ? {} : { id: options.id }),
    action,
    take: ({ servers, unreadable }) => [
      ...servers,
      ...unreadable.filter((file) => file.server === server).map(({ path }) => ({ path })),
    ],
    refusal: (files, identities) =>
      `Cannot ${action}: it is pinned under ${files.length} identities (another command or working directory): ${identities}: choose one with --id, e.g. bouncer pins forget --id ${identityId(files[0]?.path ?? "")} -- ${shellWord(server) ?? renderUntrusted(server)}; nothing was removed`,
  });
  if (taken.length === 0 && id !== undefined) {
    throw new BouncerError("PINS_UNKNOWN_SERVER", `Cannot ${action}: it has no pins of id ${id}`);
  }
  if (taken.length === 0) {
    const [first] = listing.unreadable;
    const more =
      first === undefined
        ? ""
        : `; ${listing.unreadable.length} pin file(s) name no server that can be read, remove them by hand: ${first.problem}`;
    throw new BouncerError("PINS_UNKNOWN_SERVER", `Cannot forget server "${server}": it has no pins${more}`);
  }
  return taken;
}

/**
 * Removes pin files, each under its lock, so a running session's write that read the file just
 * before never puts it back: that session finds it gone and keeps its pins in memory.
 *
 * Source: SPEC §5.7.
 * @param paths - The files ({@link pinsToForget}).
 * @returns The files removed (one already gone is left out).
 * @throws {BouncerError} `PINS_LOCKED` or `PINS_UNWRITABLE` when a file's lock cannot be taken or
 *   the file cannot be removed.
 */
export async function removePinFiles(paths: readonly string[]): Promise<string[]> {
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
