/**
 * `bouncer run`: the citty command. Parses and validates every flag (unknown → exit 2), then runs the
 * proxy over the process's stdin/stdout until the session ends and returns the exit status
 * (`src/cli.ts` exits with it). Edge.
 *
 * Source: SPEC §5.1, §3.2 step 1, STYLE #15.
 * @module
 */

import type { CommandDef } from "citty";
import { type CommandIo, writesToProcess } from "../commands/io.ts";
import { type StderrFlow, StderrOutput } from "../platform/stderr-output.ts";
import { parseRunArgs, runArgs } from "./run-args.ts";
import { runProxy } from "./run-proxy.ts";

/**
 * Where diagnostics go: the command's io when `src/cli.ts` passes one of its own (tests), else the
 * process's stderr, through a writer that tells when it is backed up (SPEC §3.3: an upstream's
 * stderr flood into a stderr nobody reads cannot grow Bouncer's memory).
 * @param data - citty's `data` (`{ io }` from `src/cli.ts`).
 * @returns A stderr writer, and its back-pressure when it is the process's stderr.
 */
function diagnostics(data: unknown): {
  readonly writeStderr: (text: string) => void;
  readonly stderrFlow?: StderrFlow;
} {
  const io: unknown =
    typeof data === "object" && data !== null && Object.hasOwn(data, "io")
      ? Reflect.get(data, "io")
      : undefined;
  if (
    typeof io === "object" &&
    io !== null &&
    Object.hasOwn(io, "err") &&
    !writesToProcess(io as CommandIo)
  ) {
    const err = (io as CommandIo).err;
    return { writeStderr: (text) => err(text) };
  }
  const output = new StderrOutput(process.stderr);
  return { writeStderr: output.write, stderrFlow: output };
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
    return runProxy(options, { stdin: process.stdin, stdout: process.stdout, ...diagnostics(data) });
  },
};

export default runCommand;
