/**
 * `bouncer pins accept SERVER [TOOL] [--hash PREFIX] [--id ID]`: chooses the pending definitions
 * (without writing), shows each — its whole change from the pin it replaces — on the controlling
 * terminal and asks there (y/N); only a yes typed at the terminal accepts, and exactly the
 * definitions shown, each moved into the pins under its file's lock. Without a terminal it refuses:
 * the deny text an agent reads names this command, and an agent's shell tool must not be able to
 * accept the rug pull it was told about. No flag or variable skips the question. A running
 * `bouncer run` re-reads its pin file before each decision, so an accept takes effect there. Edge.
 *
 * Source: SPEC §2.2 ("`bouncer pins accept SERVER TOOL` can accept it from a terminal"), §3.4 (the
 * confirmation is asked on the controlling terminal, "so an agent's shell tool cannot approve for
 * itself"), §5.7, §5.8.
 * @module
 */

import type { CommandIo } from "../commands/io.ts";
import { diffToolDefinitions, listCommand, safeName, summarizePinDiff } from "../engine/index.ts";
import { type ConfirmTerminal, confirmOn } from "../platform/controlling-terminal.ts";
import { BouncerError } from "../platform/errors.ts";
import { terminalJson } from "../platform/terminal-json.ts";
import { updatePinFile } from "./file-pin-store.ts";
import { chooseIdentity, identityLabel, type PinListing, replacing } from "./pin-admin.ts";
import type { PinFile, PinRecord } from "./pin-file.ts";
import { pendingSection } from "./pins-view.ts";

/** What `runPinsAccept` takes. */
export interface PinsAcceptOptions {
  readonly server: string;
  readonly tool?: string;
  readonly hash?: string;
  /** The file id of the identity to accept for (`--id`), when the name has several. */
  readonly id?: string;
  readonly json?: boolean;
  readonly home: string;
  /**
   * The controlling terminal to confirm on (`openControllingTerminal()`; tests pass a stand-in);
   * undefined when the process has none: the accept is refused.
   */
  readonly terminal: ConfirmTerminal | undefined;
}

/** One pending definition chosen to be accepted: its file (as read), and the pin it would replace. */
interface PendingChoice {
  readonly path: string;
  readonly file: PinFile;
  readonly record: PinRecord;
  readonly replaced?: PinRecord;
}

/** Fewest hex digits `--hash` takes (SPEC §5.7 is silent: 8, as short as a person types safely). */
const MIN_HASH_PREFIX = 8;

/**
 * Runs `bouncer pins accept`: chooses the pending definitions (with `--hash`, only the one whose
 * hash starts with it: the one reviewed), shows each on the terminal with its whole change, asks,
 * and on a yes accepts exactly those (one the upstream replaced meanwhile is not accepted).
 *
 * Source: SPEC §2.2, §3.4, §5.7.
 * @param options - Server, optional tool, hash prefix and identity id, JSON output, Bouncer's home,
 *   the terminal.
 * @param io - Where the result goes (the question and the definitions go to the terminal).
 * @returns 0 when accepted or declined (nothing accepted: said so); 1 when a definition shown was
 *   no longer pending as shown.
 * @throws {BouncerError} `USAGE` (exit 2) for an empty SERVER or TOOL, a bad `--hash` or `--id`,
 *   or no terminal to confirm on (looked at once the pending definitions are chosen); exit 1 when
 *   nothing (matching) is pending, with a terminal or without, when several identities of the name
 *   have matching definitions and no `--id` chooses, or a file cannot be read or written.
 */
export async function runPinsAccept(options: PinsAcceptOptions, io: CommandIo): Promise<number> {
  // An empty TOOL (an unset shell variable) must not widen to "every pending definition".
  if (options.server === "" || options.tool === "") {
    throw new BouncerError(
      "USAGE",
      `Cannot accept pins: ${options.server === "" ? "SERVER" : "TOOL"} is empty (leave TOOL out to accept every pending definition of the server)`,
    );
  }
  // What there is to accept comes first: with nothing pending, a terminal would change nothing.
  const { chosen, shared } = choosePending(options);
  const { terminal } = options;
  if (terminal === undefined) {
    throw new BouncerError(
      "USAGE",
      "Cannot accept pins: there is no terminal to confirm on: bouncer pins accept shows the definition and asks on the controlling terminal (/dev/tty), so a program without one, such as an agent's shell tool, cannot accept for itself; run it in a terminal",
    );
  }
  const label = (path: string): string => identityLabel(options.server, path, shared);
  for (const choice of chosen) {
    const section = { ...choice, server: choice.file.server, full: true, label: label(choice.path) };
    terminal.write(`${pendingSection(choice.record, section)}\n`);
  }
  const what = chosen.length === 1 ? "this definition" : `these ${chosen.length} definitions`;
  if (!(await confirmOn(terminal, `Accept ${what} of server ${safeName(options.server)}? [y/N] `))) {
    if (options.json === true) io.out(`${terminalJson({ accepted: [] })}\n`);
    else io.out("Nothing accepted\n");
    return 0;
  }
  const { accepted, changed } = await acceptChosen(chosen);
  for (const { path, record } of changed) {
    io.err(
      `bouncer: Not accepted: tool ${safeName(record.name)} of server ${label(path)} is no longer pending as shown (hash ${record.hash.slice(0, 16)}): the upstream changed it again, or it was accepted meanwhile; review it with: ${listCommand(options.server)}\n`,
    );
  }
  if (options.json === true) {
    const list = accepted.map(({ path, record, replaced }) => ({
      server: options.server,
      file: path,
      tool: record.name,
      hash: record.hash,
      ...(replaced === undefined
        ? {}
        : {
            replaced_hash: replaced.hash,
            change: summarizePinDiff(diffToolDefinitions(replaced.definition, record.definition)),
          }),
    }));
    io.out(`${terminalJson({ accepted: list })}\n`);
    return changed.length > 0 ? 1 : 0;
  }
  for (const { path, record, replaced } of accepted) {
    // Worded by what was replaced, whatever the pending record said (a pin may have gone meanwhile).
    const kind = replaced === undefined ? "new" : "changed";
    io.out(
      `Accepted ${kind} tool ${safeName(record.name)} of server ${label(path)} (${record.hash.slice(0, 12)})\n`,
    );
  }
  if (accepted.length > 0) io.out("Running sessions pick it up before their next call\n");
  return changed.length > 0 ? 1 : 0;
}

/**
 * Chooses, without writing anything, the pending definitions of a server an accept would take:
 * one tool's, or all of them; with `hash`, only a definition whose hash starts with it (the one the
 * person reviewed), refusing when the pending definition is another one. They must all be of one
 * identity of the server ({@link chooseIdentity}).
 *
 * Source: SPEC §2.2, §5.7.
 * @param options - The server name and, optionally, the tool, a hash prefix (8 to 64 hex digits)
 *   and an identity's file id (`--id`), from {@link runPinsAccept}.
 * @returns The chosen definitions, each with its file and the pin it would replace (absent for a
 *   new tool), never empty, all of one file; and whether the server is to be named with its file id
 *   (the name has several identities, or `--id` chose one).
 * @throws {BouncerError} `USAGE` for a bad `--hash` or `--id`; `PINS_UNKNOWN_SERVER` when no pin
 *   file names the server (of that id); `PINS_NOTHING_PENDING` when it has nothing to accept;
 *   `PINS_HASH_MISMATCH` when `hash` names no pending definition (of that tool) or, without a tool,
 *   the definitions of several tools; `PINS_SEVERAL_IDENTITIES` when several identities have
 *   matching definitions and no `id` chooses; `PINS_CORRUPT` and friends when a file of that server
 *   cannot be read.
 */
function choosePending(options: PinsAcceptOptions): {
  readonly chosen: PendingChoice[];
  readonly shared: boolean;
} {
  const { server } = options;
  const { listing, id, taken } = chooseIdentity(options.home, {
    server,
    ...(options.id === undefined ? {} : { id: options.id }),
    action: "accept pins",
    take: (listing, id) => pendingOf(listing, { ...options, ...(id === undefined ? {} : { id }) }),
    refusal: (files, identities) =>
      `Cannot accept pins of server "${server}": ${files.length} of its identities (another command or working directory) have matching pending definitions: ${identities}: choose one with --id (${listCommand(server)} shows each); nothing was accepted`,
  });
  return { chosen: taken, shared: id !== undefined || listing.servers.length > 1 };
}

/**
 * The pending definitions of one server's files (of one identity, or of every one) an accept would
 * take, for {@link choosePending}.
 * @param listing - The server's files (of the identity `--id` names).
 * @param options - Server, optional tool, hash prefix, and the checked id.
 * @returns The chosen definitions, never empty (of every identity: {@link chooseIdentity} refuses
 *   several).
 * @throws {BouncerError} As {@link choosePending}, but for several identities.
 */
function pendingOf(
  listing: PinListing,
  options: { readonly server: string; readonly tool?: string; readonly hash?: string; readonly id?: string },
): PendingChoice[] {
  const { server, tool } = options;
  const prefix = options.hash === undefined ? undefined : checkHashPrefix(options.hash);
  const wanted = (record: PinRecord): boolean =>
    (tool === undefined || record.name === tool) && (prefix === undefined || record.hash.startsWith(prefix));
  if (prefix !== undefined) refuseOtherDefinitions(listing, { ...options, prefix });
  const chosen: PendingChoice[] = [];
  for (const { path, file } of listing.servers) {
    for (const record of file.pending.filter(wanted)) {
      chosen.push({ path, file, record, ...replacing(file.tools, record) });
    }
  }
  if (chosen.length > 0) return chosen;
  // A bad file of this server, else one naming no server (it may be this one's); not another's.
  const problem = (
    listing.unreadable.find((file) => file.server === server) ??
    listing.unreadable.find((file) => file.server === undefined)
  )?.problem;
  if (problem !== undefined) throw new BouncerError("PINS_CORRUPT", problem);
  if (listing.servers.length === 0) {
    const of = options.id === undefined ? "" : ` of id ${options.id}`;
    throw new BouncerError(
      "PINS_UNKNOWN_SERVER",
      `Cannot accept pins of server "${server}": it has no pins${of} (bouncer pins list shows the servers)`,
    );
  }
  const ofTool = tool === undefined ? "" : ` of tool "${tool}"`;
  if (prefix !== undefined) {
    // The definition waiting now is not the one reviewed (the upstream changed it again), or there
    // is none (also when the pins were forgotten while the session that named the hash ran).
    throw new BouncerError(
      "PINS_HASH_MISMATCH",
      `Cannot accept pins of server "${server}": no pending definition${ofTool} has a hash starting ${prefix} (the upstream may have changed it since it was reviewed; or the server's pins were forgotten with bouncer pins forget while the session that named it ran, and that session keeps nothing to accept until it restarts): nothing was accepted; review the pending one with: bouncer pins list`,
    );
  }
  throw new BouncerError(
    "PINS_NOTHING_PENDING",
    `Cannot accept pins of server "${server}": no pending definition${ofTool}`,
  );
}

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
async function acceptChosen(
  chosen: readonly PendingChoice[],
): Promise<{ readonly accepted: Omit<PendingChoice, "file">[]; readonly changed: PendingChoice[] }> {
  const accepted: Omit<PendingChoice, "file">[] = [];
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
      for (const record of taking) accepted.push({ path, record, ...replacing(current.tools, record) });
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
