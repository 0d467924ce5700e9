/**
 * The audit log writer: one redacted JSON object per line, appended to the log with one `O_APPEND`
 * write per line, the file created with mode 0600, rotated at 10 MiB keeping 5 files — rotation only
 * while holding the `O_EXCL` lock file — so several Bouncer processes share one log safely. Writers
 * never parse the log. A failure to write throws: the proxy denies the call (fail closed). Edge.
 *
 * Source: SPEC §3.5.
 * @module
 */

import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { BouncerError } from "../platform/errors.ts";
import type { AuditEntry, AuditRecord } from "./audit-record.ts";
import { redactJson, redactText } from "./redact.ts";
import { hasErrorCode, LOCK_STALE_MS, tryAcquireLock } from "./rotation-lock.ts";

/** Rotate when the log reaches this size (SPEC §3.5: 10 MiB). */
export const ROTATE_BYTES = 10 * 1024 * 1024;

/** Rotated files kept: `audit.jsonl.1` … `audit.jsonl.5` (SPEC §3.5). */
export const ROTATE_KEEP = 5;

/** Options of {@link createAuditWriter}. */
export interface AuditWriterOptions {
  /** The clock, in milliseconds since the epoch: stamps `ts` and ages the lock file. Default `Date.now`. */
  readonly now?: () => number;
  /** The `bouncer` field. Default: the version in package.json. */
  readonly version?: string;
  /** Rotation size in bytes. Default {@link ROTATE_BYTES}; tests set it tiny. */
  readonly maxBytes?: number;
  /** How many rotated files to keep. Default {@link ROTATE_KEEP}. */
  readonly keep?: number;
  /** Age after which the rotation lock is stale. Default 10 s. */
  readonly lockStaleMs?: number;
  /** Receives warnings that do not lose a record (a failed rotation). Default: ignored. */
  readonly warn?: (message: string) => void;
}

/** An open audit log. */
export interface AuditWriter {
  /** The log's path. */
  readonly path: string;
  /**
   * Opens (creating with mode 0600, and its folder with mode 0700) the log now, to report an
   * unwritable log at start-up. {@link AuditWriter.write} opens it too.
   * @throws {BouncerError} `AUDIT_WRITE_FAILED`.
   */
  open(): void;
  /**
   * Stamps (`ts`, `bouncer`), redacts and appends one record as one line with one write; then rotates
   * if the log reached the rotation size.
   * @param entry - The record to write.
   * @returns The record as written.
   * @throws {BouncerError} `AUDIT_WRITE_FAILED`, naming the file and the cause: deny the call.
   */
  write(entry: AuditEntry): AuditRecord;
  /**
   * Forces written lines to disk (for shutdown). A no-op when nothing was opened.
   * @throws {BouncerError} `AUDIT_WRITE_FAILED`.
   */
  flush(): void;
  /** Closes the file; a later write reopens it. */
  close(): void;
}

/**
 * Renders a file-system error for a message: its code and description, without the path Node adds.
 * @param error - Anything caught.
 * @returns e.g. `EISDIR: illegal operation on a directory`.
 */
export function describeFsError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message.replace(/, \w+ '.*'$/, "").replace(/\.$/, "");
}

/**
 * Builds the line object in the field order of SPEC §3.5, redacting `args`, `reason` and `evidence`.
 * @param entry - The entry.
 * @param stamp - `ts` and `bouncer`.
 * @returns The record as it will be written.
 */
function toRecord(entry: AuditEntry, stamp: { readonly ts: string; readonly bouncer: string }): AuditRecord {
  const record: Record<string, unknown> = { ts: stamp.ts, event: entry.event, session: entry.session };
  if (entry.seq !== undefined) record.seq = entry.seq;
  record.server = entry.server;
  if (entry.tool !== undefined) record.tool = entry.tool;
  if (entry.args !== undefined) record.args = redactJson(entry.args);
  if (entry.verdict !== undefined) record.verdict = entry.verdict;
  if (entry.contract !== undefined) record.contract = entry.contract;
  if (entry.reason !== undefined) record.reason = redactText(entry.reason);
  if (entry.source !== undefined) record.source = entry.source;
  if (entry.evidence !== undefined) record.evidence = redactJson(entry.evidence);
  if (entry.outcome !== undefined) record.outcome = entry.outcome;
  if (entry.mode !== undefined) record.mode = entry.mode;
  record.bouncer = stamp.bouncer;
  return record as unknown as AuditRecord;
}

/**
 * Creates the audit writer for one log file. Nothing is opened until {@link AuditWriter.open} or the
 * first {@link AuditWriter.write}. The path is taken as given (`$BOUNCER_HOME/audit.jsonl` or
 * `--audit-log FILE`; the caller resolves it).
 *
 * Each write: checks that the open descriptor is still the file at `path` (another process may have
 * rotated it; then reopens), appends the whole line with one `write` on an `O_APPEND` descriptor,
 * and, when the file has reached `maxBytes`, tries the rotation lock; the holder re-checks the size
 * and shifts `path.4` → `path.5` … `path` → `path.1`, dropping the oldest. A writer that finds the
 * lock held skips rotating (the holder is doing it). A line appended to a file another process just
 * renamed lands in `path.1`: kept, never lost.
 *
 * Source: SPEC §3.5.
 * @param path - The log file.
 * @param options - Clock, version, rotation size and count, lock staleness, warning sink.
 * @returns The writer.
 * @throws {RangeError} For a non-positive `maxBytes` or a `keep` below 1.
 */
export function createAuditWriter(path: string, options: AuditWriterOptions = {}): AuditWriter {
  const now = options.now ?? Date.now;
  const version = options.version ?? packageJson.version;
  const maxBytes = options.maxBytes ?? ROTATE_BYTES;
  const keep = options.keep ?? ROTATE_KEEP;
  if (!(maxBytes > 0))
    throw new RangeError(`Cannot create audit writer: maxBytes must be positive, got ${maxBytes}`);
  if (!Number.isInteger(keep) || keep < 1) {
    throw new RangeError(`Cannot create audit writer: keep must be an integer of at least 1, got ${keep}`);
  }
  let fd: number | undefined;
  let identity = "";

  const fail = (error: unknown): BouncerError => {
    if (error instanceof BouncerError) return error;
    return new BouncerError(
      "AUDIT_WRITE_FAILED",
      `Cannot write audit log "${path}": ${describeFsError(error)}`,
      {
        cause: error,
      },
    );
  };

  const closeQuietly = (): void => {
    if (fd === undefined) return;
    try {
      closeSync(fd);
    } catch {
      // Closing a descriptor whose file is gone cannot lose a record.
    }
    fd = undefined;
  };

  const openLog = (): number => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const flags = constants.O_WRONLY | constants.O_APPEND;
    let handle: number;
    try {
      handle = openSync(path, flags | constants.O_CREAT | constants.O_EXCL, 0o600);
      fchmodSync(handle, 0o600);
    } catch (error) {
      if (!hasErrorCode(error, "EEXIST")) throw error;
      handle = openSync(path, flags | constants.O_CREAT, 0o600);
    }
    const stats = fstatSync(handle);
    if (stats.isDirectory()) {
      closeSync(handle);
      throw new Error("EISDIR: the path is a directory");
    }
    identity = `${stats.dev}:${stats.ino}`;
    return handle;
  };

  const current = (): number => {
    if (fd !== undefined) {
      try {
        const stats = statSync(path);
        if (`${stats.dev}:${stats.ino}` === identity) return fd;
      } catch (error) {
        if (!hasErrorCode(error, "ENOENT")) throw error;
      }
      closeQuietly();
    }
    fd = openLog();
    return fd;
  };

  const rotate = (): void => {
    const lock = tryAcquireLock(`${path}.lock`, { now, staleMs: options.lockStaleMs ?? LOCK_STALE_MS });
    if (lock === undefined) return;
    try {
      let size: number;
      try {
        size = statSync(path).size;
      } catch (error) {
        if (hasErrorCode(error, "ENOENT")) return; // another writer rotated it a moment ago
        throw error;
      }
      if (size < maxBytes) return;
      for (let i = keep; i >= 1; i--) {
        const from = i === 1 ? path : `${path}.${i - 1}`;
        try {
          if (i === keep) unlinkSync(`${path}.${keep}`);
        } catch (error) {
          if (!hasErrorCode(error, "ENOENT")) throw error;
        }
        try {
          renameSync(from, `${path}.${i}`);
        } catch (error) {
          if (!hasErrorCode(error, "ENOENT")) throw error;
        }
      }
      closeQuietly();
    } finally {
      lock.release();
    }
  };

  return {
    path,
    open(): void {
      try {
        current();
      } catch (error) {
        throw fail(error);
      }
    },
    write(entry: AuditEntry): AuditRecord {
      const record = toRecord(entry, { ts: new Date(now()).toISOString(), bouncer: version });
      const line = Buffer.from(`${JSON.stringify(record)}\n`, "utf8");
      let handle: number;
      try {
        handle = current();
        const written = writeSync(handle, line);
        if (written !== line.length) throw new Error(`short write of ${written} of ${line.length} bytes`);
      } catch (error) {
        closeQuietly();
        throw fail(error);
      }
      try {
        if (fstatSync(handle).size >= maxBytes) rotate();
      } catch (error) {
        options.warn?.(`Cannot rotate audit log "${path}": ${describeFsError(error)}`);
      }
      return record;
    },
    flush(): void {
      if (fd === undefined) return;
      try {
        fsyncSync(fd);
      } catch (error) {
        throw fail(error);
      }
    },
    close(): void {
      closeQuietly();
    },
  };
}
