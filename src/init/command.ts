/**
 * `bouncer init`: rewrites MCP client configs so that every stdio server is started through
 * `bouncer run`, shows a masked diff first, writes atomically with a backup, and can undo and check
 * its work. This is the folder's main file. Edge.
 *
 * ```
 * bouncer init [--config FILE | --client NAME] [--server NAME]... [--policy FILE]... [--dry-run] [--yes]
 * bouncer init --undo  [--config FILE | --client NAME] [--server NAME]... [--yes]
 * bouncer init --check [--config FILE | --client NAME]
 * ```
 * The command returns its exit status (0, 1 or 2) instead of exiting; `src/cli.ts` imports it lazily
 * (`initCommand`, also the default export). Tests run it with `runCommand(initCommand, { rawArgs,
 * data: { io, environment } })`.
 *
 * Source: SPEC §5.2, STYLE #15, #16.
 * @module
 */

import { type ArgsDef, defineCommand, renderUsage } from "citty";
import { assertKnownArgs, repeatedFlag } from "../platform/args.ts";
import { BouncerError, errorLine, exitCodeFor, isBouncerError } from "../platform/errors.ts";
import { runCheck } from "./check-run.ts";
import { CLIENT_FLAG_HELP } from "./client-table.ts";
import { environmentFrom } from "./init-environment.ts";
import { runInit } from "./init-run.ts";

/** The flags of `bouncer init` (SPEC §5.2). `--server` and `--policy` may be repeated. */
const initArgs = {
  config: { type: "string", description: "The client config file to rewrite", valueHint: "FILE" },
  client: { type: "string", description: CLIENT_FLAG_HELP, valueHint: "NAME" },
  server: { type: "string", description: "Only this server (repeatable)", valueHint: "NAME" },
  policy: {
    type: "string",
    description: "Policy file the wrapped servers use (repeatable)",
    valueHint: "FILE",
  },
  "dry-run": { type: "boolean", description: "Show the diff, write nothing" },
  yes: { type: "boolean", description: "Write without asking" },
  undo: { type: "boolean", description: "Restore the wrapped entries from their arguments after --" },
  check: {
    type: "boolean",
    description: "List servers that are not (or no longer) wrapped; exit 1 if any, 2 if no config is found",
  },
} as const satisfies ArgsDef;

/** `bouncer init` as a citty command; `run` returns the exit status. */
export const initCommand = defineCommand({
  meta: {
    name: "init",
    description: "Wrap every stdio MCP server of your clients with Bouncer (diff first, backup, undo)",
  },
  args: initArgs,
  run: async (context): Promise<number> => await runInitCommand(context.rawArgs, context.data),
});

export default initCommand;

/**
 * Runs `bouncer init` with raw arguments: checks the flags, then wraps, restores (`--undo`) or checks
 * (`--check`). Usage errors are printed and give 2.
 *
 * Source: SPEC §5.2.
 * @param rawArgs - The arguments after `init`.
 * @param data - citty's `data` (`{ io, environment }`), or undefined for the process's own.
 * @returns The exit status.
 */
export async function runInitCommand(rawArgs: readonly string[], data: unknown): Promise<number> {
  const environment = environmentFrom(data);
  const { io } = environment;
  const own = rawArgs.includes("--") ? rawArgs.slice(0, rawArgs.indexOf("--")) : rawArgs;
  if (own.includes("--help") || own.includes("-h")) {
    io.out(`${await renderUsage(initCommand)}\n`);
    return 0;
  }
  try {
    assertKnownArgs(rawArgs, initArgs, { command: "bouncer init" });
    const flag = (name: string): boolean => {
      const values = own.filter((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
      return values.length > 0 && values.at(-1) !== `--${name}=false`;
    };
    const single = (name: string): string | undefined => {
      const values = repeatedFlag(rawArgs, name);
      if (values.length > 1)
        throw new BouncerError("USAGE", `Cannot run "bouncer init": give --${name} once`);
      return values[0];
    };
    const config = single("config");
    const client = single("client");
    const servers = repeatedFlag(rawArgs, "server");
    const policies = repeatedFlag(rawArgs, "policy");
    const where = {
      ...(config === undefined ? {} : { config }),
      ...(client === undefined ? {} : { client }),
    };
    if (flag("check")) {
      // `--check` writes nothing: a flag about wrapping or writing would be silently ignored.
      const given = [
        ...(flag("undo") ? ["--undo"] : []),
        ...(policies.length > 0 ? ["--policy"] : []),
        ...(flag("dry-run") ? ["--dry-run"] : []),
        ...(flag("yes") ? ["--yes"] : []),
      ];
      if (given.length > 0) {
        const named =
          given.length === 1 ? given.join("") : `${given.slice(0, -1).join(", ")} and ${given.at(-1)}`;
        throw new BouncerError(
          "USAGE",
          `Cannot run "bouncer init --check": ${named} ${given.length === 1 ? "does" : "do"} not apply`,
        );
      }
      return await runCheck({ ...where, servers }, environment);
    }
    const request = {
      ...where,
      servers,
      policies,
      dryRun: flag("dry-run"),
      yes: flag("yes"),
      undo: flag("undo"),
    };
    return await runInit(request, environment);
  } catch (error) {
    if (!isBouncerError(error)) throw error;
    // Messages quote names and keys from config files: escaped for the terminal (a line feed too).
    io.err(errorLine(error.message));
    return exitCodeFor(error);
  }
}
