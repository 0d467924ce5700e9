/**
 * The audit log writer: one redacted JSON object per line, appended to the log with one `O_APPEND`
 * write per line, the file created with mode 0600, rotated at 10 MiB keeping 5 files — rotation only
 * while holding the `O_EXCL` lock file — so several Bouncer processes share one log safely. Writers
 * never parse the log. A failure to write throws: the proxy denies the call (fail closed). The log
 * stays open between writes; whether its path still names the open file (another process may have
 * rotated it) is looked at every {@link CHECK_PATH_MS} ms, not on every write (log-file.ts). Edge.
 *
 * Source: SPEC §3.5.
 * @module
 */

import { renameSync, statSync, unlinkSync } from "node:fs";
import packageJson from "../../package.json" with { type: "json" };
import { BouncerError, errorCode } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { LOCK_STALE_MS, tryAcquireLock } from "../platform/lock-file.ts";
import { isoStamper, toRecord } from "./audit-line.ts";
import type { AuditEntry, AuditRecord } from "./audit-record.ts";
import { openLogFile } from "./log-file.ts";
import { secretHider } from "./redact-values.ts";

/** Rotate when the log reaches this size (SPEC §3.5: 10 MiB). */
export const ROTATE_BYTES = 10 * 1024 * 1024;

/** Rotated files kept: `audit.jsonl.1` … `audit.jsonl.5` (SPEC §3.5). */
export const ROTATE_KEEP = 5;

/**
 * How often, at most, a writer checks that the log's path still names the file it has open (default
 * of {@link AuditWriterOptions.checkPathMs}). Until then, lines land in the file it has open — after
 * another process rotated it, that is `audit.jsonl.1`, which readers read too; lines that went to a
 * file that lost its name meanwhile (deleted, rotated out) are written again to the log then.
 */
export const CHECK_PATH_MS = 100;

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
  /**
   * At most this many milliseconds (by `now`) pass between two checks that the path still names the
   * open file; the path is also checked when the clock went backwards and whenever the open file has
   * reached `maxBytes`. Default {@link CHECK_PATH_MS}; 0 checks before every write.
   */
  readonly checkPathMs?: number;
  /**
   * Values hidden wherever a record's reason or evidence quotes them, in every form an excerpt or a
   * reason shows them (canonical, rendered, by 12-character runs): the upstream's secret-named
   * environment values (`environmentSecrets`), which output that prints its configuration carries.
   * Default none.
   */
  readonly secrets?: readonly string[];
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
 * Creates the audit writer for one log file. Nothing is opened until {@link AuditWriter.open} or the
 * first {@link AuditWriter.write}. The path is taken as given (`$BOUNCER_HOME/audit.jsonl` or
 * `--audit-log FILE`; the caller resolves it).
 *
 * Each write appends the whole line with one `write` on an `O_APPEND` descriptor kept open (see
 * log-file.ts): every `checkPathMs` (and on flush) the writer checks that the descriptor is still the
 * file at `path` — another process may have rotated it: then it reopens; a line appended to a file
 * another process renamed since the last check lands in `path.1`, kept; lines that went to a file
 * that lost its name (deleted, rotated out) are appended again. When the file has reached `maxBytes`,
 * the writer checks the path and tries the rotation lock; the holder re-checks the size and shifts
 * `path.4` → `path.5` … `path` → `path.1`, dropping the oldest. A writer that finds the lock held
 * skips rotating (the holder is doing it).
 *
 * Source: SPEC §3.5.
 * @param path - The log file.
 * @param options - Clock, version, rotation size and count, lock staleness, warning sink, path check
 *   interval, secrets to hide.
 * @returns The writer.
 * @throws {RangeError} For a non-positive `maxBytes`, a `keep` below 1 or a negative `checkPathMs`.
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
  const checkPathMs = options.checkPathMs ?? CHECK_PATH_MS;
  if (!(checkPathMs >= 0)) {
    throw new RangeError(`Cannot create audit writer: checkPathMs must not be negative, got ${checkPathMs}`);
  }
  const stampOf = isoStamper();
  const secrets = options.secrets ?? [];
  const known = secrets.length === 0 ? {} : { hideKnown: secretHider(secrets) };
  const log = openLogFile(path, {
    checkPathMs,
    ...(options.warn === undefined ? {} : { warn: options.warn }),
  });

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

  const rotate = (): void => {
    const lock = tryAcquireLock(`${path}.lock`, { now, staleMs: options.lockStaleMs ?? LOCK_STALE_MS });
    if (lock === undefined) return;
    try {
      let size: number;
      try {
        size = statSync(path).size;
      } catch (error) {
        if (errorCode(error) === "ENOENT") return; // another writer rotated it a moment ago
        throw error;
      }
      if (size < maxBytes) return;
      for (let i = keep; i >= 1; i--) {
        const from = i === 1 ? path : `${path}.${i - 1}`;
        try {
          if (i === keep) unlinkSync(`${path}.${keep}`);
        } catch (error) {
          if (errorCode(error) !== "ENOENT") throw error;
        }
        try {
          renameSync(from, `${path}.${i}`);
        } catch (error) {
          if (errorCode(error) !== "ENOENT") throw error;
        }
      }
      log.close();
    } finally {
      lock.release();
    }
  };

  return {
    path,
    open(): void {
      try {
        log.check(now());
      } catch (error) {
        throw fail(error);
      }
    },
    write(entry: AuditEntry): AuditRecord {
      const at = now();
      const record = toRecord(entry, { ts: stampOf(at), bouncer: version }, known);
      let size: number;
      try {
        size = log.append(`${JSON.stringify(record)}\n`, at);
      } catch (error) {
        throw fail(error);
      }
      try {
        // Looked at first: a file another writer renamed since the last look is not this one's to rotate.
        if (size >= maxBytes && log.check(at) && log.size >= maxBytes) rotate();
      } catch (error) {
        options.warn?.(`Cannot rotate audit log "${path}": ${describeFsError(error)}`);
      }
      return record;
    },
    flush(): void {
      try {
        log.flush(now());
      } catch (error) {
        throw fail(error);
      }
    },
    close(): void {
      log.close();
    },
  };
}
