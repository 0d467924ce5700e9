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
import { basename } from "node:path";
import { BouncerError } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { type AuditIssue, type LogPosition, listAuditFiles } from "./audit-reader.ts";
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
 * The identities of the rotated files there are while a file is the log: files older than it, all of
 * them (a file newer than the log is made only once the log is rotated away).
 * @param path - The log file.
 * @param identity - The file that is the log.
 * @returns The identities, or `undefined` when that file is no longer the log by the end of the look.
 */
function olderFiles(path: string, identity: string): ReadonlySet<string> | undefined {
  const older = new Set<string>();
  for (const file of listAuditFiles(path)) {
    if (basename(file) === basename(path)) continue;
    const rotated = identityOf(file);
    if (rotated !== undefined) older.add(rotated);
  }
  return identityOf(path) === identity ? older : undefined;
}

/**
 * The issue for a followed file that is no longer the log nor any rotated file: what happened, as
 * far as the files show it, and whether records may be missing. A log held open while it was
 * deleted or replaced is read to its end through its descriptor (and for `lingerMs` more), and the
 * new log from its start, so nothing is missed unless a rotation came in between: a rotated file
 * that is not among those older than the lost file (`older`) holds records written after it, which
 * are not read.
 * @param path - The log file.
 * @param older - The rotated files there were while the lost file was the log; `undefined` when not
 *   known (a file not held open: records written to it since it was read may be missing too).
 * @returns The issue (line 0).
 */
function lostIssue(path: string, older: ReadonlySet<string> | undefined): AuditIssue {
  const log = identityOf(path);
  const rotatedSince =
    older === undefined ||
    listAuditFiles(path).some((file) => {
      if (basename(file) === basename(path)) return false;
      const rotated = identityOf(file);
      return rotated !== undefined && !older.has(rotated);
    });
  if (!rotatedSince) {
    const message =
      log === undefined
        ? "the log was deleted: reading the new log from its start once it is there"
        : "the log was replaced by another file: reading it from its start";
    return { file: path, line: 0, message };
  }
  const happened =
    identityOf(`${path}.1`) !== undefined
      ? "the log rotated faster than it was read"
      : log === undefined
        ? "the log was deleted"
        : "the log was replaced by another file";
  return { file: path, line: 0, message: `records may be missing: ${happened}` };
}

/** The file read last while no log is followed, and where to resume in it (after a read of the log). */
interface Pending {
  readonly identity: string;
  readonly position?: LogPosition;
  /** The rotated files older than it, when it was followed as the log (see {@link lostIssue}). */
  readonly older?: ReadonlySet<string> | undefined;
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
    options.onIssue?.(lostIssue(path, from.older));
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
 * it is no longer read. When the followed file is gone (rotated out, the log deleted or replaced), an
 * issue says so, and that records may be missing when they may (a rotation came in between, or the
 * file was not held open: see {@link lostIssue}). A log that does not exist yet is waited for. With
 * `after`, following starts exactly where a read of the log ended; a log truncated in place (also
 * one written again to its old length within one poll) is read again from its start, with an issue.
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
  // The rotated files older than the followed log, looked at once per log (see lostIssue).
  let older: { readonly identity: string; readonly files: ReadonlySet<string> | undefined } | undefined;
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
        if (older?.identity !== cursor.identity) {
          older = { identity: cursor.identity, files: olderFiles(path, cursor.identity) };
        }
        rewindIfTruncated(cursor, path, options.onIssue);
        drain(cursor, path, options);
        if (identityOf(path) !== cursor.identity) {
          // Rotated away (or replaced): the rest of it, then the files after it.
          const left = cursor;
          cursor = undefined;
          linger(left, path);
          const from = { identity: left.identity, older: older?.files };
          ({ cursor, pending } = catchUp(path, from, options, linger));
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
