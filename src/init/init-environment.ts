/**
 * Everything `bouncer init` and `bouncer doctor` take from the outside world, as one value: output
 * streams, environment, home directory, platform, running executable, clock, and how to ask the user.
 * The process supplies it in production; tests pass their own through citty's `data`. Edge.
 *
 * Source: STYLE #15 (commands are callable in tests), #18 (streams are given).
 * @module
 */

import { homedir } from "node:os";
import { createInterface } from "node:readline/promises";
import { type CommandIo, commandIo } from "../commands/io.ts";
import type { DiscoveryProbes } from "./client-files.ts";
import type { Launcher } from "./types.ts";

/** The outside world of `init` and `doctor`. */
export interface InitEnvironment {
  readonly io: CommandIo;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  readonly platform: NodeJS.Platform;
  /** The running executable (`process.execPath`), for the launcher. */
  readonly execPath: string;
  /** The CLI module's path, for the launcher (tests; default: this file tree's `src/cli.ts`). */
  readonly cliPath?: string;
  /** The clock (backup names, `doctor` timings). */
  readonly now: () => Date;
  /** Whether there is a terminal to ask "write these changes?" on. */
  readonly interactive: boolean;
  /**
   * Asks a yes/no question on the terminal: true only for an explicit yes, `"interrupted"` for
   * Ctrl+C, false for anything else (Ctrl+D included).
   */
  readonly confirm: (question: string) => Promise<boolean | "interrupted">;
  /** A launcher to use instead of looking for one (tests). */
  readonly launcher?: Launcher;
  /** File-system probes for discovery (tests). */
  readonly probes?: DiscoveryProbes;
}

/**
 * The environment of the running process, with the given io.
 *
 * Source: SPEC §5.2.
 * @param io - Where output goes.
 * @returns The process's environment.
 */
export function processEnvironment(io: CommandIo): InitEnvironment {
  return {
    io,
    env: process.env,
    home: homedir(),
    platform: process.platform,
    execPath: process.execPath,
    now: () => new Date(),
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    confirm: (question) => askOnTerminal(question),
  };
}

/**
 * The environment a command runs in: the process's, with the io of citty's `data.io` and any
 * fields given in `data.environment` (tests).
 *
 * Source: SPEC §5.2.
 * @param data - citty's `context.data`.
 * @returns The environment.
 */
export function environmentFrom(data: unknown): InitEnvironment {
  const base = processEnvironment(commandIo(data));
  if (typeof data !== "object" || data === null || !Object.hasOwn(data, "environment")) return base;
  const overrides: unknown = Reflect.get(data, "environment");
  if (typeof overrides !== "object" || overrides === null) return base;
  return { ...base, ...(overrides as Partial<InitEnvironment>) };
}

/** What Ctrl+C at the question resolves to (apart from any answer text). */
const INTERRUPTED = Symbol("interrupted");

/**
 * Asks a yes/no question on stderr and reads the answer from stdin (a terminal).
 *
 * Source: SPEC §5.2 (asks `[y/N]`); README exit codes (130 after Ctrl-C).
 * @param question - The question, e.g. `Write 2 files? [y/N] `.
 * @param streams - Where the answer is read and the question written (tests: a stream pair with
 *   `terminal: true`); default stdin and stderr, a terminal when stderr is one.
 * @returns True for `y` or `yes`; `"interrupted"` for Ctrl+C; false for anything else and Ctrl+D
 *   (end of input).
 */
export async function askOnTerminal(
  question: string,
  streams: {
    readonly input: NodeJS.ReadableStream;
    readonly output: NodeJS.WritableStream;
    readonly terminal?: boolean;
  } = { input: process.stdin, output: process.stderr },
): Promise<boolean | "interrupted"> {
  const terminal = createInterface(streams);
  // Ctrl+D at the question is a "no"; Ctrl+C stops `init` (exit 130). Nothing is written either way.
  const ended = new Promise<undefined>((resolve) => terminal.once("close", () => resolve(undefined)));
  const interrupted = new Promise<typeof INTERRUPTED>((resolve) =>
    terminal.once("SIGINT", () => resolve(INTERRUPTED)),
  );
  let answer: string | undefined | typeof INTERRUPTED;
  try {
    answer = await Promise.race([terminal.question(question), ended, interrupted]);
  } catch {
    answer = undefined;
  } finally {
    terminal.close();
  }
  if (typeof answer !== "string") streams.output.write("\n");
  if (answer === INTERRUPTED) return "interrupted";
  return answer !== undefined && /^(y|yes)$/i.test(answer.trim());
}
