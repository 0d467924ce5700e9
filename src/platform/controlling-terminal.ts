/**
 * The controlling terminal (`/dev/tty`; `CONIN$` and `CONOUT$` on Windows), opened directly rather
 * than through stdin and stdout: a confirmation asked there is answered by the person at the
 * terminal, never by a program that only holds Bouncer's stdin (an agent's shell tool, a pipe).
 * Edge (file system; a read waits off the event loop, so the answer is awaited, not blocked on).
 *
 * Source: SPEC §3.4 ("asks for confirmation on the controlling terminal (`/dev/tty`, `CONIN$`) —
 * never from stdin or flags, so an agent's shell tool cannot approve for itself"), §5.8.
 * @module
 */

import { closeSync, openSync, read, writeSync } from "node:fs";

/** A terminal a command confirms on: the controlling terminal, or a test's stand-in. */
export interface ConfirmTerminal {
  /** Shows text on the terminal as it is (render untrusted text first). */
  write(text: string): void;
  /**
   * Reads one line typed (without its line ending); undefined at end of input or on an error. The
   * wait is asynchronous: the event loop runs while the person types.
   */
  readLine(): Promise<string | undefined>;
  /** Closes the terminal (idempotent). */
  close(): void;
}

/** Bytes of one answer read at most (a confirmation is a word). */
const MAX_LINE_BYTES = 4096;

/**
 * Opens the controlling terminal of the process.
 *
 * Source: SPEC §3.4, §5.8.
 * @param platform - The platform (`process.platform`).
 * @returns The terminal, or undefined when the process has none (no `/dev/tty`: `ENXIO`, a
 *   detached session, a service).
 */
export function openControllingTerminal(
  platform: NodeJS.Platform = process.platform,
): ConfirmTerminal | undefined {
  let input: number;
  let output: number;
  try {
    input = openSync(platform === "win32" ? "CONIN$" : "/dev/tty", platform === "win32" ? "r" : "r+");
  } catch {
    return undefined;
  }
  try {
    output = platform === "win32" ? openSync("CONOUT$", "w") : input;
  } catch {
    closeSync(input);
    return undefined;
  }
  let open = true;
  return {
    write(text) {
      if (open) writeSync(output, text);
    },
    async readLine() {
      if (!open) return undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      const buffer = Buffer.alloc(256);
      for (;;) {
        const count = await readOnce(input, buffer);
        if (count === undefined) return undefined;
        if (count === 0) return size === 0 ? undefined : lineOf(chunks);
        chunks.push(Buffer.from(buffer.subarray(0, count)));
        size += count;
        if (buffer.subarray(0, count).includes(0x0a) || size >= MAX_LINE_BYTES) return lineOf(chunks);
      }
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(input);
      if (output !== input) closeSync(output);
    },
  };
}

/**
 * One read of a file descriptor, off the event loop (the runtime's thread pool waits for the bytes).
 * @param fd - The terminal.
 * @param buffer - Where the bytes go.
 * @returns The bytes read (0 at end of input), or undefined on an error.
 */
function readOnce(fd: number, buffer: Buffer): Promise<number | undefined> {
  return new Promise((resolve) => {
    read(fd, buffer, 0, buffer.length, null, (error, count) => resolve(error ? undefined : count));
  });
}

/**
 * The first line of what was read, without its line ending.
 * @param chunks - The bytes read.
 * @returns The line.
 */
function lineOf(chunks: readonly Buffer[]): string {
  return (Buffer.concat(chunks).toString("utf8").split("\n")[0] ?? "").replace(/\r$/, "");
}

/**
 * Asks a yes/no question on a terminal: true only for `y` or `yes` (any case); anything else, and
 * end of input (Ctrl+D), is no.
 *
 * Source: SPEC §3.4.
 * @param terminal - Where to ask.
 * @param question - The question, e.g. `Accept this definition? [y/N] `.
 * @returns Whether the answer was yes.
 */
export async function confirmOn(terminal: ConfirmTerminal, question: string): Promise<boolean> {
  terminal.write(question);
  const answer = await terminal.readLine();
  if (answer === undefined) terminal.write("\n");
  return answer !== undefined && /^(y|yes)$/i.test(answer.trim());
}
