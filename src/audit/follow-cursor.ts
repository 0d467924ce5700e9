/**
 * The cursor of `bouncer audit --follow` on one audit log file: opened at its start, its end or a
 * position a read ended at, drained line by line, and rewound when the file was truncated or
 * rewritten under it (its size shrank, or the bytes it begins with or the bytes just before the read
 * position are no longer the ones read there). Edge (file system).
 *
 * Source: SPEC §5.6 (`--follow`), §3.5.
 * @module
 */

import { fstatSync, readSync, type Stats, statSync } from "node:fs";
import { errorCode } from "../platform/errors.ts";
import { openRegularFile } from "../platform/regular-file.ts";
import { auditLineText } from "./audit-line-text.ts";
import { type LogPosition, POSITION_HEAD_BYTES, parseAuditLine } from "./audit-reader.ts";
import type { FollowOptions } from "./follow-audit-log.ts";

/**
 * How many of a followed file's first bytes are kept and compared on every poll: a log emptied in
 * place and written again to the same length or longer (`logrotate`'s `copytruncate`) begins with
 * other records (another `ts`, `session`, `seq`), though its size and last byte may be as before.
 */
const HEAD_BYTES = POSITION_HEAD_BYTES;

/** How many bytes before the read position are kept and compared on every poll. */
const TAIL_BYTES = 256;

/** An open file being followed. */
export interface Cursor {
  readonly fd: number;
  readonly identity: string;
  offset: number;
  line: number;
  pending: Buffer;
  /** The file's first bytes as read (up to {@link HEAD_BYTES}): a change means a rewrite. */
  head: Buffer;
  /** The bytes just before `offset` as read (up to {@link TAIL_BYTES}): a change means a rewrite. */
  tail: Buffer;
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
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  const { fd, stats } = opened;
  const cursor: Cursor = {
    fd,
    identity: `${stats.dev}:${stats.ino}`,
    offset: 0,
    line: 0,
    pending: Buffer.alloc(0),
    head: Buffer.alloc(0),
    tail: Buffer.alloc(0),
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
    if (cursor.head.length === cursor.offset && cursor.offset < HEAD_BYTES) {
      cursor.head = Buffer.concat([
        cursor.head,
        chunk.subarray(0, Math.min(read, HEAD_BYTES - cursor.offset)),
      ]);
    }
    cursor.offset += read;
    cursor.tail = Buffer.concat([cursor.tail, chunk.subarray(Math.max(0, read - TAIL_BYTES), read)]);
    if (cursor.tail.length > TAIL_BYTES) cursor.tail = cursor.tail.subarray(cursor.tail.length - TAIL_BYTES);
    cursor.pending = Buffer.concat([cursor.pending, chunk.subarray(0, read)]);
    if (cursor.awaitingLineEnd) {
      if (cursor.pending[0] === 0x0a) cursor.pending = cursor.pending.subarray(1);
      cursor.awaitingLineEnd = false;
    }
    let newline = cursor.pending.indexOf(0x0a);
    while (newline !== -1) {
      const raw = auditLineText(cursor.pending.subarray(0, newline));
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
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Moves a cursor opened at the start of a file to where a read of that file ended. The file's first
 * bytes are those the read saw, so a file emptied and written again since is rewound on the next
 * poll ({@link rewindIfTruncated}).
 * @param cursor - The cursor (its file is the one the position is in).
 * @param position - Bytes and lines read and the first bytes (`readAuditLog`'s `end`).
 */
export function positionCursor(cursor: Cursor, position: LogPosition): void {
  cursor.offset = position.bytes;
  cursor.head = Buffer.from(position.head);
  cursor.tail = tailOf(cursor);
  const last = cursor.tail.at(-1);
  cursor.awaitingLineEnd = last !== undefined && last !== 0x0a;
  cursor.line = position.lines;
  cursor.pending = Buffer.alloc(0);
}

/**
 * The bytes of an open file in a range, as many as there are.
 * @param fd - The file.
 * @param at - Where the range starts.
 * @param length - How many bytes it has.
 * @returns The bytes (fewer when the file ends before the range does).
 */
function bytesAt(fd: number, at: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const read = readSync(fd, bytes, got, length - got, at + got);
    if (read === 0) break;
    got += read;
  }
  return bytes.subarray(0, got);
}

/**
 * The bytes now just before a cursor's read position (as many as its `tail` would keep).
 * @param cursor - The followed file.
 * @returns Up to {@link TAIL_BYTES} bytes.
 */
function tailOf(cursor: Cursor): Buffer {
  const from = Math.max(0, cursor.offset - TAIL_BYTES);
  return bytesAt(cursor.fd, from, cursor.offset - from);
}

/**
 * What a follower is told when the log was truncated: records written between its last read and the
 * truncation may be only in a copy (`copytruncate` copies the log to `.1` first), so it says so.
 */
const TRUNCATED =
  "the log was truncated: reading it again from its start (records written just before may be missing here: see the rotated copy, e.g. with bouncer audit)";

/**
 * Whether the bytes the file begins with, or those just before the read position, are no longer the
 * ones read there: the file was truncated and written again between two polls, to its old length or
 * past it.
 * @param cursor - The followed file.
 * @returns True when the file changed under the position.
 */
function rewritten(cursor: Cursor): boolean {
  if (cursor.offset === 0) return false;
  return (
    !bytesAt(cursor.fd, 0, cursor.head.length).equals(cursor.head) || !tailOf(cursor).equals(cursor.tail)
  );
}

/**
 * Starts again from the start of a followed file that shrank (truncated in place, as `logrotate`'s
 * `copytruncate` does) or whose first bytes or bytes before the read position changed (truncated
 * and written again to its old length or past it between two polls), saying so: what was written
 * between the last read and the truncation is not there to read. A rewrite that leaves the first
 * {@link HEAD_BYTES} and the last {@link TAIL_BYTES} bytes read as they were (the same records written
 * again, byte for byte) cannot be told apart from appending, and is not noticed.
 *
 * Source: SPEC §5.6 (`--follow`); review: a log emptied and refilled to the same length in one poll
 * lost the new records with nothing said.
 * @param cursor - The followed file.
 * @param file - Its name, for the issue.
 * @param onIssue - Where the issue goes.
 */
export function rewindIfTruncated(cursor: Cursor, file: string, onIssue: FollowOptions["onIssue"]): void {
  if (fstatSync(cursor.fd).size >= cursor.offset && !rewritten(cursor)) return;
  onIssue?.({ file, line: 0, message: TRUNCATED });
  cursor.offset = 0;
  cursor.head = Buffer.alloc(0);
  cursor.tail = Buffer.alloc(0);
  cursor.awaitingLineEnd = false;
  cursor.line = 0;
  cursor.pending = Buffer.alloc(0);
}
