/**
 * `bouncer run`: the citty command. Parses and validates every flag (unknown → exit 2), then runs the
 * proxy over the process's stdin/stdout until the session ends and returns the exit status
 * (`src/cli.ts` exits with it). Edge.
 *
 * Source: SPEC §5.1, §3.2 step 1, STYLE #15.
 * @module
 */

import type { CommandDef } from "citty";
import type { CommandIo } from "../commands/io.ts";
import { parseRunArgs, runArgs } from "./run-args.ts";
import { runProxy } from "./run-proxy.ts";

/**
 * Where diagnostics go: the command's io when `src/cli.ts` passes one, else the process's stderr.
 * @param data - citty's `data` (`{ io }` from `src/cli.ts`).
 * @returns A stderr writer.
 */
function stderrWriter(data: unknown): (text: string) => void {
  const io: unknown =
    typeof data === "object" && data !== null && Object.hasOwn(data, "io")
      ? Reflect.get(data, "io")
      : undefined;
  if (typeof io === "object" && io !== null && Object.hasOwn(io, "err")) {
    const err = (io as CommandIo).err;
    return (text) => err(text);
  }
  return (text) => void process.stderr.write(text);
}

/**
 * The `bouncer run` command. Its `run` returns the exit status: 0 when the client went away, 1 when
 * the upstream died, 2 for a usage or policy error. It reads only `rawArgs` (and `data.io`), so
 * `src/cli.ts` calls it without citty, and this file loads no citty code (a plain command object).
 *
 * Source: SPEC §5.1.
 */
export const runCommand: CommandDef<typeof runArgs> = {
  meta: {
    name: "run",
    description:
      "Run an MCP server behind Bouncer: bouncer run --upstream-name NAME [flags] -- COMMAND [ARG]... (or --config CLIENT_CONFIG)",
  },
  args: runArgs,
  run: async ({ rawArgs, data }): Promise<number> => {
    const options = parseRunArgs(rawArgs);
    return runProxy(options, {
      stdin: process.stdin,
      stdout: process.stdout,
      writeStderr: stderrWriter(data),
    });
  },
};

export default runCommand;
