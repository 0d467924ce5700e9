/**
 * `bouncer audit [--summary] [--tail N] [--follow] [--json] [--audit-log FILE]`: reads the audit log,
 * rotated files included, and prints a table (time, server, tool, verdict, contract, reason), a
 * summary, or JSON for scripts (`--summary --json`: one document; records: JSONL). Skipped lines are
 * reported on stderr. Returns the exit status. Edge.
 *
 * Source: SPEC §5.6, §3.5, §5 (exit codes, `--json`).
 * @module
 */

import { join, resolve } from "node:path";
import { defineCommand } from "citty";
import { type CommandIo, commandIo } from "../commands/io.ts";
import { BouncerError, errorCode, errorLine } from "../platform/errors.ts";
import { bouncerHome } from "../platform/home-dir.ts";
import { terminalJson } from "../platform/terminal-json.ts";
import { type AuditIssue, type AuditReadResult, readAuditLog } from "./audit-reader.ts";
import type { AuditRecord } from "./audit-record.ts";
import { followAuditLog } from "./follow-audit-log.ts";
import { formatAuditSummary, formatAuditTable } from "./format-audit.ts";
import { summarizeAudit } from "./summarize-audit.ts";

/** Records shown by `--follow` before following, when `--tail` is not given (as `tail -f`). */
const FOLLOW_TAIL = 10;

/** What `bouncer audit` was asked to do. */
export interface AuditOptions {
  /** The log file, resolved. */
  readonly auditLog: string;
  /** Whether the user named the log (`--audit-log`): a missing or unreadable named log is an error (exit 2). */
  readonly explicit?: boolean;
  readonly summary?: boolean;
  /** Show only the last N records. */
  readonly tail?: number;
  readonly follow?: boolean;
  readonly json?: boolean;
  /** Ends `--follow` (the CLI runs until interrupted). */
  readonly signal?: AbortSignal;
  /** Poll interval of `--follow`, in milliseconds. */
  readonly intervalMs?: number;
}

/**
 * Reports a skipped line on stderr.
 * @param io - The command's io.
 * @param issue - The skipped line.
 */
function reportIssue(io: CommandIo, issue: AuditIssue): void {
  if (issue.line === 0) io.err(errorLine(`Audit log "${issue.file}": ${issue.message}`));
  else io.err(errorLine(`Skipped line ${issue.line} of audit log "${issue.file}": ${issue.message}`));
}

/** Skipped lines named one by one at most, when the log is read (a binary file has thousands). */
export const MAX_SKIPPED_SHOWN = 20;

/**
 * Reports the issues of reading the log: every file-level one, and the first
 * {@link MAX_SKIPPED_SHOWN} skipped lines, then how many more were skipped.
 * @param io - Where output goes.
 * @param issues - The issues, in file and line order.
 */
function reportIssues(io: CommandIo, issues: readonly AuditIssue[]): void {
  let skipped = 0;
  for (const issue of issues) {
    if (issue.line !== 0 && ++skipped > MAX_SKIPPED_SHOWN) continue;
    reportIssue(io, issue);
  }
  const more = skipped - MAX_SKIPPED_SHOWN;
  if (more > 0) io.err(errorLine(`Skipped ${more} more bad line${more === 1 ? "" : "s"} of the audit log`));
}

/**
 * Reads the log before showing or following it. A log the user named (`--audit-log`) that cannot be
 * read is a usage error, as every file named on the command line is; the log at the default path is
 * Bouncer's own, and one that cannot be read is a runtime failure.
 *
 * Source: SPEC §5 (exit codes), README "Commands".
 * @param options - Where the log is, whether it was named, whether it is followed next.
 * @returns What was read.
 * @throws {BouncerError} `AUDIT_NAMED_UNREADABLE` (exit 2) for a named log, `AUDIT_UNREADABLE` (exit 1)
 *   for the default one.
 */
function readNamedLog(options: AuditOptions): AuditReadResult {
  try {
    return readAuditLog(options.auditLog, { following: options.follow === true });
  } catch (error) {
    if (options.explicit !== true || errorCode(error) !== "AUDIT_UNREADABLE") throw error;
    throw new BouncerError("AUDIT_NAMED_UNREADABLE", (error as Error).message, { cause: error });
  }
}

/**
 * Runs `bouncer audit` with parsed options.
 *
 * Source: SPEC §5.6.
 * @param options - What to show and where the log is.
 * @param io - Where output goes.
 * @returns 0 on success (no log at the default path is an empty log, said on stderr).
 * @throws {BouncerError} `USAGE` for `--summary` with `--follow`; `AUDIT_NAMED_UNREADABLE` (exit 2)
 *   when the log named with `--audit-log` does not exist (without `--follow`, which waits for it) or
 *   cannot be read; `AUDIT_UNREADABLE` (exit 1) when the log at the default path cannot be read, or
 *   the log turns unreadable while it is followed.
 */
export async function runAudit(options: AuditOptions, io: CommandIo): Promise<number> {
  if (options.summary === true && options.follow === true) {
    throw new BouncerError(
      "USAGE",
      'Cannot run "bouncer audit": "--summary" and "--follow" do not go together',
    );
  }
  const read = readNamedLog(options);
  reportIssues(io, read.issues);
  if (read.files.length === 0 && options.follow !== true && options.explicit === true) {
    throw new BouncerError("AUDIT_NAMED_UNREADABLE", `No audit log at "${options.auditLog}"`);
  }
  // No log at the default path: nothing was logged yet, shown as an empty log is (a zero-count
  // summary), saying so. Following a log that is not there yet waits for it; a mistyped path should
  // not wait in silence.
  if (read.files.length === 0) {
    const then = options.follow === true ? ": waiting for it" : "";
    io.err(errorLine(`No audit log at "${options.auditLog}" yet${then}`));
  }
  const tail = options.tail ?? (options.follow === true ? FOLLOW_TAIL : undefined);
  const shown = tail === undefined ? read.records : tail === 0 ? [] : read.records.slice(-tail);
  if (options.summary === true) {
    // With `--tail N`, the counts of the last N records (the flag is never ignored).
    const summary = summarizeAudit(shown);
    io.out(options.json === true ? `${terminalJson(summary, 2)}\n` : formatAuditSummary(summary));
    return 0;
  }
  // The table's header comes with its first row: under `--follow` of a log with nothing to show yet,
  // with the first record that arrives.
  let header = true;
  const widths: number[] = [];
  const print = (records: readonly AuditRecord[]): void => {
    if (options.json === true) {
      for (const record of records) io.out(`${terminalJson(record)}\n`);
    } else if (records.length > 0) {
      io.out(formatAuditTable(records, { color: io.color, header, widths }));
      header = false;
    }
  };
  print(shown);
  if (options.follow !== true) return 0;
  await followAuditLog(options.auditLog, {
    // From where the read above ended (nothing written meanwhile is missed), or, with no log yet,
    // from the start of the log once it appears.
    ...(read.end === undefined ? { fromStart: true } : { after: read.end }),
    signal: options.signal ?? new AbortController().signal,
    onRecord: (record) => print([record]),
    onIssue: (issue) => reportIssue(io, issue),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
  });
  return 0;
}

/** The largest `--tail N`. */
const TAIL_MAX = 999_999_999;

/**
 * Parses `--tail N`.
 * @param value - The flag's value.
 * @returns The count.
 * @throws {BouncerError} `USAGE` when it is not a whole number, or one above {@link TAIL_MAX}.
 */
function parseTail(value: string): number {
  const text = value.trim();
  if (!/^\d+$/.test(text)) {
    throw new BouncerError(
      "USAGE",
      `Cannot run "bouncer audit": "--tail" needs a whole number of 0 or more, got "${value}"`,
    );
  }
  const count = Number(text);
  if (count > TAIL_MAX) {
    throw new BouncerError(
      "USAGE",
      `Cannot run "bouncer audit": "--tail" is at most ${TAIL_MAX}, got "${value}"`,
    );
  }
  return count;
}

/**
 * The citty command. `context.data` may carry `io` (see `src/commands/io.ts`) and an AbortSignal as
 * `signal` (ends `--follow`; tests use it). Returns the exit status.
 *
 * Source: SPEC §5.6.
 */
export const auditCommand = defineCommand({
  meta: {
    name: "audit",
    description: "Show the audit log (rotated files included): a table, a summary, or JSON for scripts",
  },
  args: {
    summary: {
      type: "boolean",
      description: "Counts by verdict, contract, server and tool (with --tail, of the last N records)",
    },
    tail: { type: "string", valueHint: "N", description: "Only the last N records" },
    follow: { type: "boolean", description: "Keep printing records as they are written" },
    json: {
      type: "boolean",
      description: "JSON lines (one record per line); with --summary one JSON document",
    },
    "audit-log": {
      type: "string",
      valueHint: "FILE",
      description: "The audit log (default $BOUNCER_HOME/audit.jsonl)",
    },
  },
  run(context): Promise<number> {
    const io = commandIo(context.data);
    const args = context.args;
    const named = typeof args["audit-log"] === "string";
    const data: unknown = context.data;
    const signal: unknown =
      typeof data === "object" && data !== null && Object.hasOwn(data, "signal")
        ? Reflect.get(data, "signal")
        : undefined;
    return runAudit(
      {
        auditLog: named ? resolve(io.cwd, args["audit-log"] as string) : join(bouncerHome(), "audit.jsonl"),
        explicit: named,
        summary: args.summary === true,
        follow: args.follow === true,
        json: args.json === true,
        ...(typeof args.tail === "string" ? { tail: parseTail(args.tail) } : {}),
        ...(signal instanceof AbortSignal ? { signal } : {}),
      },
      io,
    );
  },
});

export default auditCommand;
