/**
 * The audit log's open file: lines appended with one `O_APPEND` write each, the file created with
 * mode 0600 (its folder 0700), and whether the path still names the open file looked at only now and
 * then — not on every line (a file that was deleted is noticed before every line, by its link count). Between two looks, lines land in the file this process has open: after
 * another process rotated the log, that is `audit.jsonl.1`, which readers read too. The lines since
 * the last look are kept (as text) until the next one, and written again to the log when the open
 * file turns out to have lost its name (deleted, or rotated out by other writers), so no line is lost.
 * A line a write cut short (a full disk) is ended by the next line's write, which starts with a
 * newline: the part is a bad line of its own, and the records after it are read. Edge (file system).
 *
 * Source: SPEC §3.5 ("Each line is one append of one write", "several Bouncer processes share one
 * log safely").
 * @module
 */

import { closeSync, fstatSync, statSync, writeSync } from "node:fs";
import { errorCode } from "../platform/errors.ts";
import { openPrivateAppend, syncWhereSupported } from "../platform/private-file.ts";
import { notRegularReason } from "../platform/regular-file.ts";
import { lineWriter, type WriteBytes } from "./line-writer.ts";

/** Lines kept since the last look at most; one more line makes the look due. */
const KEPT_LINES_MAX = 256;

/** Bytes of lines kept since the last look at most; past this, the next line makes the look due. */
const KEPT_BYTES_MAX = 1024 * 1024;

/** Options of {@link openLogFile}. */
export interface LogFileOptions {
  /** At most this many milliseconds (by the times given) between two looks at the path. */
  readonly checkPathMs: number;
  /** Told how many lines were written again after the open file lost its name. */
  readonly warn?: (message: string) => void;
  /** The write itself (default `fs.writeSync`; tests give one that writes short). */
  readonly write?: WriteBytes;
}

/** The audit log as one writer has it open. */
export interface LogFile {
  /**
   * Appends one line with one write, opening the log first if needed and looking at the path when
   * that is due (by time, when the clock went backwards, or after {@link KEPT_LINES_MAX} lines or
   * {@link KEPT_BYTES_MAX} bytes since the last look).
   * @param text - The line, with its `\n`.
   * @param at - The time now (ms).
   * @returns The size of the file written to, after the line (this writer's estimate, exact at each look).
   * @throws {Error} A file-system error (the caller fails closed); the file is closed then.
   */
  append(text: string, at: number): number;
  /**
   * Looks at the path now (see the module doc); opens the log when it is not open.
   * @param at - The time now (ms).
   * @returns Whether the path names the open file (false: it was reopened).
   * @throws {Error} A file-system error.
   */
  check(at: number): boolean;
  /**
   * Forces the open file's lines to disk, after a look at the path (so lines of a file that lost its
   * name are written again first). A no-op when nothing is open.
   * @throws {Error} A file-system error.
   */
  flush(at: number): void;
  /** Closes the file (a later append reopens the log); lines since the last look are dropped from memory. */
  close(): void;
  /** The size of the open file as of the last look plus the lines appended since (0 when closed). */
  readonly size: number;
}

/**
 * Opens the audit log lazily: nothing happens until the first {@link LogFile.append} or
 * {@link LogFile.check}.
 *
 * Source: SPEC §3.5.
 * @param path - The log file.
 * @param options - Look interval and warning sink.
 * @returns The log file.
 */
export function openLogFile(path: string, options: LogFileOptions): LogFile {
  let fd: number | undefined;
  let identity = "";
  let size = 0;
  /** When (by the times given) the path last named the open file. */
  let checkedAt = 0;
  /** The lines written since then, to write again if the open file lost its name, and their bytes. */
  let kept: string[] = [];
  let keptBytes = 0;

  const close = (): void => {
    kept = [];
    keptBytes = 0;
    if (fd === undefined) return;
    const handle = fd;
    fd = undefined;
    try {
      closeSync(handle);
    } catch {
      // Closing a descriptor whose file is gone cannot lose a line.
    }
  };

  const write = lineWriter(options.write ?? writeSync);
  /** A line to the open file (a cut one is ended by the next line written to the same `dev:ino`). */
  const writeLine = (handle: number, text: string): number => write(handle, text, identity);

  const open = (at: number): number => {
    const handle = openPrivateAppend(path);
    const stats = fstatSync(handle);
    const refused = notRegularReason(stats);
    if (refused?.code === "EISDIR") {
      closeSync(handle);
      throw Object.assign(new Error(refused.reason), { code: refused.code });
    }
    fd = handle;
    identity = `${stats.dev}:${stats.ino}`;
    size = stats.size;
    checkedAt = at;
    kept = [];
    keptBytes = 0;
    return handle;
  };

  const pathNamesOpenFile = (): boolean => {
    try {
      const stats = statSync(path);
      return `${stats.dev}:${stats.ino}` === identity;
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
      return false;
    }
  };

  const check = (at: number): boolean => {
    if (fd === undefined) {
      open(at);
      return true;
    }
    const stats = fstatSync(fd);
    if (pathNamesOpenFile()) {
      size = stats.size;
      checkedAt = at;
      kept = [];
      keptBytes = 0;
      return true;
    }
    const lost = stats.nlink < 1 ? kept : [];
    close();
    const handle = open(at);
    for (const text of lost) size += writeLine(handle, text);
    if (lost.length > 0) {
      options.warn?.(
        `Audit log "${path}" was removed while open: its last ${lost.length} line(s) were written again`,
      );
    }
    return false;
  };

  return {
    append(text, at) {
      try {
        // A file that lost its last name (deleted) is never written to: its link count is looked at
        // before every line (one fstat), so only a deletion racing this very write can put a line
        // there, and the kept lines are written again then.
        const due =
          fd === undefined ||
          at < checkedAt ||
          at - checkedAt >= options.checkPathMs ||
          kept.length >= KEPT_LINES_MAX ||
          keptBytes >= KEPT_BYTES_MAX ||
          fstatSync(fd).nlink < 1;
        if (due) check(at);
        const written = writeLine(fd as number, text);
        size += written;
        kept.push(text);
        keptBytes += written;
        return size;
      } catch (error) {
        close();
        throw error;
      }
    },
    check,
    flush(at) {
      if (fd === undefined) return;
      // The open file first: it holds this writer's latest lines even when another process has
      // rotated it away since; then, if the path names another file now (lines written again
      // there after a deletion), that one.
      syncWhereSupported(fd);
      if (!check(at) && fd !== undefined) syncWhereSupported(fd);
    },
    close,
    get size() {
      return fd === undefined ? 0 : size;
    },
  };
}
