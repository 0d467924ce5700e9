#!/usr/bin/env bun
/**
 * The `bouncer` command line: the citty root command. The only file that reads `process.argv` or
 * calls `process.exit` (STYLE #15). Subcommands are imported lazily from each edge folder's command
 * file; a command file missing from a build makes that one command unavailable (exit 1), never the
 * others. Commands return their exit status; a {@link BouncerError} maps to 2 (usage or policy) or 1.
 * Edge.
 *
 * Dispatch is Bouncer's own (then citty's `runCommand` for the chosen command), so that: `--help`
 * works on every command, unknown flags are rejected (exit 2), a command name is looked up with
 * `Object.hasOwn` (citty's `in` would find `constructor`), and the command's return value is the exit
 * status. citty is loaded only when needed: `bouncer run` parses its own flags and is called directly,
 * so that it reaches the upstream's spawn sooner (SPEC §3.2 step 1).
 *
 * Source: SPEC §5 (exit codes 0/1/2, `--help`, unknown flags), §6 (`--version`).
 * @module
 */

import { fstatSync } from "node:fs";
import type { ArgsDef, CommandMeta } from "citty";
import packageJson from "../package.json" with { type: "json" };
import { type CommandIo, processIo } from "./commands/io.ts";
import { type AnyCommand, isStandIn, lazyCommand } from "./commands/lazy-command.ts";
// A deep import on purpose (STYLE #9 otherwise): loaded by every command at start-up: not the whole engine.
import { errorText } from "./engine/error-text.ts";
import { assertKnownArgs } from "./platform/args.ts";
import { BouncerError, errorCode, errorLine, exitCodeFor, isBouncerError } from "./platform/errors.ts";

/** Bouncer's version, from package.json (embedded by the compiler). */
export const VERSION: string = packageJson.version;

/**
 * Commands that parse their own raw arguments (after the strict flag check), called without citty:
 * `bouncer run` starts the upstream before anything slow (SPEC §3.2 step 1).
 */
const OWN_PARSERS: ReadonlySet<string> = new Set(["bouncer run"]);

/**
 * What follows `[OPTIONS]` on the USAGE line of commands whose operands citty does not know (their
 * words after `--` are passed through unchecked).
 */
const USAGE_OPERANDS: ReadonlyMap<string, string> = new Map([
  ["bouncer run", "-- COMMAND [ARG]..."],
  ["bouncer explain", "[-- COMMAND [ARG]...]"],
]);

/**
 * Commands SPEC §5 describes that this build does not have (§5.4 `serve`, §5.8 `approve`), named,
 * not "unknown", when asked for. The message points at nothing the binary does not ship with.
 */
const NOT_BUILT: ReadonlyMap<string, string> = new Map([
  ["serve", "Bouncer as its own MCP server"],
  ["approve", "out-of-band approvals"],
]);

const HELP_FLAGS: ReadonlySet<string> = new Set(["--help", "-h"]);
const VERSION_FLAGS: ReadonlySet<string> = new Set(["--version", "-v"]);

/**
 * The root command. The import specifiers are typed as `string` so that type checking does not
 * require command files other helpers are still writing; the bundler still sees the literal path.
 */
export const rootCommand: AnyCommand = {
  meta: {
    name: "bouncer",
    version: VERSION,
    description:
      "A local stdio MCP proxy that decides every tools/call: should this destination receive this value?",
  },
  subCommands: {
    run: lazyCommand("run", () => import("./proxy/command.ts" as string), "runCommand"),
    init: lazyCommand("init", () => import("./init/command.ts" as string), "initCommand"),
    doctor: lazyCommand("doctor", () => import("./init/doctor-command.ts" as string), "doctorCommand"),
    check: lazyCommand("check", () => import("./commands/check.ts" as string), "checkCommand"),
    explain: lazyCommand("explain", () => import("./commands/explain.ts" as string), "explainCommand"),
    replay: lazyCommand("replay", () => import("./commands/replay.ts" as string), "replayCommand"),
    packs: lazyCommand("packs", () => import("./commands/packs.ts" as string), "packsCommand"),
    audit: lazyCommand("audit", () => import("./audit/command.ts" as string), "auditCommand"),
    pins: lazyCommand("pins", () => import("./proxy/pins-command.ts" as string), "pinsCommand"),
  },
};

/** The command a command line selects, with its own arguments and the names that led to it. */
interface Target {
  readonly command: AnyCommand;
  readonly path: readonly string[];
  readonly args: readonly string[];
}

/**
 * Resolves a value citty allows to be lazy (a value, a promise or a function returning either).
 * @param value - The resolvable.
 * @returns The value.
 */
async function resolve<T>(value: T | Promise<T> | (() => T | Promise<T>)): Promise<T> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

/**
 * Walks the subcommand tree along the command line. Flags given before a subcommand name are checked
 * against the parent command's flags.
 * @param argv - The arguments after the executable.
 * @returns The selected command and its arguments.
 * @throws {BouncerError} `UNKNOWN_COMMAND` (exit 2) for a name that is not a subcommand.
 */
async function selectCommand(argv: readonly string[]): Promise<Target> {
  let command = rootCommand;
  const path = ["bouncer"];
  let args = argv;
  for (;;) {
    if (isStandIn(command)) break;
    const subCommands = command.subCommands === undefined ? undefined : await resolve(command.subCommands);
    if (subCommands === undefined || Object.keys(subCommands).length === 0) break;
    const index = args.findIndex((arg) => !arg.startsWith("-") || arg === "-");
    const dash = args.indexOf("--");
    if (index === -1 || (dash !== -1 && dash < index)) break;
    const name = args[index] ?? "";
    if (!Object.hasOwn(subCommands, name)) {
      const planned = path.length === 1 ? NOT_BUILT.get(name) : undefined;
      if (planned !== undefined) {
        throw new BouncerError(
          "UNKNOWN_COMMAND",
          `"bouncer ${name}" (${planned}) is not built yet in this version (${VERSION}): run "bouncer --help" for the commands it has`,
        );
      }
      throw new BouncerError(
        "UNKNOWN_COMMAND",
        `Unknown command "${name}": run "${path.join(" ")} --help" for the commands`,
      );
    }
    const before = args.slice(0, index).filter((arg) => !HELP_FLAGS.has(arg));
    assertKnownArgs(before, (await resolve(command.args ?? {})) as ArgsDef, { command: path.join(" ") });
    command = await resolve(subCommands[name] as AnyCommand);
    path.push(name);
    args = args.slice(index + 1);
  }
  return { command, path, args };
}

/**
 * Renders a command's `--help` text with its full name (`bouncer packs show`).
 * @param target - The selected command.
 * @returns The usage text, without colour unless `color` is set.
 */
async function usage(target: Target, color: boolean): Promise<string> {
  const meta: CommandMeta = await resolve(target.command.meta ?? {});
  const name = target.path.at(-1) ?? "bouncer";
  const parentName = target.path.slice(0, -1).join(" ");
  const { renderUsage } = await import("citty");
  const text = await renderUsage(
    { ...target.command, meta: { ...meta, name } },
    parentName === "" ? undefined : { meta: { name: parentName, version: VERSION } },
  );
  const plain = color ? text : stripAnsi(text);
  const operands = USAGE_OPERANDS.get(target.path.join(" "));
  if (operands === undefined) return plain;
  // The USAGE line ends "[OPTIONS] " or "[OPTIONS] <TOOL>", maybe followed by a colour reset: the
  // operands go after the last word.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the ESC of colour codes
  return plain.replace(/^(.*USAGE.*\[OPTIONS\].*?)[ \t]*((?:\u001b\[[0-9;]*m)*)$/m, `$1 ${operands}$2`);
}

/**
 * Removes ANSI escape sequences (citty colours its help text and its own errors).
 * @param text - Text that may hold colour codes.
 * @returns The plain text.
 */
function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the ESC of colour codes
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

/**
 * Runs the command line and returns the exit status: 0 success, 1 runtime failure, 2 usage or policy
 * error (SPEC §5). Never exits the process itself.
 *
 * Source: SPEC §5 (exit codes 0/1/2), §6 (`--version`); STYLE #15.
 * @param argv - The arguments after the executable (`process.argv.slice(2)`).
 * @param io - Where output goes (the process's streams by default).
 * @returns The exit status.
 */
export async function main(argv: readonly string[], io: CommandIo = processIo()): Promise<number> {
  let target: Target | undefined;
  try {
    if (VERSION_FLAGS.has(argv[0] ?? "")) {
      if (argv.length > 1) {
        throw new BouncerError(
          "USAGE",
          `Cannot run "bouncer ${argv[0]}": it takes nothing else, got "${argv[1]}"`,
        );
      }
      io.out(`${VERSION}\n`);
      return 0;
    }
    target = await selectCommand(argv);
    if (isStandIn(target.command)) {
      await (await import("citty")).runCommand(target.command, { rawArgs: [] });
    }
    const dash = target.args.indexOf("--");
    const own = dash === -1 ? target.args : target.args.slice(0, dash);
    if (own.some((arg) => HELP_FLAGS.has(arg))) {
      io.out(`${await usage(target, io.color)}\n`);
      return 0;
    }
    const argsDef = (await resolve(target.command.args ?? {})) as ArgsDef;
    if (target.command.run === undefined) {
      assertKnownArgs(target.args, argsDef, { command: target.path.join(" "), extraPositionals: true });
      io.err(`${await usage(target, false)}\n`);
      throw new BouncerError(
        "USAGE",
        `Missing command: run "${target.path.join(" ")} --help" for the commands`,
      );
    }
    const command = target.path.join(" ");
    assertKnownArgs(target.args, argsDef, { command, passThrough: USAGE_OPERANDS.has(command) });
    const result = await runTarget(target, io);
    return typeof result === "number" && Number.isInteger(result) ? result : 0;
  } catch (error) {
    return report(error, { io, command: target?.path.join(" ") ?? "bouncer" });
  }
}

/**
 * Runs the selected command: through citty's `runCommand`, or, for a command that parses its own
 * raw arguments, by calling its `run` directly (citty is then never loaded).
 * @param target - The selected command, its arguments already checked.
 * @param io - Where output goes (passed as citty's `data`).
 * @returns What the command's `run` returned.
 */
async function runTarget(target: Target, io: CommandIo): Promise<unknown> {
  const rawArgs = [...target.args];
  const { command } = target;
  if (OWN_PARSERS.has(target.path.join(" ")) && command.run !== undefined) {
    // citty's parsed `args` would go unused: the command reads `rawArgs`.
    const context = { rawArgs, args: { _: [] }, cmd: command, data: { io } };
    return command.run(context as unknown as Parameters<typeof command.run>[0]);
  }
  const { runCommand } = await import("citty");
  return (await runCommand(command, { rawArgs, data: { io } })).result;
}

/**
 * Prints an error on stderr and maps it to an exit status.
 * @param error - What a command threw.
 * @param options - The io and the command name (for citty's own argument errors).
 * @returns 2 for usage and policy errors (including citty's argument errors), else 1.
 */
function report(error: unknown, options: { readonly io: CommandIo; readonly command: string }): number {
  // Messages quote file names and values as the user gave them: errorLine escapes their controls.
  if (error instanceof Error && (isBouncerError(error) || exitCodeFor(error) === 2)) {
    options.io.err(errorLine(error.message));
    return exitCodeFor(error);
  }
  if (error instanceof Error && error.name === "CLIError") {
    const message = stripAnsi(error.message).replace(/\.$/, "");
    options.io.err(errorLine(`Cannot run "${options.command}": ${message}`));
    return 2;
  }
  const message = errorText(error);
  options.io.err(errorLine(`Unexpected failure: ${message}`));
  if (process.env.BOUNCER_DEBUG === "1" && error instanceof Error && error.stack !== undefined) {
    options.io.err(`${error.stack}\n`);
  }
  return 1;
}

/** How long a finished command may wait for handles it left open before it is ended (ms). */
const EXIT_FALLBACK_MS = 3000;

/**
 * Whether standard output is a pipe or a socket: there, output waits in the process for the
 * reader, however slow (`| less`), and ending the process early would drop it.
 * @returns True for a FIFO or a socket.
 */
function stdoutIsPipe(): boolean {
  try {
    const stats = fstatSync(1);
    return stats.isFIFO() || stats.isSocket();
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  if (argv[0] !== "run") {
    // A reader that went away (`audit --follow | head -1`): stop at once and quietly, as a Unix tool
    // on SIGPIPE does, instead of following into a closed pipe. (`run` handles its own pipes.)
    process.stdout.on("error", (error) => {
      if (errorCode(error) !== "EPIPE")
        process.stderr.write(`bouncer: Cannot write the output: ${String(error)}\n`);
      process.exit(errorCode(error) === "EPIPE" ? 0 : 1);
    });
  }
  const code = await main(argv);
  if (argv[0] === "run") process.exit(code);
  // Output to a pipe whose reader is slow is still inside the process: `process.exit` would drop
  // it (`audit --json | slow` lost most of its lines), so the process ends on its own once it is
  // written. To a terminal or a file, output is written at once: there, anything left open cannot
  // keep a finished command alive past a moment. `run` flushes its own output and ends at once
  // (SPEC §3.3).
  process.exitCode = code;
  if (!stdoutIsPipe()) setTimeout(() => process.exit(code), EXIT_FALLBACK_MS).unref();
}
