/**
 * Terminals for `bouncer pins accept` tests: a stand-in `ConfirmTerminal` given at the function
 * level (what it shows is kept; each question gets the next answer), and the real CLI run under a
 * pseudo-terminal made by util-linux `script`, whose controlling terminal is that pty (SPEC §3.4:
 * the confirmation is read from `/dev/tty`, never from stdin).
 */

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { ConfirmTerminal } from "../../../src/platform/controlling-terminal.ts";
import { BUN, ROOT } from "./harness.ts";

/**
 * A stand-in terminal.
 * @param answers - The lines typed, in order (then end of input).
 * @param options - `beforeAnswer`: runs before each answer is given (the upstream changing the
 *   definition while the person reads it).
 * @returns The terminal and what it showed.
 */
export function fakeTerminal(
  answers: readonly string[],
  options: { readonly beforeAnswer?: () => Promise<void> } = {},
): { readonly terminal: ConfirmTerminal; readonly shown: () => string; readonly closed: () => boolean } {
  let shown = "";
  let next = 0;
  let closed = false;
  return {
    terminal: {
      write: (text) => {
        shown += text;
      },
      readLine: async () => {
        await options.beforeAnswer?.();
        const answer = answers[next];
        next += 1;
        return answer;
      },
      close: () => {
        closed = true;
      },
    },
    shown: () => shown,
    closed: () => closed,
  };
}

/** Whether util-linux `script` is there to give a command a pseudo-terminal. */
export const HAS_SCRIPT = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

/**
 * A word a POSIX shell reads back as it is.
 * @param word - Any string.
 * @returns The word, single-quoted.
 */
function quote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * Runs `bouncer pins ARGS` through the real CLI with a pseudo-terminal as its controlling terminal
 * (`script -qec`), typing `typed` at it; stdin, stdout and stderr are all that terminal.
 * @param home - `BOUNCER_HOME`.
 * @param args - The arguments after `pins`.
 * @param typed - What the person types (e.g. `"y\n"`).
 * @returns The exit status and everything the terminal showed.
 */
export function pinsUnderPty(
  home: string,
  args: readonly string[],
  typed: string,
): { readonly status: number | null; readonly screen: string } {
  const command = [BUN, join(ROOT, "src/cli.ts"), "pins", ...args].map(quote).join(" ");
  const run = spawnSync("script", ["-qec", command, "/dev/null"], {
    cwd: ROOT,
    encoding: "utf8",
    input: typed,
    env: { ...process.env, BOUNCER_HOME: home, NO_COLOR: "1" },
  });
  return { status: run.status, screen: run.stdout };
}
