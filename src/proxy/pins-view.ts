/**
 * What `bouncer pins` shows a person: `bouncer pins list` (a table of the pinned and pending
 * definitions, then each pending one's change and the command that accepts exactly it), and the
 * section a pending definition gets there and on the terminal of `bouncer pins accept` — its change
 * from the pin it replaces (with a terminal's limits, naming `bouncer pins list --full` when
 * something is left out), or everything (`--full`: every changed line and stretch whole, then the
 * definition itself). Untrusted text is always rendered safely. Edge.
 *
 * Source: SPEC §2.2 ("saying what changed"), §3.4 (rendering untrusted strings), §5.7.
 * @module
 */

import type { CommandIo } from "../commands/io.ts";
import {
  ACCEPT_HASH_DIGITS,
  acceptCommand,
  describePinDiff,
  diffToolDefinitions,
  listCommand,
  safeName,
} from "../engine/index.ts";
import { terminalJson } from "../platform/terminal-json.ts";
import {
  identityId,
  identityLabel,
  listPins,
  ofIdentity,
  replacing,
  type UnreadablePins,
} from "./pin-admin.ts";
import type { PinRecord } from "./pin-file.ts";

/** What a terminal shows of a change (more than an ask's form: 20 lines, 200 characters). */
const TERMINAL_LIMITS = { maxLines: 200, maxChars: 2000 } as const;
/** What `--full` shows: everything. */
const NO_LIMITS = { maxLines: Number.POSITIVE_INFINITY, maxChars: Number.POSITIVE_INFINITY } as const;

/** A pending definition to show: the pin it replaces, the server's name, and how much to show. */
interface ChangeOptions {
  readonly replaced?: PinRecord;
  /** The server name (for the `--full` command). */
  readonly server: string;
  /** No limits. */
  readonly full?: boolean;
}

/**
 * What accepting a definition changes: the difference from the pin it replaces, or for a new tool
 * from no definition at all (its description lines, properties and annotations, all as added).
 * @param record - The pending definition.
 * @param options - See {@link ChangeOptions}.
 * @returns Multi-line text, untrusted text rendered safely.
 */
function changeView(record: PinRecord, options: ChangeOptions): string {
  const before = options.replaced?.definition ?? { name: record.name };
  const limits =
    options.full === true
      ? NO_LIMITS
      : { ...TERMINAL_LIMITS, seeAll: listCommand(options.server, { full: true }) };
  const text = describePinDiff(diffToolDefinitions(before, record.definition), limits);
  return options.replaced === undefined ? text.replace(/^Changed: /, "New: ") : text;
}

/**
 * One pending definition as `pins list` and the terminal of `pins accept` show it: which tool, of
 * which server, its hash, and (indented) its change from the pin it replaces.
 *
 * Source: SPEC §2.2, §3.4, §5.7.
 * @param record - The pending definition.
 * @param options - See {@link ChangeOptions}; `label`: the server as shown (`identityLabel`).
 * @returns Multi-line text without a final newline, untrusted text rendered safely.
 */
export function pendingSection(
  record: PinRecord,
  options: ChangeOptions & { readonly label: string },
): string {
  const kind = options.replaced === undefined ? "new" : "changed";
  const hash = record.hash.slice(0, ACCEPT_HASH_DIGITS);
  return `Pending ${kind} tool ${safeName(record.name)} of server ${options.label} (hash ${hash}):\n${indent(changeView(record, options))}`;
}

/**
 * A definition in full, as indented JSON with every character a terminal could act on or hide —
 * anything but printable ASCII — written `\u{…}` (SPEC §3.4); nothing is cut.
 * @param definition - The stored definition (untrusted).
 * @returns Multi-line text.
 */
function fullDefinition(definition: unknown): string {
  return JSON.stringify(definition, null, 2).replace(
    /[^\x20-\x7e\n]/gu,
    (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`,
  );
}

/**
 * Indents each line by two spaces.
 * @param text - Lines.
 * @returns The indented text.
 */
function indent(text: string): string {
  return text.replace(/^/gm, "  ");
}

/**
 * Runs `bouncer pins list`: a table of pinned and pending definitions, then each pending one's
 * change (with a terminal's limits, naming `--full` when something is left out; with `full`, every
 * change whole and the pending definition in full) and the command that accepts exactly it.
 *
 * Source: SPEC §5.7, §2.2 ("saying what changed").
 * @param options - The server and identity filters, `full`, JSON output (with every definition in
 *   full), Bouncer's home.
 * @param io - Where output goes.
 * @returns 0, or 1 when a pin file of what was asked could not be read (every bad file is named on
 *   stderr; see {@link listingFailed}).
 * @throws {BouncerError} `PINS_UNREADABLE` when the pins folder cannot be listed; `USAGE` for a bad
 *   `--id`.
 */
export function runPinsList(
  options: {
    readonly server?: string;
    /** Only the identity whose file id starts with this (`--id`, 8 to 64 hex digits). */
    readonly id?: string;
    readonly full?: boolean;
    readonly json?: boolean;
    readonly home: string;
  },
  io: CommandIo,
): number {
  const { servers, unreadable } = ofIdentity(listPins(options.home, options.server), {
    id: options.id,
    action: "list pins",
  });
  for (const { problem } of unreadable) io.err(`bouncer: ${problem}\n`);
  const failed = listingFailed(unreadable, { ...options, found: servers.length > 0 });
  const full = options.full === true;
  if (options.json === true) {
    const list = servers.map(({ path, file }) => ({
      server: file.server,
      id: identityId(path),
      command: file.command,
      cwd: file.cwd,
      file: path,
      tools: file.tools.map(({ name, hash, at, definition }) => ({ name, hash, at, definition })),
      pending: file.pending.map((record) => ({
        name: record.name,
        hash: record.hash,
        at: record.at,
        kind: record.kind,
        change: changeView(record, { ...replacing(file.tools, record), server: file.server, full }),
        definition: record.definition,
      })),
    }));
    io.out(`${terminalJson(list)}\n`);
    return failed ? 1 : 0;
  }
  // A name pinned under several identities (another command or cwd) gets the identity's file id.
  const names = servers.map(({ file }) => file.server);
  const shared = new Set(names.filter((name, i) => names.indexOf(name) !== i));
  const rows: string[][] = [];
  for (const { file, path } of servers) {
    const server = identityLabel(file.server, path, shared.has(file.server));
    for (const record of file.tools) rows.push([server, record.name, "pinned", record.hash, record.at]);
    for (const record of file.pending) {
      rows.push([server, record.name, `${record.kind ?? "changed"} (pending)`, record.hash, record.at]);
    }
  }
  if (rows.length === 0) {
    // With unreadable files (named on stderr above) there may well be pins: none could be read.
    const none = failed ? "No readable pins" : options.server === undefined ? "No pins yet" : "No pins";
    io.out(`${none}${options.server === undefined ? "" : ` for server ${safeName(options.server)}`}\n`);
    return failed ? 1 : 0;
  }
  const cells = rows.map(([server, tool, status, hash, at]) => [
    server ?? "",
    safeName(tool ?? ""),
    status ?? "",
    (hash ?? "").slice(0, 12),
    at ?? "",
  ]);
  const head = ["SERVER", "TOOL", "STATUS", "HASH", "SINCE"];
  const widths = head.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  io.out(`${[line(head), ...cells.map(line)].join("\n")}\n`);
  if (shared.size > 0) {
    io.out("[id]: one server name pinned for several commands or working directories (--json shows each)\n");
  }
  // What accepting would change, shown before anything is accepted (a client that cannot ask
  // leaves `pins accept` as the only way through: the person reviews here first).
  // Each with the command bound to its hash: an accept refuses a definition that replaced it since.
  // A name with several identities: each section and command names this one's id.
  for (const { file, path } of servers) {
    const several = shared.has(file.server);
    const label = identityLabel(file.server, path, several);
    for (const record of file.pending) {
      const section = { ...replacing(file.tools, record), server: file.server, full, label };
      io.out(`\n${pendingSection(record, section)}\n`);
      if (full)
        io.out(`  Pending definition in full:\n${indent(indent(fullDefinition(record.definition)))}\n`);
      const id = several ? { id: identityId(path) } : {};
      io.out(
        `  Accept this definition with: ${acceptCommand(file.server, { tool: record.name, hash: record.hash, ...id })}\n`,
      );
    }
  }
  return failed ? 1 : 0;
}

/**
 * Whether a listing failed for what was asked: without SERVER, any pin file that cannot be read;
 * with it, one that names SERVER, or one whose server cannot be read at all when no readable file
 * of SERVER was found (it may be SERVER's). Another server's bad file is named on stderr, and does
 * not fail `pins list SERVER`.
 *
 * Source: SPEC §5 (exit 1: a runtime failure), STYLE #14 (a corrupt file is named, never skipped).
 * @param unreadable - The files that could not be read.
 * @param options - The SERVER asked for, and whether a readable file of it was found.
 * @returns True for exit 1.
 */
function listingFailed(
  unreadable: readonly UnreadablePins[],
  options: { readonly server?: string; readonly found: boolean },
): boolean {
  if (options.server === undefined) return unreadable.length > 0;
  return unreadable.some(
    (file) => file.server === options.server || (file.server === undefined && !options.found),
  );
}
