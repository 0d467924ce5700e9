/**
 * `bouncer pins list [SERVER] | accept SERVER [TOOL] | forget SERVER` (`--json` on each): the
 * command's arguments, read by citty and handed to each subcommand's run function — listing the
 * pinned and pending definitions under `$BOUNCER_HOME/pins` (`pins-view.ts`), accepting pending ones
 * from a terminal (`pins-accept.ts`), forgetting a server from a terminal (`pins-forget.ts`). Edge.
 *
 * Source: SPEC §5.7, §2.2.
 * @module
 */

import { defineCommand } from "citty";
import { type CommandIo, commandIo } from "../commands/io.ts";
import { openControllingTerminal } from "../platform/controlling-terminal.ts";
import { bouncerHome } from "../platform/home-dir.ts";
import { runPinsAccept } from "./pins-accept.ts";
import { runPinsForget } from "./pins-forget.ts";
import { runPinsList } from "./pins-view.ts";

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
    id,
    full: {
      type: "boolean",
      description: "Show every change whole and each pending definition in full",
    },
    json,
  },
  run: ({ args, data }): number => {
    const io = commandIo(data);
    const server = typeof args.server === "string" && args.server !== "" ? { server: args.server } : {};
    const identity = typeof args.id === "string" ? { id: args.id } : {};
    return runPinsList(
      { ...server, ...identity, full: args.full === true, json: args.json === true, home: home(io) },
      io,
    );
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
      "Remove a server's pins, confirmed on the terminal (/dev/tty): its next session pins it again on first sight; running sessions keep their pins until they restart",
  },
  args: {
    server: { type: "positional", description: "The server (--upstream-name)", required: true },
    id,
    json,
  },
  run: async ({ args, data }): Promise<number> => {
    const io = commandIo(data);
    const identity = typeof args.id === "string" ? { id: args.id } : {};
    // Always the real controlling terminal, as for accept: nothing a caller passes can answer.
    const terminal = openControllingTerminal();
    try {
      return await runPinsForget(
        { server: args.server, ...identity, json: args.json === true, home: home(io), terminal },
        io,
      );
    } finally {
      terminal?.close();
    }
  },
});

/** The citty definition of `bouncer pins`. */
export const pinsCommand = defineCommand({
  meta: { name: "pins", description: "List, accept or forget pinned tool definitions" },
  subCommands: { list: listCommand, accept: acceptSubcommand, forget: forgetCommand },
});

export default pinsCommand;
