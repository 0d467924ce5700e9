/**
 * Lazily imported subcommands: a command module is loaded only when its command runs, and a module
 * missing from a build (or failing to load) makes that one command a stand-in that fails in words
 * (exit 1) while the others keep working. Edge.
 *
 * Source: SPEC §1 (subcommands lazily imported), §5.
 * @module
 */

import type { CommandDef } from "citty";
// A deep import on purpose (STYLE #9 otherwise): loaded by every command at start-up: not the whole engine.
import { errorText } from "../engine/error-text.ts";
import { BouncerError } from "../platform/errors.ts";

/** Any citty command (the argument types differ per command). */
// biome-ignore lint/suspicious/noExplicitAny: citty's own SubCommandsDef uses CommandDef<any>
export type AnyCommand = CommandDef<any>;

/** Commands standing in for ones this build cannot load (run at once, whatever the arguments). */
const STAND_INS = new WeakSet<AnyCommand>();

/**
 * Whether a command is a stand-in for one this build cannot load (it runs at once, whatever the
 * arguments, to say why).
 * @param command - A resolved command.
 * @returns True for a stand-in.
 */
export function isStandIn(command: AnyCommand): boolean {
  return STAND_INS.has(command);
}

/**
 * A lazily imported subcommand. When the module is absent from this build (or fails to load), the
 * command resolves to a hidden stand-in that fails with `Command "NAME" is not available in this
 * build` and the reason (exit 1); the other commands and `--help` keep working.
 *
 * Source: SPEC §1 (subcommands lazily imported), §5.
 * @param name - The subcommand name.
 * @param load - Imports the command module.
 * @param exportName - The named export holding the command (the default export is the fallback).
 * @returns A citty resolvable command.
 */
export function lazyCommand(
  name: string,
  load: () => Promise<unknown>,
  exportName: string,
): () => Promise<AnyCommand> {
  return async (): Promise<AnyCommand> => {
    let module: unknown;
    try {
      module = await load();
    } catch (error) {
      const detail = errorText(error);
      return unavailable(
        name,
        isModuleNotFound(error) ? "its command file is missing" : `it failed to load: ${detail}`,
      );
    }
    for (const key of [exportName, "default"]) {
      if (typeof module === "object" && module !== null && Object.hasOwn(module, key)) {
        const command: unknown = Reflect.get(module, key);
        if (typeof command === "object" && command !== null) return command as AnyCommand;
      }
    }
    return unavailable(name, `its module exports no "${exportName}"`);
  };
}

/**
 * Whether an import failed because a module file does not exist.
 * @param error - The import's rejection.
 * @returns True for a missing module.
 */
function isModuleNotFound(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = Reflect.get(error, "code");
  return code === "ERR_MODULE_NOT_FOUND" || /Cannot find module/i.test(error.message);
}

/**
 * A hidden command standing in for one that is not in this build.
 * @param name - The command name.
 * @param why - Why it is unavailable (for the message).
 * @returns A command whose run fails with exit 1.
 */
function unavailable(name: string, why: string): AnyCommand {
  const command: AnyCommand = {
    meta: { name, hidden: true, description: "Not available in this build" },
    run: (): never => {
      throw new BouncerError(
        "COMMAND_UNAVAILABLE",
        `Command "${name}" is not available in this build: ${why}`,
      );
    },
  };
  STAND_INS.add(command);
  return command;
}
