/**
 * `bouncer doctor [--config FILE | --client NAME] [--json]`: starts every configured server as its
 * client would (a project file of the working directory only when named with `--config`) and reports
 * on it. The command returns its exit status; `src/cli.ts` imports it lazily
 * (`doctorCommand`, also the default export). Edge.
 *
 * Source: SPEC §5.3, STYLE #15.
 * @module
 */

import { type ArgsDef, defineCommand, renderUsage } from "citty";
import { assertKnownArgs, repeatedFlag } from "../platform/args.ts";
import { BouncerError, errorLine, exitCodeFor, isBouncerError } from "../platform/errors.ts";
import { CLIENT_FLAG_HELP } from "./client-table.ts";
import { runDoctor } from "./doctor.ts";
import { environmentFrom } from "./init-environment.ts";

/** The flags of `bouncer doctor` (SPEC §5.3). */
const doctorArgs = {
  config: { type: "string", description: "The client config file to check", valueHint: "FILE" },
  client: { type: "string", description: CLIENT_FLAG_HELP, valueHint: "NAME" },
  json: { type: "boolean", description: "One JSON document instead of a table" },
} as const satisfies ArgsDef;

/** `bouncer doctor` as a citty command; `run` returns the exit status. */
export const doctorCommand = defineCommand({
  meta: {
    name: "doctor",
    description:
      "Start every configured MCP server as its client would and report what Bouncer sees (a project file of the current folder only when named with --config)",
  },
  args: doctorArgs,
  run: async (context): Promise<number> => await runDoctorCommand(context.rawArgs, context.data),
});

export default doctorCommand;

/**
 * Runs `bouncer doctor` with raw arguments.
 *
 * Source: SPEC §5.3.
 * @param rawArgs - The arguments after `doctor`.
 * @param data - citty's `data` (`{ io, environment, doctor }`), or undefined for the process's own;
 *   `doctor` may hold {@link DoctorOptions} (tests).
 * @returns The exit status.
 */
export async function runDoctorCommand(rawArgs: readonly string[], data: unknown): Promise<number> {
  const environment = environmentFrom(data);
  const { io } = environment;
  if (rawArgs.includes("--help") || rawArgs.includes("-h")) {
    io.out(`${await renderUsage(doctorCommand)}\n`);
    return 0;
  }
  try {
    assertKnownArgs(rawArgs, doctorArgs, { command: "bouncer doctor" });
    const single = (name: string): string | undefined => {
      const values = repeatedFlag(rawArgs, name);
      if (values.length > 1)
        throw new BouncerError("USAGE", `Cannot run "bouncer doctor": give --${name} once`);
      return values[0];
    };
    const config = single("config");
    const client = single("client");
    const json = rawArgs.some((arg) => arg === "--json" || arg === "--json=true");
    const request = {
      json,
      ...(config === undefined ? {} : { config }),
      ...(client === undefined ? {} : { client }),
    };
    const options =
      typeof data === "object" && data !== null && Object.hasOwn(data, "doctor")
        ? Reflect.get(data, "doctor")
        : {};
    return await runDoctor(request, environment, options ?? {});
  } catch (error) {
    if (!isBouncerError(error)) throw error;
    // A message quotes `--config` and `--client` as given: errorLine escapes their control characters.
    io.err(errorLine(error.message));
    return exitCodeFor(error);
  }
}
