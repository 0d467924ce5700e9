/**
 * The cursor of `bouncer audit --follow` on one audit log file: opened at its start, its end or a
 * position a read ended at, drained line by line, and rewound when the file was truncated or
 * rewritten under it. Edge (file system).
 *
 * Source: SPEC §5.6 (`--follow`), §3.5.
 * @module
 */

import { fstatSync, readSync, type Stats, statSync } from "node:fs";
import { openRegularFile } from "../platform/regular-file.ts";
import { type LogPosition, parseAuditLine } from "./audit-reader.ts";
import type { FollowOptions } from "./follow-audit-log.ts";
import { hasErrorCode } from "./rotation-lock.ts";

/** An open file being followed. */
export interface Cursor {
  readonly fd: number;
  readonly identity: string;
  offset: number;
  line: number;
  pending: Buffer;
  /** The byte just before `offset` as it was read (-1 at offset 0): a change means a rewrite. */
  lastByte: number;
  /**
   * The position is right after a whole last record that had no newline yet (the read showed it):
   * the newline that ends it, when it comes, is not a line of its own.
   */
  awaitingLineEnd: boolean;
}

/**
 * Opens the log for following, or returns `undefined` when it does not exist (yet). A FIFO is
 * opened without waiting for a writer, and refused.
 * @param path - The log file.
 * @param fromStart - Start at offset 0 rather than at the end.
 * @returns The cursor.
 * @throws {Error} With `code` `EISDIR` or `ENOTREG` for a folder, a FIFO, a device or a socket
 *   (see `openRegularFile`), or another file-system error.
 */
export function openCursor(path: string, fromStart: boolean): Cursor | undefined {
  let opened: { readonly fd: number; readonly stats: Stats };
  try {
    opened = openRegularFile(path);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return undefined;
    throw error;
  }
  const { fd, stats } = opened;
  const cursor: Cursor = {
    fd,
    identity: `${stats.dev}:${stats.ino}`,
    offset: 0,
    line: 0,
    pending: Buffer.alloc(0),
    lastByte: -1,
    awaitingLineEnd: false,
  };
  if (!fromStart) {
    // Skip what is there, counting its lines so that issue line numbers stay right.
    drain(cursor, path, { onRecord: () => undefined });
  }
  return cursor;
}

/**
 * Reads everything appended since the last read, delivering complete lines.
 * @param cursor - The followed file.
 * @param file - Its name, for issues.
 * @param sinks - Where records and issues go.
 */
export function drain(
  cursor: Cursor,
  file: string,
  sinks: Pick<FollowOptions, "onRecord" | "onIssue">,
): void {
  const chunk = Buffer.alloc(64 * 1024);
  for (;;) {
    const read = readSync(cursor.fd, chunk, 0, chunk.length, cursor.offset);
    if (read === 0) break;
    cursor.offset += read;
    cursor.lastByte = chunk[read - 1] ?? -1;
    cursor.pending = Buffer.concat([cursor.pending, chunk.subarray(0, read)]);
    if (cursor.awaitingLineEnd) {
      if (cursor.pending[0] === 0x0a) cursor.pending = cursor.pending.subarray(1);
      cursor.awaitingLineEnd = false;
    }
    let newline = cursor.pending.indexOf(0x0a);
    while (newline !== -1) {
      const raw = cursor.pending.subarray(0, newline).toString("utf8");
      cursor.pending = cursor.pending.subarray(newline + 1);
      cursor.line++;
      const parsed = parseAuditLine(raw);
      if (parsed.ok) sinks.onRecord(parsed.record);
      else sinks.onIssue?.({ file, line: cursor.line, message: parsed.error });
      newline = cursor.pending.indexOf(0x0a);
    }
  }
}

/**
 * The stat identity (`dev:ino`) of a file, or `undefined` when it does not exist.
 * @param path - The file.
 * @returns The identity.
 */
export function identityOf(path: string): string | undefined {
  try {
    const stats = statSync(path);
    return `${stats.dev}:${stats.ino}`;
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return undefined;
    throw error;
  }
}

/**
 * Moves a cursor opened at the start of a file to where a read of that file ended.
 * @param cursor - The cursor (its file is the one the position is in).
 * @param position - Bytes and lines read (`readAuditLog`'s `end`).
 */
export function positionCursor(cursor: Cursor, position: LogPosition): void {
  cursor.offset = position.bytes;
  cursor.lastByte = byteAt(cursor.fd, position.bytes - 1);
  cursor.awaitingLineEnd = cursor.lastByte !== -1 && cursor.lastByte !== 0x0a;
  cursor.line = position.lines;
  cursor.pending = Buffer.alloc(0);
}

/**
 * The byte at a position of an open file.
 * @param fd - The file.
 * @param at - The position (negative: none).
 * @returns The byte, or -1 when there is none.
 */
function byteAt(fd: number, at: number): number {
  if (at < 0) return -1;
  const byte = Buffer.alloc(1);
  return readSync(fd, byte, 0, 1, at) === 1 ? (byte[0] ?? -1) : -1;
}

/**
 * Whether the byte before the read position is no longer the one read there: the file was truncated
 * and written again past the old position between two polls.
 * @param cursor - The followed file.
 * @returns True when the file changed under the position.
 */
function lostLineEnd(cursor: Cursor): boolean {
  return cursor.offset > 0 && byteAt(cursor.fd, cursor.offset - 1) !== cursor.lastByte;
}

/**
 * Starts again from the start of a followed file that shrank (truncated in place, as `logrotate`'s
 * `copytruncate` does) or whose byte before the read position changed (truncated and written
 * again past it between two polls), saying so: what was written between the last read and the
 * truncation is not there to read. A rewrite that leaves the same byte before the old position
 * cannot be told apart from appending, and is not noticed.
 * @param cursor - The followed file.
 * @param file - Its name, for the issue.
 * @param onIssue - Where the issue goes.
 */
export function rewindIfTruncated(cursor: Cursor, file: string, onIssue: FollowOptions["onIssue"]): void {
  if (fstatSync(cursor.fd).size >= cursor.offset && !lostLineEnd(cursor)) return;
  onIssue?.({ file, line: 0, message: "the log was truncated: reading it again from its start" });
  cursor.offset = 0;
  cursor.lastByte = -1;
  cursor.awaitingLineEnd = false;
  cursor.line = 0;
  cursor.pending = Buffer.alloc(0);
}
