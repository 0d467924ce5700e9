/**
 * Accepting pending definitions in the pin files: choosing them (without writing: what the person
 * is shown), then moving exactly those into the pins under each file's lock. A running `bouncer run`
 * re-reads its pin file before each decision, so an accept takes effect there and its client is told
 * with `notifications/tools/list_changed`. Edge (file system).
 *
 * Source: SPEC §2.2 ("Changed tool": `bouncer pins accept SERVER TOOL`), §5.7.
 * @module
 */

import { listCommand } from "../engine/index.ts";
import { BouncerError } from "../platform/errors.ts";
import { updatePinFile } from "./file-pin-store.ts";
import { listPins, ofIdentity, type PinListing } from "./pin-admin.ts";
import type { PinFile, PinRecord } from "./pin-file.ts";
import { checkIdentityId, describeIdentities } from "./pin-identities.ts";

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
 * person reviewed), refusing when the pending definition is another one. They must all be of one
 * identity of the server: when several (another command or cwd under the same name) have matching
 * definitions, it refuses, naming each, unless `id` chooses one.
 *
 * Source: SPEC §2.2, §5.7.
 * @param home - Bouncer's home directory.
 * @param options - The server name and, optionally, the tool, a hash prefix (checked with
 *   {@link checkHashPrefix}) and an identity's file id (`--id`).
 * @returns The chosen definitions, each with its file and the pin it would replace (absent for a
 *   new tool); never empty, all of one file.
 * @throws {BouncerError} `USAGE` for a bad `--hash` or `--id`; `PINS_UNKNOWN_SERVER` when no pin
 *   file names the server (of that id); `PINS_NOTHING_PENDING` when it has nothing to accept;
 *   `PINS_HASH_MISMATCH` when `hash` names no pending definition (of that tool) or, without a tool,
 *   the definitions of several tools; `PINS_SEVERAL_IDENTITIES` when several identities have
 *   matching definitions and no `id` chooses; `PINS_CORRUPT` and friends when a file of that server
 *   cannot be read.
 */
export function choosePending(
  home: string,
  options: {
    readonly server: string;
    readonly tool?: string;
    readonly hash?: string;
    readonly id?: string;
  },
): PendingChoice[] {
  const id = options.id === undefined ? undefined : checkIdentityId(options.id, "accept pins");
  const listing = ofIdentity(listPins(home, options.server), id);
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
    // A bad file of this server, else one naming no server (it may be this one's); not another's.
    const problem = (
      listing.unreadable.find((file) => file.server === options.server) ??
      listing.unreadable.find((file) => file.server === undefined)
    )?.problem;
    if (problem !== undefined) throw new BouncerError("PINS_CORRUPT", problem);
    if (listing.servers.length === 0) {
      const of = id === undefined ? "" : ` of id ${id}`;
      throw new BouncerError(
        "PINS_UNKNOWN_SERVER",
        `Cannot accept pins of server "${options.server}": it has no pins${of} (bouncer pins list shows the servers)`,
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
  const files = listing.servers.filter(({ path }) => chosen.some((choice) => choice.path === path));
  if (files.length > 1) {
    throw new BouncerError(
      "PINS_SEVERAL_IDENTITIES",
      `Cannot accept pins of server "${options.server}": ${files.length} of its identities (another command or working directory) have matching pending definitions: ${describeIdentities(files)}: choose one with --id (${listCommand(options.server)} shows each); nothing was accepted`,
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
 * one that was reviewed (the upstream changed it again), or there is none (also when the pins were
 * forgotten while the session that named the hash ran: it stores no pending definition any more).
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
    `Cannot accept pins of server "${options.server}": no pending definition${of} has a hash starting ${prefix} (the upstream may have changed it since it was reviewed; or the server's pins were forgotten with bouncer pins forget while the session that named it ran, and that session keeps nothing to accept until it restarts): nothing was accepted; review the pending one with: bouncer pins list`,
  );
}
