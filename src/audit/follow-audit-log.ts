/**
 * `bouncer audit --follow`: polls the audit log and hands over each new record as it is appended,
 * following the log across rotations (the rest of the renamed file is read, then the new log from its
 * start; the renamed file is still read for a while, since a writer may append to it until it next
 * looks at the path). Bad lines are reported like the reader does. Edge (file system, timers).
 *
 * Source: SPEC §5.6 (`--follow`), §3.5.
 * @module
 */

import { closeSync } from "node:fs";
import type { AuditIssue, LogPosition } from "./audit-reader.ts";
import type { AuditRecord } from "./audit-record.ts";
import {
  type Cursor,
  drain,
  identityOf,
  openCursor,
  resumeCursor,
  rewindIfTruncated,
} from "./follow-cursor.ts";

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

/**
 * After the followed file was rotated away: reads, oldest first, the rotated files that are newer
 * than it (several rotations may happen between two polls), each from its start.
 * @param path - The log file.
 * @param old - The identity of the file that was being followed.
 * @param options - Where records and issues go.
 * @returns The identity of the newest file read (`old` when there was none), or `undefined` when
 *   `old` is not among the rotated files (reported once: the log is read from its start next).
 */
function drainNewerRotations(path: string, old: string, options: FollowOptions): string | undefined {
  let index = 0;
  for (let i = 1; i <= 1000; i++) {
    const identity = identityOf(`${path}.${i}`);
    if (identity === undefined) break;
    if (identity === old) {
      index = i;
      break;
    }
  }
  if (index === 0) {
    options.onIssue?.(lostIssue(path));
    return undefined;
  }
  let newest = old;
  for (let i = index - 1; i >= 1; i--) {
    const cursor = openCursor(`${path}.${i}`, true);
    if (cursor === undefined) continue;
    try {
      drain(cursor, `${path}.${i}`, options);
      newest = cursor.identity;
    } finally {
      closeSync(cursor.fd);
    }
  }
  return newest;
}

/**
 * Follows the audit log until the signal aborts: every record appended after the call (or from the
 * start, with `fromStart`) is delivered once, in order of appending to each file. When the log is
 * rotated, the rest of the renamed file is read, then any newer rotated file, then the new log; the
 * renamed file is read on every poll for `lingerMs` more (a line a writer appends to it meanwhile is
 * delivered then, after newer lines of the new log), and an unterminated last line of it is reported
 * as an issue once it is no longer read. A log that does not exist yet is waited for. With `after`,
 * following starts exactly where a read of the log ended; a log truncated in place is read again
 * from its start, with an issue.
 *
 * Source: SPEC §5.6, §3.5.
 * @param path - The log file.
 * @param options - Signal, sinks, poll interval, linger time and its clock.
 * @returns A promise that resolves once the signal aborts.
 * @throws {Error} A file-system error other than "not found" (e.g. `EACCES`).
 */
export async function followAuditLog(path: string, options: FollowOptions): Promise<void> {
  const intervalMs = options.intervalMs ?? 250;
  const lingerMs = options.lingerMs ?? 2000;
  const now = options.now ?? Date.now;
  let cursor: Cursor | undefined;
  // The newest file already read, while the log itself is absent (between a rotation and the next
  // write); undefined: the log is read from its start once it is there.
  let last: string | undefined;
  let retired: Retired[] = [];
  if (options.after === undefined) cursor = openCursor(path, options.fromStart === true);
  else {
    const resumed = resumeCursor(path, options.after);
    if (resumed?.file === path) cursor = resumed.cursor;
    else {
      if (resumed === undefined) options.onIssue?.(lostIssue(path));
      else {
        drain(resumed.cursor, path, options);
        retired.push({ cursor: resumed.cursor, until: now() + lingerMs });
        last = drainNewerRotations(path, options.after.identity, options);
      }
      cursor = openCursor(path, true);
    }
  }
  const retire = (old: Retired): void => {
    drain(old.cursor, path, options);
    if (old.cursor.pending.length > 0) {
      options.onIssue?.({ file: path, line: old.cursor.line + 1, message: "unterminated last line" });
    }
    closeSync(old.cursor.fd);
  };
  try {
    while (!options.signal.aborted) {
      const at = now();
      for (const old of retired) {
        if (old.until <= at) retire(old);
        else drain(old.cursor, path, options);
      }
      retired = retired.filter((old) => old.until > at);
      if (cursor === undefined && identityOf(path) !== undefined) {
        if (last !== undefined) last = drainNewerRotations(path, last, options);
        cursor = openCursor(path, true);
      }
      if (cursor !== undefined) {
        rewindIfTruncated(cursor, path, options.onIssue);
        drain(cursor, path, options);
        const identity = identityOf(path);
        if (identity !== cursor.identity) {
          drain(cursor, path, options);
          retired.push({ cursor, until: at + lingerMs });
          last = drainNewerRotations(path, cursor.identity, options);
          cursor = undefined;
          continue;
        }
      }
      await pause(intervalMs, options.signal);
    }
  } finally {
    if (cursor !== undefined) closeSync(cursor.fd);
    for (const old of retired) closeSync(old.cursor.fd);
  }
}
