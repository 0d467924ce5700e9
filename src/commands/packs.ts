/**
 * `bouncer packs list | show NAME` (`--json` on both): the curated packs embedded in this build —
 * which servers each is for, which server version it was checked against, and its rules. Edge.
 *
 * Source: SPEC §5.7, §4.3.
 * @module
 */

import { defineCommand } from "citty";
import { safeName } from "../engine/index.ts";
import { BouncerError } from "../platform/errors.ts";
import { builtinPacks, builtinPackTexts } from "../platform/packs.ts";
import { terminalJson } from "../platform/terminal-json.ts";
import { packJson } from "../policy/index.ts";
import { type CommandIo, commandIo } from "./io.ts";

/**
 * Runs `bouncer packs list`.
 *
 * Source: SPEC §5.7.
 * @param options - Whether to print JSON.
 * @param io - Where output goes.
 * @returns 0.
 */
export function runPacksList(options: { readonly json?: boolean }, io: CommandIo): number {
  const packs = builtinPacks();
  if (options.json === true) {
    const list = packs.map((pack) => {
      const { name, header, match } = packJson(pack);
      return { name, header, match, tools: pack.tools.size };
    });
    io.out(`${terminalJson(list)}\n`);
    return 0;
  }
  const width = Math.max(4, ...packs.map((pack) => pack.name.length));
  const lines = [`${"NAME".padEnd(width)}  TOOLS  FOR`];
  for (const pack of packs) {
    const matches = [...new Set([...pack.match.commands, ...pack.match.serverNames])].join(", ");
    lines.push(`${pack.name.padEnd(width)}  ${String(pack.tools.size).padStart(5)}  ${matches}`);
  }
  io.out(`${lines.join("\n")}\n`);
  return 0;
}

/**
 * Runs `bouncer packs show NAME`: the pack file as embedded (its header says which server and
 * version it was checked against), or the pack as one JSON document.
 *
 * Source: SPEC §5.7.
 * @param name - The pack name.
 * @param options - Whether to print JSON.
 * @param io - Where output goes.
 * @returns 0.
 * @throws {BouncerError} `PACK_UNKNOWN` (exit 2) when no pack has that name.
 */
export function runPacksShow(
  name: string,
  options: { readonly json?: boolean; readonly io: CommandIo },
): number {
  const packs = builtinPacks();
  const pack = packs.find((candidate) => candidate.name === name);
  if (pack === undefined) {
    const known = packs.map((candidate) => candidate.name).join(", ");
    throw new BouncerError(
      "PACK_UNKNOWN",
      `Unknown pack ${safeName(JSON.stringify(name))}: the packs are ${known}`,
    );
  }
  const json = packJson(pack);
  if (options.json === true) {
    options.io.out(`${terminalJson(json)}\n`);
    return 0;
  }
  const text = builtinPackTexts().find(([packName]) => packName === pack.name)?.[1] ?? "";
  options.io.out(text.endsWith("\n") ? text : `${text}\n`);
  return 0;
}

/** `bouncer packs list`. */
const listCommand = defineCommand({
  meta: { name: "list", description: "List the curated packs and the servers each is for" },
  args: { json: { type: "boolean", description: "Print one JSON document" } },
  run: ({ args, data }): number => runPacksList({ json: args.json === true }, commandIo(data)),
});

/** `bouncer packs show NAME`. */
const showCommand = defineCommand({
  meta: { name: "show", description: "Print one pack file: its match patterns and rules" },
  args: {
    name: {
      type: "positional",
      description: "The pack name (see bouncer packs list)",
      required: true,
    },
    json: { type: "boolean", description: "Print one JSON document" },
  },
  run: ({ args, data }): number => runPacksShow(args.name, { json: args.json === true, io: commandIo(data) }),
});

/** The citty definition of `bouncer packs`. */
export const packsCommand = defineCommand({
  meta: { name: "packs", description: "List the curated policy packs or show one" },
  subCommands: { list: listCommand, show: showCommand },
});

export default packsCommand;
