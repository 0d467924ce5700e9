/**
 * `bouncer replay SESSION.jsonl [--policy FILE]... [--ask deny|allow] [--json]`: replays a recorded
 * session through the engine with no upstream and no client, and prints one row per call — the
 * engine's verdict before any ask, and whether the call was forwarded or blocked — then a summary.
 * `--json` prints JSONL: one object per call, then `{"summary":{...}}`. Exit 0 whatever the
 * verdicts; 2 on a malformed session file (with its line number) or an invalid policy. Edge.
 *
 * Source: SPEC §5.9, §5 (tables, colour only on a terminal, JSONL where streaming).
 * @module
 */

import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { defineCommand } from "citty";
import { createColors } from "picocolors";
import { escapeControls, safeName } from "../engine/index.ts";
import { repeatedFlag } from "../platform/args.ts";
import { BouncerError } from "../platform/errors.ts";
import { describeReadError } from "../platform/fs-error-text.ts";
import { bouncerHome } from "../platform/home-dir.ts";
import { resolvePathSteps } from "../platform/path-walk.ts";
import { readRegularTextFile } from "../platform/regular-file.ts";
import { terminalJson } from "../platform/terminal-json.ts";
import { Gate } from "../proxy/gate.ts";
import { ownPaths } from "../proxy/own-paths.ts";
import { type ReplayRow, type ReplaySummary, replaySession } from "../proxy/replay.ts";
import { parseSession } from "../proxy/replay-session.ts";
import { type CommandIo, commandIo } from "./io.ts";
import { loadPolicyPaths } from "./policy-files.ts";

/** What `bouncer replay` was asked to do. */
export interface ReplayCommandOptions {
  /** The session file. */
  readonly session: string;
  readonly policies: readonly string[];
  /** How to answer asks the file does not answer (default `deny`). */
  readonly ask?: "deny" | "allow";
  readonly json?: boolean;
}

/**
 * One call as a JSONL line, keys in the order of SPEC §5.9, then `live_blocked` for a call blocked
 * live for a reason replay cannot reproduce.
 *
 * Source: SPEC §5.9 (`--json` line format).
 * @param row - A replayed call.
 * @returns The JSON text (no newline).
 */
export function rowJson(row: ReplayRow): string {
  return terminalJson({
    seq: row.seq,
    server: row.server,
    tool: row.tool,
    verdict: row.verdict,
    contract: row.contract,
    reason: row.reason,
    source: row.source,
    ...(row.evidence === undefined ? {} : { evidence: row.evidence }),
    outcome: row.outcome,
    ...(row.liveBlocked === undefined ? {} : { live_blocked: row.liveBlocked }),
  });
}

/**
 * The rows as a table for people: SEQ, SERVER, TOOL, VERDICT, OUTCOME (`blocked (live: …)` for a
 * call blocked live for a reason replay cannot reproduce), CONTRACT, REASON; verdicts coloured when
 * the output is a colour terminal; then the summary line. Names and reasons have their control and
 * invisible characters escaped (`\u{202e}`; line feeds too: one line per call).
 *
 * Source: SPEC §5 (tables, colour only on a terminal), §5.9.
 * @param rows - The replayed calls.
 * @param options - The summary and whether to colour.
 * @returns The text, ending in a newline.
 */
export function rowsTable(
  rows: readonly ReplayRow[],
  options: { readonly summary: ReplaySummary; readonly color: boolean },
): string {
  const colors = createColors(options.color);
  const paint = { allow: colors.green, deny: colors.red, ask: colors.yellow } as const;
  const cells = rows.map((row) => [
    String(row.seq),
    safeName(row.server),
    safeName(row.tool),
    row.verdict,
    row.liveBlocked === undefined ? row.outcome : `${row.outcome} (live: ${row.liveBlocked})`,
    row.contract,
  ]);
  const head = ["SEQ", "SERVER", "TOOL", "VERDICT", "OUTCOME", "CONTRACT"];
  const widths = head.map((title, index) =>
    Math.max(title.length, ...cells.map((cell) => cell[index]?.length ?? 0)),
  );
  const line = (cell: readonly string[], verdict?: ReplayRow["verdict"]): string =>
    cell
      .map((text, index) => {
        const padded = text.padEnd(widths[index] ?? 0);
        return index === 3 && verdict !== undefined ? paint[verdict](padded) : padded;
      })
      .join("  ");
  const out = [colors.bold(`${line(head)}  REASON`)];
  rows.forEach((row, index) => {
    // An allow carries no reason (SPEC §2.1): say that nothing objected rather than leave a blank.
    // The reason holds untrusted text: a control, bidi or other invisible character (which
    // JSON.stringify leaves as it is: C1, U+202E) is shown escaped, as in the TOOL column.
    const reason = escapeControls(row.reason ?? (row.verdict === "allow" ? "(no contract objected)" : ""));
    out.push(`${line(cells[index] ?? [], row.verdict)}  ${reason}`.trimEnd());
  });
  const { calls, allow, deny, ask } = options.summary;
  out.push("", `${calls} ${calls === 1 ? "call" : "calls"}: ${allow} allow, ${deny} deny, ${ask} ask`);
  return `${out.join("\n")}\n`;
}

/**
 * Reads the session file.
 * @param file - The path as given.
 * @param cwd - The directory it is relative to.
 * @returns Its text.
 * @throws {BouncerError} `SESSION_UNREADABLE` (exit 2).
 */
async function readSession(file: string, cwd: string): Promise<string> {
  try {
    return readRegularTextFile(resolve(cwd, file)); // a FIFO is refused, not waited on
  } catch (error) {
    throw new BouncerError(
      "SESSION_UNREADABLE",
      `Cannot read session "${file}": ${describeReadError(error)}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Runs `bouncer replay`. Everything is validated (session file and policy) before the first row is
 * printed; a last line cut short is skipped, said on stderr.
 *
 * Source: SPEC §5.9; README "bouncer replay" (a cut last line).
 * @param options - The session file, policy files, default ask answer and output format.
 * @param io - Where output goes.
 * @returns 0 whatever the verdicts.
 * @throws {BouncerError} `SESSION_INVALID` or `SESSION_UNREADABLE` (exit 2).
 * @throws {PolicyError} `POLICY_INVALID` (exit 2).
 */
export async function runReplay(options: ReplayCommandOptions, io: CommandIo): Promise<number> {
  const events = parseSession(await readSession(options.session, io.cwd), {
    file: options.session,
    // A recording cut short by a failed write or a crash: what was written whole is replayed.
    onCutShort: (message) => io.err(`bouncer: ${message}\n`),
  });
  const policy = await loadPolicyPaths(options.policies, { cwd: io.cwd });
  const home = bouncerHome({ cwd: io.cwd });
  const gate = new Gate(policy, {
    home: homedir(),
    cwd: io.cwd,
    platform: process.platform === "win32" ? "win32" : "posix",
    // As live (`bouncer run` with the default audit log): no path argument may reach Bouncer's
    // own files or the client configs.
    protectedPaths: ownPaths({
      home,
      cwd: io.cwd,
      policies: options.policies,
      auditLog: join(home, "audit.jsonl"),
    }),
  });
  const json = options.json === true;
  const { rows, summary } = await replaySession(events, gate, {
    ask: options.ask ?? "deny",
    // A server with a `server` event resolves its paths as live (SPEC §5.9), on today's file system.
    resolvePath: resolvePathSteps,
    ...(json ? { onRow: (row: ReplayRow): void => io.out(`${rowJson(row)}\n`) } : {}),
  });
  io.out(json ? `${terminalJson({ summary })}\n` : rowsTable(rows, { summary, color: io.color }));
  return 0;
}

/** The citty definition of `bouncer replay`. */
export const replayCommand = defineCommand({
  meta: {
    name: "replay",
    description: "Replay a recorded session through the engine and print each verdict",
  },
  args: {
    session: {
      type: "positional",
      description: "The session file (JSONL)",
      required: true,
    },
    policy: { type: "string", description: "A policy file (repeatable; later files win)", valueHint: "FILE" },
    ask: {
      type: "enum",
      options: ["deny", "allow"],
      description: "How to answer asks the session does not answer",
      default: "deny",
    },
    json: { type: "boolean", description: "Print JSONL: one object per call, then a summary" },
  },
  run: ({ args, rawArgs, data }): Promise<number> =>
    runReplay(
      {
        session: args.session,
        policies: repeatedFlag(rawArgs, "policy"),
        ask: args.ask === "allow" ? "allow" : "deny",
        json: args.json === true,
      },
      commandIo(data),
    ),
});

export default replayCommand;
