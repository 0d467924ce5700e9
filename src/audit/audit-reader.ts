/**
 * The audit log reader: the rotated files oldest first (`audit.jsonl.5` … `audit.jsonl.1`), then the
 * log itself, one record per line. A line that is not a JSON object with string `ts` and `event`, or
 * that nests deeper than any record Bouncer writes, is skipped and reported with its file and line
 * number, never fatal; so is a rotated file that is not a regular file (a FIFO, a folder: never
 * waited on). Edge (file system).
 *
 * Source: SPEC §3.5 ("readers skip a bad line and report it"), §5.6 ("rotated files included").
 * @module
 */

import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { BouncerError, errorCode } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { readRegularFile } from "../platform/regular-file.ts";
import { auditText, NOT_UTF8_LINE } from "./audit-line-text.ts";
import type { AuditRecord } from "./audit-record.ts";

/** A line the reader skipped. */
export interface AuditIssue {
  readonly file: string;
  /** 1-based line number within `file`; 0 for a problem of the whole file (e.g. records missed while following). */
  readonly line: number;
  /** What is wrong, e.g. `not JSON` or `missing "event"`. */
  readonly message: string;
}

/** What {@link readAuditLog} found. */
export interface AuditReadResult {
  /** Records in file order, oldest file first. */
  readonly records: AuditRecord[];
  readonly issues: AuditIssue[];
  /** The files that were read, oldest first (empty when the log does not exist). */
  readonly files: string[];
  /**
   * Where reading the log itself (not a rotated file) ended: its `dev:ino` identity, the bytes read
   * and the lines counted, so that `--follow` goes on from exactly there (no record read twice or
   * missed). Absent when the log does not exist.
   */
  readonly end?: LogPosition;
}

/** A position in one audit log file. */
export interface LogPosition {
  /** The file's `dev:ino`. */
  readonly identity: string;
  /**
   * Bytes from its start to the end of its last complete line — or to its end, when the last line has
   * no newline yet but is a whole record (it was read and shown); a partial line is read again.
   */
  readonly bytes: number;
  /** Newlines in those bytes (the line number of the last complete line). */
  readonly lines: number;
  /**
   * The file's first bytes as read (up to {@link POSITION_HEAD_BYTES}, not past `bytes`): a file that
   * begins otherwise when followed was emptied and written again since.
   */
  readonly head: Uint8Array;
}

/** How many of a file's first bytes a {@link LogPosition} keeps. */
export const POSITION_HEAD_BYTES = 4096;

/**
 * Lists the log and its rotated files that exist, oldest first: `path.N` … `path.1`, then `path`.
 * Any numeric suffix is listed, not only 1–5, so a log rotated with another `keep` reads completely.
 *
 * Source: SPEC §3.5, §5.6.
 * @param path - The log file.
 * @returns Existing files, oldest first.
 * @throws {BouncerError} `AUDIT_UNREADABLE` when the folder cannot be listed.
 */
export function listAuditFiles(path: string): string[] {
  const folder = dirname(path);
  const name = basename(path);
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return [];
    throw new BouncerError("AUDIT_UNREADABLE", `Cannot read audit log "${path}": ${describeFsError(error)}`, {
      cause: error,
    });
  }
  const rotated: number[] = [];
  let hasLog = false;
  for (const entry of entries) {
    if (entry === name) hasLog = true;
    else if (entry.startsWith(`${name}.`)) {
      const suffix = entry.slice(name.length + 1);
      if (/^[1-9]\d{0,5}$/.test(suffix)) rotated.push(Number(suffix));
    }
  }
  rotated.sort((a, b) => b - a);
  const files = rotated.map((n) => join(folder, `${name}.${n}`));
  if (hasLog) files.push(join(folder, name));
  return files;
}

/**
 * What is wrong with a required string field of a record.
 * @param name - The field.
 * @param value - Its value (`undefined` when absent).
 * @returns `missing "ts"`, or `"ts" is a number, not a string`.
 */
function fieldProblem(name: string, value: unknown): string {
  if (value === undefined) return `missing "${name}"`;
  const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  const kind = type === "null" ? type : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
  return `"${name}" is ${kind}, not a string`;
}

/**
 * Nesting deeper than this is no record Bouncer wrote (its values stop at 64 levels, `redact.ts`): a
 * deeper line is reported, never read — printing it (`--json`, a table cell) would run out of stack.
 */
export const MAX_RECORD_DEPTH = 100;

/**
 * Whether a line's JSON nests deeper than {@link MAX_RECORD_DEPTH} (brackets inside strings not
 * counted). One pass over the text, no recursion.
 * @param text - One line.
 * @returns True when it does.
 */
function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === 0x5c)
        at++; // `\`: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > MAX_RECORD_DEPTH) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}

/**
 * Parses one line of the audit log.
 * @param text - The line without its newline (a CRLF line's `\r` may stay: it is JSON white space).
 * @returns The record, or a message saying why the line is bad (not JSON, not an object, nested
 *   deeper than {@link MAX_RECORD_DEPTH} levels, a missing or wrong `ts` or `event`).
 */
export function parseAuditLine(
  text: string,
): { readonly ok: true; readonly record: AuditRecord } | { readonly ok: false; readonly error: string } {
  if (text.trim() === "") return { ok: false, error: "empty line" };
  if (text === NOT_UTF8_LINE) return { ok: false, error: "not UTF-8 text" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: "not JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, error: "not a JSON object" };
  if (nestsTooDeep(text)) return { ok: false, error: `nests deeper than ${MAX_RECORD_DEPTH} levels` };
  const ts: unknown = Object.hasOwn(value, "ts") ? Reflect.get(value, "ts") : undefined;
  const event: unknown = Object.hasOwn(value, "event") ? Reflect.get(value, "event") : undefined;
  if (typeof event !== "string") return { ok: false, error: fieldProblem("event", event) };
  if (typeof ts !== "string") return { ok: false, error: fieldProblem("ts", ts) };
  return { ok: true, record: value as AuditRecord };
}

/**
 * Parses the text of one log file: every complete line, and a last line without its newline when it
 * parses (a line still being written is reported like any bad line).
 * @param text - The file's text.
 * @param file - The file name, for issues.
 * @returns Records and issues.
 */
export function parseAuditText(text: string, file: string): { records: AuditRecord[]; issues: AuditIssue[] } {
  const records: AuditRecord[] = [];
  const issues: AuditIssue[] = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const [index, raw] of lines.entries()) {
    const parsed = parseAuditLine(raw);
    if (parsed.ok) records.push(parsed.record);
    else issues.push({ file, line: index + 1, message: parsed.error });
  }
  return { records, issues };
}

/**
 * Reads the whole audit log, rotated files included, oldest first. Bad lines are skipped and listed in
 * `issues`; a file that disappears between listing and reading (rotated meanwhile) is skipped; a
 * rotated file that is not a regular file (a FIFO, a folder: never waited on) is skipped with an
 * issue (line 0).
 *
 * With `following`, the log's last line that has no newline yet and does not parse is not reported:
 * it is a line still being written, which `--follow` reads whole (from `end`) once its newline is
 * there, and reports then if it is bad.
 *
 * Source: SPEC §3.5, §5.6.
 * @param path - The log file.
 * @param options - `following`: the read is followed from its `end` (default false).
 * @returns Records, issues and the files read.
 * @throws {BouncerError} `AUDIT_UNREADABLE` for a file that exists but cannot be read, and for a log
 *   (not a rotated file) that is not a regular file.
 */
export function readAuditLog(path: string, options: { readonly following?: boolean } = {}): AuditReadResult {
  const records: AuditRecord[] = [];
  const issues: AuditIssue[] = [];
  const files: string[] = [];
  let end: LogPosition | undefined;
  let logBytes = 0;
  const log = join(dirname(path), basename(path));
  for (const file of listAuditFiles(path)) {
    let text: string;
    try {
      const read = readWithIdentity(file);
      text = read.text;
      if (file === log) {
        logBytes = read.totalBytes;
        // A last line without its newline that is a whole record was shown: follow from after it.
        const tail = read.text.slice(read.text.lastIndexOf("\n") + 1);
        end =
          tail !== "" && parseAuditLine(tail).ok
            ? {
                ...read.position,
                bytes: read.totalBytes,
                lines: read.position.lines + 1,
                head: read.bytes.subarray(0, POSITION_HEAD_BYTES),
              }
            : read.position;
      }
    } catch (error) {
      if (errorCode(error) === "ENOENT") continue;
      // A rotated name that is a FIFO or a folder holds no records: said, and the others read.
      if (file !== log && (errorCode(error) === "ENOTREG" || errorCode(error) === "EISDIR")) {
        issues.push({ file, line: 0, message: `skipped: ${(error as Error).message}` });
        continue;
      }
      throw new BouncerError(
        "AUDIT_UNREADABLE",
        `Cannot read audit log "${file}": ${describeFsError(error)}`,
        {
          cause: error,
        },
      );
    }
    files.push(file);
    const parsed = parseAuditText(text, file);
    // One by one: a spread of a large file's records would overflow the call stack.
    for (const record of parsed.records) records.push(record);
    // A line still being written: read again, whole, by `--follow` (`end` stops before it).
    const writing =
      options.following === true && file === log && end !== undefined && end.bytes < logBytes
        ? end.lines + 1
        : undefined;
    for (const issue of parsed.issues) if (issue.line !== writing) issues.push(issue);
  }
  return end === undefined ? { records, issues, files } : { records, issues, files, end };
}

/**
 * The largest audit log file `bouncer audit` reads (256 MiB): Bouncer rotates its log at 10 MiB, so
 * only a file written otherwise is larger, and one of gigabytes would take minutes and gigabytes of
 * memory to read whole (past 2 GiB, Bun's line search even loops). Refused with a clear error.
 *
 * Source: SPEC §3.5 (rotation at 10 MiB), §3.3 (never a hang).
 */
export const MAX_LOG_FILE_BYTES = 256 * 1024 * 1024;

/**
 * Reads a file through one descriptor: its text, and its identity and size as read.
 * @param file - The file.
 * @returns The text, the position after its last complete line, and its bytes and their length.
 * @throws The file-system error.
 */
function readWithIdentity(file: string): {
  text: string;
  position: LogPosition;
  totalBytes: number;
  bytes: Buffer;
} {
  // A FIFO or a device is refused, not waited on; a file larger than any log Bouncer writes, before
  // it is read whole.
  const { bytes, stats } = readRegularFile(file, { maxBytes: MAX_LOG_FILE_BYTES });
  let lines = 0;
  let lineEnd = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) {
    // Bun's `indexOf` past 2 GiB gives the same offset again: never loop on it.
    if (at < lineEnd) throw new Error(`the search for its lines went back at byte ${at}`);
    lines++;
    lineEnd = at + 1;
  }
  // The position ends after the last complete line: a line still being written is read again by
  // `--follow`, whole, once its newline is there.
  return {
    text: auditText(bytes),
    position: {
      identity: `${stats.dev}:${stats.ino}`,
      bytes: lineEnd,
      lines,
      head: bytes.subarray(0, Math.min(lineEnd, POSITION_HEAD_BYTES)),
    },
    totalBytes: bytes.length,
    bytes,
  };
}
