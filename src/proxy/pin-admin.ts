/**
 * What `bouncer pins` does to the pin files under `$BOUNCER_HOME/pins`: list them (per server name,
 * as recorded inside each file — the file names are identity hashes), accept pending definitions
 * (moving them into the pins, under the file's lock), and forget a server (removing its files, each
 * under its lock). A running `bouncer run` re-reads its pin file before each decision, so an accept
 * takes effect there and its client is told with `notifications/tools/list_changed`. Edge (file
 * system).
 *
 * Source: SPEC §2.2 ("Changed tool": `bouncer pins accept SERVER TOOL`), §5.7.
 * @module
 */

import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { BouncerError, errorCode } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { readRegularTextFile } from "../platform/regular-file.ts";
import { pinsDir, readPinFile, updatePinFile } from "./file-pin-store.ts";
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

/** One accepted definition: the file it was in, the record, and the pin it replaced (if any). */
export interface AcceptedPin {
  readonly path: string;
  readonly record: PinRecord;
  readonly replaced?: PinRecord;
}

/** One pending definition chosen to be accepted: its file (as read), and the pin it would replace. */
export interface PendingChoice extends AcceptedPin {
  readonly file: PinFile;
}

/** Fewest hex digits `--hash` takes (SPEC §5.7 is silent: 8, as short as a person types safely). */
const MIN_HASH_PREFIX = 8;

/**
 * Checks a `--hash` value: hex digits, at least {@link MIN_HASH_PREFIX}, at most a whole hash.
 * @param prefix - The value as typed.
 * @returns It in lower case.
 * @throws {BouncerError} `USAGE` (exit 2) for anything else.
 */
function checkHashPrefix(prefix: string): string {
  if (!/^[0-9a-fA-F]+$/.test(prefix) || prefix.length < MIN_HASH_PREFIX || prefix.length > 64) {
    throw new BouncerError(
      "USAGE",
      `Cannot accept pins: --hash ${JSON.stringify(prefix)} is not ${MIN_HASH_PREFIX} to 64 hex digits of a definition's hash (bouncer pins list shows them)`,
    );
  }
  return prefix.toLowerCase();
}

/**
 * Chooses, without writing anything, the pending definitions of a server an accept would take:
 * one tool's, or all of them; with `hash`, only a definition whose hash starts with it (the one the
 * person reviewed), refusing when the pending definition is another one.
 *
 * Source: SPEC §2.2, §5.7.
 * @param home - Bouncer's home directory.
 * @param options - The server name and, optionally, the tool and a hash prefix (checked with
 *   {@link checkHashPrefix}).
 * @returns The chosen definitions, each with its file and the pin it would replace (absent for a
 *   new tool); never empty.
 * @throws {BouncerError} `PINS_UNKNOWN_SERVER` when no pin file names the server;
 *   `PINS_NOTHING_PENDING` when it has nothing to accept; `PINS_HASH_MISMATCH` when `hash` names no
 *   pending definition (of that tool) or, without a tool, the definitions of several tools;
 *   `PINS_CORRUPT` and friends when a file of that server cannot be read.
 */
export function choosePending(
  home: string,
  options: { readonly server: string; readonly tool?: string; readonly hash?: string },
): PendingChoice[] {
  const listing = listPins(home, options.server);
  const prefix = options.hash === undefined ? undefined : checkHashPrefix(options.hash);
  const wanted = (record: PinRecord): boolean =>
    (options.tool === undefined || record.name === options.tool) &&
    (prefix === undefined || record.hash.startsWith(prefix));
  if (prefix !== undefined) refuseOtherDefinitions(listing, { ...options, prefix });
  const chosen: PendingChoice[] = [];
  for (const { path, file } of listing.servers) {
    for (const record of file.pending.filter(wanted)) {
      const replaced = file.tools.find((pin) => pin.name === record.name);
      chosen.push(replaced === undefined ? { path, file, record } : { path, file, record, replaced });
    }
  }
  if (chosen.length === 0) {
    const problem = listing.unreadable[0]?.problem;
    if (problem !== undefined) throw new BouncerError("PINS_CORRUPT", problem);
    if (listing.servers.length === 0) {
      throw new BouncerError(
        "PINS_UNKNOWN_SERVER",
        `Cannot accept pins of server "${options.server}": it has no pins (bouncer pins list shows the servers)`,
      );
    }
    if (prefix !== undefined) throw hashMismatch(options, prefix);
    const what =
      options.tool === undefined
        ? "no pending definition"
        : `no pending definition of tool "${options.tool}"`;
    throw new BouncerError(
      "PINS_NOTHING_PENDING",
      `Cannot accept pins of server "${options.server}": ${what}`,
    );
  }
  return chosen;
}

/**
 * Accepts exactly the chosen definitions, each under its file's lock: a definition still pending
 * with the hash it was chosen by replaces the pin of its tool and leaves the pending list; one the
 * upstream replaced since (another hash pending now, or none) is not accepted, and returned.
 *
 * Source: SPEC §2.2 (`bouncer pins accept` accepts the definition the person was shown), §5.7.
 * @param chosen - From {@link choosePending}, shown to the person and confirmed.
 * @returns The accepted definitions (with the pins they replaced as the files held them then) and
 *   the chosen ones that were no longer pending as chosen.
 * @throws {BouncerError} `PINS_CORRUPT`, `PINS_LOCKED` or `PINS_UNWRITABLE`.
 */
export async function acceptChosen(
  chosen: readonly PendingChoice[],
): Promise<{ readonly accepted: AcceptedPin[]; readonly changed: PendingChoice[] }> {
  const accepted: AcceptedPin[] = [];
  const changed: PendingChoice[] = [];
  for (const path of new Set(chosen.map((choice) => choice.path))) {
    const mine = chosen.filter((choice) => choice.path === path);
    await updatePinFile(path, (current) => {
      const server = mine[0]?.file.server;
      const pending = current !== undefined && current.server === server ? current.pending : [];
      const taking = pending.filter((record) =>
        mine.some((choice) => choice.record.name === record.name && choice.record.hash === record.hash),
      );
      const names = new Set(taking.map((record) => record.name));
      changed.push(...mine.filter((choice) => !names.has(choice.record.name)));
      if (current === undefined || taking.length === 0) return undefined;
      for (const record of taking) {
        const replaced = current.tools.find((pin) => pin.name === record.name);
        accepted.push(replaced === undefined ? { path, record } : { path, record, replaced });
      }
      return {
        ...current,
        tools: [
          ...current.tools.filter((record) => !names.has(record.name)),
          ...taking.map(({ kind: _kind, ...record }) => record),
        ],
        pending: current.pending.filter((record) => !names.has(record.name)),
      };
    });
  }
  return { accepted, changed };
}

/**
 * With `--hash`, refuses before anything is written when the prefix is ambiguous: without a tool,
 * it starts the hashes of pending definitions of several tools.
 * @param listing - The server's pin files.
 * @param options - Server, optional tool, the prefix.
 * @throws {BouncerError} `PINS_HASH_MISMATCH`.
 */
function refuseOtherDefinitions(
  listing: PinListing,
  options: { readonly server: string; readonly tool?: string; readonly prefix: string },
): void {
  if (options.tool !== undefined) return;
  const tools = new Set<string>();
  for (const { file } of listing.servers) {
    for (const record of file.pending) if (record.hash.startsWith(options.prefix)) tools.add(record.name);
  }
  if (tools.size > 1) {
    throw new BouncerError(
      "PINS_HASH_MISMATCH",
      `Cannot accept pins of server "${options.server}": --hash ${options.prefix} starts the hashes of ${tools.size} tools' pending definitions: name the tool or give more digits; nothing was accepted`,
    );
  }
}

/**
 * The error of a `--hash` that names no pending definition: the definition waiting now is not the
 * one that was reviewed (the upstream changed it again), or there is none.
 * @param options - Server and optional tool.
 * @param prefix - The prefix.
 * @returns `PINS_HASH_MISMATCH`.
 */
function hashMismatch(
  options: { readonly server: string; readonly tool?: string },
  prefix: string,
): BouncerError {
  const of = options.tool === undefined ? "" : ` of tool "${options.tool}"`;
  return new BouncerError(
    "PINS_HASH_MISMATCH",
    `Cannot accept pins of server "${options.server}": no pending definition${of} has a hash starting ${prefix} (the upstream may have changed it since it was reviewed): nothing was accepted; review the pending one with: bouncer pins list`,
  );
}

/**
 * Forgets a server: removes its pin files, also those that cannot be read as pins but still name it
 * (the next session pins it again on first sight). Each file is removed under its lock, so a running
 * session's write that read the file just before never puts it back: that session finds it gone
 * and keeps its pins in memory.
 *
 * Source: SPEC §5.7, §2.2 ("under a lock file").
 * @param home - Bouncer's home directory.
 * @param server - The server name.
 * @returns The removed files.
 * @throws {BouncerError} `PINS_UNKNOWN_SERVER` when no file names that server (a file that cannot
 *   be read as pins is removed too when its `server` field still names it); `PINS_LOCKED` or
 *   `PINS_UNWRITABLE` when a file's lock cannot be taken or the file cannot be removed.
 */
export async function forgetServer(home: string, server: string): Promise<string[]> {
  const listing = listPins(home, server);
  const paths = [
    ...listing.servers.map(({ path }) => path),
    ...listing.unreadable.filter((file) => file.server === server).map(({ path }) => path),
  ];
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
