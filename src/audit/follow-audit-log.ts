/**
 * `bouncer audit --follow`: polls the audit log and hands over each new record as it is appended,
 * following the log across rotations (the rest of the renamed file is read, then every newer rotated
 * file and the new log from their start, all opened as they stood at one moment; each file passed is
 * still read for a while, since a writer may append to it until it next looks at the path). Bad lines
 * are reported like the reader does. Edge (file system, timers).
 *
 * Source: SPEC §5.6 (`--follow`), §3.5.
 * @module
 */

import { closeSync } from "node:fs";
import { BouncerError } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import type { AuditIssue, LogPosition } from "./audit-reader.ts";
import type { AuditRecord } from "./audit-record.ts";
import { openChain } from "./follow-chain.ts";
import { type Cursor, drain, identityOf, openCursor, rewindIfTruncated } from "./follow-cursor.ts";

/** Options of {@link followAuditLog}. */
export interface FollowOptions {
  /** Stops following (the promise resolves). */
  readonly signal: AbortSignal;
  /** Receives each new record, in order. */
  readonly onRecord: (record: AuditRecord) => void;
  /** Receives each skipped line. */
  readonly onIssue?: (issue: AuditIssue) => void;
  /** Poll interval in milliseconds. Default 250. */
  readonly intervalMs?: number;
  /** Read the current log from its start instead of from its end. Default false. */
  readonly fromStart?: boolean;
  /**
   * Go on from where a read of the log ended (`readAuditLog`'s `end`): records appended since are
   * delivered, even when the log was rotated in between. Overrides `fromStart`.
   */
  readonly after?: LogPosition;
  /**
   * How long a file rotated away is still read, in milliseconds (writers append to the file they
   * have open until they next look at the path, every 100 ms by default). Default 2,000.
   */
  readonly lingerMs?: number;
  /** The clock for `lingerMs`, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

/** A file rotated away that is still read until `until`. */
interface Retired {
  readonly cursor: Cursor;
  /** Its name when it was opened, for issues. */
  readonly file: string;
  readonly until: number;
}

/**
 * Waits for a number of milliseconds, or less when the signal aborts.
 * @param ms - The delay.
 * @param signal - Ends the wait early.
 * @returns A promise that resolves after the delay or on abort.
 */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * The issue for a followed file that is no longer the log nor any rotated file: what happened, as
 * far as the files show it.
 * @param path - The log file.
 * @returns The issue (line 0).
 */
function lostIssue(path: string): AuditIssue {
  const happened =
    identityOf(`${path}.1`) !== undefined
      ? "the log rotated faster than it was read"
      : identityOf(path) === undefined
        ? "the log was deleted"
        : "the log was replaced by another file";
  return { file: path, line: 0, message: `records may be missing: ${happened}` };
}

/** The file read last while no log is followed, and where to resume in it (after a read of the log). */
interface Pending {
  readonly identity: string;
  readonly position?: LogPosition;
}

/**
 * Opens the files after the one read last (rotated files newer than it, then the log), as they all
 * stood at one moment (follow-chain.ts): each rotated file is read now and then kept being read for
 * a while (`linger`), and the log, when it is there, is the file to follow.
 * @param path - The log file.
 * @param from - The file read last.
 * @param options - Where issues go.
 * @param linger - Reads a file that is no longer the log and keeps reading it for a while.
 * @returns The log to follow, or what to wait on (the same file when rotations kept moving the
 *   files; none when the file is lost, reported: the log is read from its start once it is there).
 */
function catchUp(
  path: string,
  from: Pending,
  options: FollowOptions,
  linger: (cursor: Cursor, file: string) => void,
): { cursor: Cursor | undefined; pending: Pending | undefined } {
  const step = openChain(path, from.identity, from.position);
  if (step.kind === "unsettled") return { cursor: undefined, pending: from };
  if (step.kind === "lost") {
    options.onIssue?.(lostIssue(path));
    return { cursor: openCursor(path, true), pending: undefined };
  }
  for (const { file, reason } of step.skipped)
    options.onIssue?.({ file, line: 0, message: `skipped: ${reason}` });
  const rotated = step.live ? step.cursors.slice(0, -1) : step.cursors;
  for (const { cursor, file } of rotated) linger(cursor, file);
  if (step.live) return { cursor: step.cursors.at(-1)?.cursor, pending: undefined };
  return { cursor: undefined, pending: { identity: step.newest } };
}

/**
 * Follows the audit log until the signal aborts: every record appended after the call (or from the
 * start, with `fromStart`) is delivered once, in order of appending to each file. When the log is
 * rotated, the rest of the renamed file is read, then every newer rotated file, then the new log —
 * none skipped when writers rotate again meanwhile (follow-chain.ts); each of these rotated files is
 * read on every poll for `lingerMs` more (a line a writer appends to it meanwhile is delivered then,
 * after newer lines of the new log), and an unterminated last line of it is reported as an issue once
 * it is no longer read. When a file not read to its end is gone (rotated out, the log deleted or
 * replaced), an issue says records may be missing. A log that does not exist yet is waited for. With
 * `after`, following starts exactly where a read of the log ended; a log truncated in place is read
 * again from its start, with an issue.
 *
 * Source: SPEC §5.6, §3.5.
 * @param path - The log file.
 * @param options - Signal, sinks, poll interval, linger time and its clock.
 * @returns A promise that resolves once the signal aborts.
 * @throws {BouncerError} `AUDIT_UNREADABLE` when the log cannot be read: a file-system error other
 *   than "not found" (e.g. `EACCES`), or the log is not a regular file (a folder, a FIFO: never
 *   waited on). A rotated file that is not a regular file is passed over with an issue instead.
 */
export async function followAuditLog(path: string, options: FollowOptions): Promise<void> {
  const intervalMs = options.intervalMs ?? 250;
  const lingerMs = options.lingerMs ?? 2000;
  const now = options.now ?? Date.now;
  let cursor: Cursor | undefined;
  // While no log is followed: the file read last, whose successors are opened next; undefined: the
  // log is read from its start once it is there.
  let pending: Pending | undefined;
  let retired: Retired[] = [];
  const linger = (old: Cursor, file: string): void => {
    drain(old, file, options);
    retired.push({ cursor: old, file, until: now() + lingerMs });
  };
  const retire = (old: Retired): void => {
    drain(old.cursor, old.file, options);
    if (old.cursor.pending.length > 0) {
      options.onIssue?.({ file: old.file, line: old.cursor.line + 1, message: "unterminated last line" });
    }
    closeSync(old.cursor.fd);
  };
  try {
    if (options.after === undefined) cursor = openCursor(path, options.fromStart === true);
    else pending = { identity: options.after.identity, position: options.after };
    while (!options.signal.aborted) {
      const at = now();
      for (const old of retired) {
        if (old.until <= at) retire(old);
        else drain(old.cursor, old.file, options);
      }
      retired = retired.filter((old) => old.until > at);
      if (cursor === undefined) {
        if (pending === undefined) cursor = openCursor(path, true);
        else ({ cursor, pending } = catchUp(path, pending, options, linger));
      }
      if (cursor !== undefined) {
        rewindIfTruncated(cursor, path, options.onIssue);
        drain(cursor, path, options);
        if (identityOf(path) !== cursor.identity) {
          // Rotated away (or replaced): the rest of it, then the files after it.
          const left = cursor;
          cursor = undefined;
          linger(left, path);
          ({ cursor, pending } = catchUp(path, { identity: left.identity }, options, linger));
          if (cursor !== undefined) drain(cursor, path, options);
        }
      }
      await pause(intervalMs, options.signal);
    }
  } catch (error) {
    if (error instanceof BouncerError) throw error;
    throw new BouncerError(
      "AUDIT_UNREADABLE",
      `Cannot follow audit log "${path}": ${describeFsError(error)}`,
      {
        cause: error,
      },
    );
  } finally {
    if (cursor !== undefined) closeSync(cursor.fd);
    for (const old of retired) closeSync(old.cursor.fd);
  }
}
