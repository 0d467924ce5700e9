/**
 * `bouncer pins forget SERVER [--id ID]`: shows on the controlling terminal what would be forgotten
 * and asks there (y/N); only a yes typed at the terminal removes the server's pin files. Forgetting
 * is accepting whatever the upstream lists next, unseen (its next session pins on first sight), so
 * it is asked as `pins accept` is: without a terminal it refuses, and no flag or variable skips the
 * question. Edge.
 *
 * Source: SPEC §5.7, §2.2 (first sight pins), §3.4 (a confirmation is asked on the controlling
 * terminal, "so an agent's shell tool cannot approve for itself"); review of `bouncer pins` (an
 * agent told to run `pins accept` could run `pins forget` and restart the server instead).
 * @module
 */

import type { CommandIo } from "../commands/io.ts";
import { safeName } from "../engine/index.ts";
import { type ConfirmTerminal, confirmOn } from "../platform/controlling-terminal.ts";
import { BouncerError } from "../platform/errors.ts";
import { terminalJson } from "../platform/terminal-json.ts";
import { identityLabel, pinsToForget, removePinFiles } from "./pin-admin.ts";
import type { PinFile } from "./pin-file.ts";

/** What `runPinsForget` takes. */
export interface PinsForgetOptions {
  readonly server: string;
  /** The file id of the identity to forget (`--id`), when the name has several. */
  readonly id?: string;
  readonly json?: boolean;
  readonly home: string;
  /**
   * The controlling terminal to confirm on (`openControllingTerminal()`; tests pass a stand-in);
   * undefined when the process has none: forgetting is refused.
   */
  readonly terminal: ConfirmTerminal | undefined;
}

/**
 * What one pin file holds, for the question: its tools pinned and definitions pending.
 * @param file - Its content, when it could be read.
 * @returns e.g. `3 tools pinned, 1 definition pending`.
 */
function contents(file: PinFile | undefined): string {
  if (file === undefined) return "a pin file that cannot be read";
  const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`;
  return `${plural(file.tools.length, "tool")} pinned, ${plural(file.pending.length, "definition")} pending`;
}

/**
 * Runs `bouncer pins forget`: chooses the server's pin files (one identity), shows what each holds
 * on the terminal, asks, and on a yes removes them.
 *
 * Source: SPEC §5.7, §3.4.
 * @param options - Server, identity id, JSON output, Bouncer's home, the terminal.
 * @param io - Where the result goes (the question goes to the terminal).
 * @returns 0 when forgotten or declined (nothing removed: said so).
 * @throws {BouncerError} `USAGE` (exit 2) for an empty SERVER, a bad `--id`, or no terminal to
 *   confirm on (looked at once the files are chosen); exit 1 when the server has no pins (of that
 *   id), several identities and no `--id`, or a file cannot be removed.
 */
export async function runPinsForget(options: PinsForgetOptions, io: CommandIo): Promise<number> {
  // An empty SERVER (an unset shell variable) is a usage error, as for pins accept (SPEC §5).
  if (options.server === "") throw new BouncerError("USAGE", "Cannot forget pins: SERVER is empty");
  // What there is to forget comes first: with no pins, a terminal would change nothing.
  const files = pinsToForget(options.home, options.server, options);
  const { terminal } = options;
  if (terminal === undefined) {
    throw new BouncerError(
      "USAGE",
      `Cannot forget server ${JSON.stringify(options.server)}: there is no terminal to confirm on: bouncer pins forget asks on the controlling terminal (/dev/tty), as bouncer pins accept does, since the next session of a forgotten server pins whatever it lists then, unreviewed; a program without one, such as an agent's shell tool, cannot forget for itself; run it in a terminal`,
    );
  }
  const shared = files.length > 1;
  for (const { path, file } of files) {
    terminal.write(
      `Pins of server ${identityLabel(options.server, path, shared)}: ${contents(file)} (${path})\n`,
    );
  }
  const question = `Forget the pins of server ${safeName(options.server)}? Its next session pins whatever the upstream lists then, unreviewed [y/N] `;
  if (!(await confirmOn(terminal, question))) {
    if (options.json === true) io.out(`${terminalJson({ forgotten: null, files: [] })}\n`);
    else io.out("Nothing forgotten\n");
    return 0;
  }
  const removed = await removePinFiles(files.map(({ path }) => path));
  if (options.json === true) io.out(`${terminalJson({ forgotten: options.server, files: removed })}\n`);
  else {
    io.out(
      `Forgot the pins of server ${safeName(options.server)} (${removed.length} file${removed.length === 1 ? "" : "s"}); its next session pins it again on first sight (running sessions keep the pins they had until they restart)\n`,
    );
  }
  return 0;
}
