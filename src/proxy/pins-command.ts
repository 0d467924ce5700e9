/**
 * `bouncer pins list [SERVER] | accept SERVER [TOOL] | forget SERVER` (`--json` on each): the pinned
 * tool definitions under `$BOUNCER_HOME/pins`, the changed and new definitions waiting beside them,
 * accepting those from a terminal (`pins-accept.ts`), and forgetting a server. Edge.
 *
 * Source: SPEC §5.7, §2.2.
 * @module
 */

import { defineCommand } from "citty";
import { type CommandIo, commandIo } from "../commands/io.ts";
import { ACCEPT_HASH_DIGITS, acceptCommand, safeName } from "../engine/index.ts";
import { openControllingTerminal } from "../platform/controlling-terminal.ts";
import { BouncerError } from "../platform/errors.ts";
import { bouncerHome } from "../platform/home-dir.ts";
import { forgetServer, listPins, type UnreadablePins } from "./pin-admin.ts";
import type { PinFile, PinRecord } from "./pin-file.ts";
import { identityId } from "./pin-identities.ts";
import { runPinsAccept } from "./pins-accept.ts";
import { changeView, fullDefinition, indent } from "./pins-view.ts";

/**
 * Runs `bouncer pins list`: a table of pinned and pending definitions, then each pending one's
 * change (with a terminal's limits, naming `--full` when something is left out; with `full`, every
 * change whole and the pending definition in full) and the command that accepts exactly it.
 *
 * Source: SPEC §5.7, §2.2 ("saying what changed").
 * @param options - The server filter, `full`, JSON output (with every definition in full), Bouncer's
 *   home.
 * @param io - Where output goes.
 * @returns 0, or 1 when a pin file of what was asked could not be read (every bad file is named on
 *   stderr; see {@link listingFailed}).
 */
export function runPinsList(
  options: {
    readonly server?: string;
    readonly full?: boolean;
    readonly json?: boolean;
    readonly home: string;
  },
  io: CommandIo,
): number {
  const { servers, unreadable } = listPins(options.home, options.server);
  for (const { problem } of unreadable) io.err(`${problem}\n`);
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
    io.out(`${JSON.stringify(list)}\n`);
    return failed ? 1 : 0;
  }
  // A name pinned under several identities (another command or cwd) gets the identity's file id.
  const names = servers.map(({ file }) => file.server);
  const shared = new Set(names.filter((name, i) => names.indexOf(name) !== i));
  const rows: string[][] = [];
  const serverOf = (file: PinFile, path: string): string =>
    shared.has(file.server) ? `${safeName(file.server)} [${identityId(path)}]` : safeName(file.server);
  for (const { file, path } of servers) {
    const server = serverOf(file, path);
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
    const id = shared.has(file.server) ? { id: identityId(path) } : {};
    for (const record of file.pending) {
      const replaced = replacing(file.tools, record);
      const hash = record.hash.slice(0, ACCEPT_HASH_DIGITS);
      io.out(
        `\nPending ${replaced.replaced === undefined ? "new" : "changed"} tool ${safeName(record.name)} of server ${serverOf(file, path)} (hash ${hash}):\n`,
      );
      io.out(`${indent(changeView(record, { ...replaced, server: file.server, full }))}\n`);
      if (full)
        io.out(`  Pending definition in full:\n${indent(indent(fullDefinition(record.definition)))}\n`);
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

/**
 * The pin a pending definition would replace, as `changeView` takes it.
 * @param tools - The file's pins.
 * @param record - The pending definition.
 * @returns `{ replaced }`, or `{}` for a new tool.
 */
function replacing(tools: readonly PinRecord[], record: PinRecord): { readonly replaced?: PinRecord } {
  const replaced = tools.find((tool) => tool.name === record.name);
  return replaced === undefined ? {} : { replaced };
}

/**
 * Runs `bouncer pins forget SERVER [--id ID]`.
 *
 * Source: SPEC §5.7.
 * @param options - Server, the identity's file id when the name has several, JSON output, Bouncer's
 *   home.
 * @param io - Where output goes.
 * @returns 0.
 * @throws {BouncerError} `USAGE` (exit 2) for an empty SERVER or a bad `--id`; exit 1 when the
 *   server has no pins (of that id), or several identities and no id.
 */
export async function runPinsForget(
  options: { readonly server: string; readonly id?: string; readonly json?: boolean; readonly home: string },
  io: CommandIo,
): Promise<number> {
  // An empty SERVER (an unset shell variable) is a usage error, as for pins accept (SPEC §5).
  if (options.server === "") throw new BouncerError("USAGE", "Cannot forget pins: SERVER is empty");
  const removed = await forgetServer(
    options.home,
    options.server,
    options.id === undefined ? {} : { id: options.id },
  );
  if (options.json === true) io.out(`${JSON.stringify({ forgotten: options.server, files: removed })}\n`);
  else {
    io.out(
      `Forgot the pins of server ${safeName(options.server)} (${removed.length} file${removed.length === 1 ? "" : "s"}); its next session pins it again on first sight (running sessions keep the pins they had until they restart)\n`,
    );
  }
  return 0;
}

/**
 * Bouncer's home for a command: `$BOUNCER_HOME`, else `~/.bouncer`.
 * @param io - The command's io (its cwd resolves a relative home).
 * @returns The home directory.
 */
function home(io: CommandIo): string {
  return bouncerHome({ cwd: io.cwd });
}

const json = { type: "boolean", description: "Print one JSON document" } as const;
const id = {
  type: "string",
  description:
    "The identity, when the name is pinned for several commands or cwds (the [id] pins list shows)",
  valueHint: "ID",
} as const;

/** `bouncer pins list [SERVER]`. */
const listCommand = defineCommand({
  meta: { name: "list", description: "List pinned tools and pending (changed or new) definitions" },
  args: {
    server: { type: "positional", description: "Only this server (--upstream-name)", required: false },
    full: {
      type: "boolean",
      description: "Show every change whole and each pending definition in full",
    },
    json,
  },
  run: ({ args, data }): number => {
    const io = commandIo(data);
    const server = typeof args.server === "string" && args.server !== "" ? { server: args.server } : {};
    return runPinsList({ ...server, full: args.full === true, json: args.json === true, home: home(io) }, io);
  },
});

/** `bouncer pins accept SERVER [TOOL]`. */
const acceptSubcommand = defineCommand({
  meta: {
    name: "accept",
    description:
      "Accept a changed or new tool definition (all pending ones without TOOL), confirmed on the terminal (/dev/tty)",
  },
  args: {
    server: { type: "positional", description: "The server (--upstream-name)", required: true },
    tool: { type: "positional", description: "The tool (default: every pending one)", required: false },
    hash: {
      type: "string",
      description:
        "Accept only the definition whose hash starts with this (8+ hex digits, as pins list shows)",
      valueHint: "PREFIX",
    },
    id,
    json,
  },
  run: async ({ args, data }): Promise<number> => {
    const io = commandIo(data);
    const tool = typeof args.tool === "string" ? { tool: args.tool } : {};
    const hash = typeof args.hash === "string" ? { hash: args.hash } : {};
    const identity = typeof args.id === "string" ? { id: args.id } : {};
    // Always the real controlling terminal: nothing a caller passes can answer for the person.
    const terminal = openControllingTerminal();
    try {
      return await runPinsAccept(
        {
          server: args.server,
          ...tool,
          ...hash,
          ...identity,
          json: args.json === true,
          home: home(io),
          terminal,
        },
        io,
      );
    } finally {
      terminal?.close();
    }
  },
});

/** `bouncer pins forget SERVER`. */
const forgetCommand = defineCommand({
  meta: {
    name: "forget",
    description:
      "Remove a server's pins: its next session pins it again on first sight; running sessions keep their pins until they restart",
  },
  args: {
    server: { type: "positional", description: "The server (--upstream-name)", required: true },
    id,
    json,
  },
  run: ({ args, data }): Promise<number> => {
    const io = commandIo(data);
    const identity = typeof args.id === "string" ? { id: args.id } : {};
    return runPinsForget({ server: args.server, ...identity, json: args.json === true, home: home(io) }, io);
  },
});

/** The citty definition of `bouncer pins`. */
export const pinsCommand = defineCommand({
  meta: { name: "pins", description: "List, accept or forget pinned tool definitions" },
  subCommands: { list: listCommand, accept: acceptSubcommand, forget: forgetCommand },
});

export default pinsCommand;
