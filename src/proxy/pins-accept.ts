/**
 * `bouncer pins accept SERVER [TOOL] [--hash PREFIX]`: shows each pending definition it would
 * accept — its whole change from the pin it replaces — on the controlling terminal and asks there
 * (y/N); only a yes typed at the terminal accepts, and exactly the definitions shown. Without a
 * terminal it refuses: the deny text an agent reads names this command, and an agent's shell tool
 * must not be able to accept the rug pull it was told about. No flag or variable skips the question.
 * Edge.
 *
 * Source: SPEC §2.2 ("`bouncer pins accept SERVER TOOL` can accept it from a terminal"), §3.4 (the
 * confirmation is asked on the controlling terminal, "so an agent's shell tool cannot approve for
 * itself"), §5.7, §5.8.
 * @module
 */

import type { CommandIo } from "../commands/io.ts";
import { diffToolDefinitions, listCommand, safeName, summarizePinDiff } from "../engine/index.ts";
import { type ConfirmTerminal, confirmOn } from "../platform/controlling-terminal.ts";
import { BouncerError } from "../platform/errors.ts";
import { acceptChosen, choosePending, type PendingChoice } from "./pin-accepting.ts";
import { listPins } from "./pin-admin.ts";
import { identityId } from "./pin-identities.ts";
import { changeView, indent } from "./pins-view.ts";

/** What `runPinsAccept` takes. */
export interface PinsAcceptOptions {
  readonly server: string;
  readonly tool?: string;
  readonly hash?: string;
  /** The file id of the identity to accept for (`--id`), when the name has several. */
  readonly id?: string;
  readonly json?: boolean;
  readonly home: string;
  /**
   * The controlling terminal to confirm on (`openControllingTerminal()`; tests pass a stand-in);
   * undefined when the process has none: the accept is refused.
   */
  readonly terminal: ConfirmTerminal | undefined;
}

/**
 * Runs `bouncer pins accept`: chooses the pending definitions (with `--hash`, only the one whose
 * hash starts with it: the one reviewed), shows each on the terminal with its whole change, asks,
 * and on a yes accepts exactly those (one the upstream replaced meanwhile is not accepted).
 *
 * Source: SPEC §2.2, §3.4, §5.7.
 * @param options - Server, optional tool, hash prefix and identity id, JSON output, Bouncer's home,
 *   the terminal.
 * @param io - Where the result goes (the question and the definitions go to the terminal).
 * @returns 0 when accepted or declined (nothing accepted: said so); 1 when a definition shown was
 *   no longer pending as shown.
 * @throws {BouncerError} `USAGE` (exit 2) for an empty SERVER or TOOL, a bad `--hash` or `--id`,
 *   or no terminal to confirm on; exit 1 when nothing (matching) is pending, when several identities
 *   of the name have matching definitions and no `--id` chooses, or a file cannot be read or written.
 */
export async function runPinsAccept(options: PinsAcceptOptions, io: CommandIo): Promise<number> {
  // An empty TOOL (an unset shell variable) must not widen to "every pending definition".
  if (options.server === "" || options.tool === "") {
    throw new BouncerError(
      "USAGE",
      `Cannot accept pins: ${options.server === "" ? "SERVER" : "TOOL"} is empty (leave TOOL out to accept every pending definition of the server)`,
    );
  }
  const { terminal } = options;
  if (terminal === undefined) {
    throw new BouncerError(
      "USAGE",
      "Cannot accept pins: there is no terminal to confirm on: bouncer pins accept shows the definition and asks on the controlling terminal (/dev/tty), so a program without one, such as an agent's shell tool, cannot accept for itself; run it in a terminal",
    );
  }
  const chosen = choosePending(options.home, {
    server: options.server,
    ...(options.tool === undefined ? {} : { tool: options.tool }),
    ...(options.hash === undefined ? {} : { hash: options.hash }),
    ...(options.id === undefined ? {} : { id: options.id }),
  });
  // One identity (choosePending refuses several): named by its file id when the name has others.
  const several = options.id !== undefined || listPins(options.home, options.server).servers.length > 1;
  const serverOf = (path: string): string =>
    several ? `${safeName(options.server)} [${identityId(path)}]` : safeName(options.server);
  for (const choice of chosen) terminal.write(`${review(choice, serverOf(choice.path))}\n`);
  const what = chosen.length === 1 ? "this definition" : `these ${chosen.length} definitions`;
  if (!(await confirmOn(terminal, `Accept ${what} of server ${safeName(options.server)}? [y/N] `))) {
    if (options.json === true) io.out(`${JSON.stringify({ accepted: [] })}\n`);
    else io.out("Nothing accepted\n");
    return 0;
  }
  const { accepted, changed } = await acceptChosen(chosen);
  for (const { path, record } of changed) {
    io.err(
      `bouncer: Not accepted: tool ${safeName(record.name)} of server ${serverOf(path)} is no longer pending as shown (hash ${record.hash.slice(0, 16)}): the upstream changed it again, or it was accepted meanwhile; review it with: ${listCommand(options.server)}\n`,
    );
  }
  if (options.json === true) {
    const list = accepted.map(({ path, record, replaced }) => ({
      server: options.server,
      file: path,
      tool: record.name,
      hash: record.hash,
      ...(replaced === undefined
        ? {}
        : {
            replaced_hash: replaced.hash,
            change: summarizePinDiff(diffToolDefinitions(replaced.definition, record.definition)),
          }),
    }));
    io.out(`${JSON.stringify({ accepted: list })}\n`);
    return changed.length > 0 ? 1 : 0;
  }
  for (const { path, record, replaced } of accepted) {
    // Worded by what was replaced, whatever the pending record said (a pin may have gone meanwhile).
    const kind = replaced === undefined ? "new" : "changed";
    io.out(
      `Accepted ${kind} tool ${safeName(record.name)} of server ${serverOf(path)} (${record.hash.slice(0, 12)})\n`,
    );
  }
  if (accepted.length > 0) io.out("Running sessions pick it up before their next call\n");
  return changed.length > 0 ? 1 : 0;
}

/**
 * One chosen definition as the terminal shows it before the question: which tool and server, the
 * hash, and its whole change (every changed line and stretch; a new tool's whole definition).
 * @param choice - The chosen definition.
 * @param server - The server as shown (with its file id when the name has several identities).
 * @returns Multi-line text, untrusted text rendered safely.
 */
function review(choice: PendingChoice, server: string): string {
  const { record, replaced } = choice;
  const kind = replaced === undefined ? "new" : "changed";
  const view = changeView(record, {
    ...(replaced === undefined ? {} : { replaced }),
    server: choice.file.server,
    full: true,
  });
  return `Pending ${kind} tool ${safeName(record.name)} of server ${server} (hash ${record.hash.slice(0, 16)}):\n${indent(view)}`;
}
