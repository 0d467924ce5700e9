/**
 * The files of the audit log that came after one file `bouncer audit --follow` read: the rotated
 * files newer than it and the log itself, each opened, taken as they all stood at one moment — never
 * a file skipped because writers rotated the log while the names were being looked at or opened.
 * Edge (file system).
 *
 * Source: SPEC §5.6 (`--follow`), §3.5 (rotation); review: follow lost whole rotated files under two
 * fast writers, with nothing said.
 * @module
 */

import { closeSync, statSync } from "node:fs";
import { basename } from "node:path";
import { errorCode } from "../platform/errors.ts";
import { notRegularReason } from "../platform/regular-file.ts";
import { type LogPosition, listAuditFiles } from "./audit-reader.ts";
import { type Cursor, openCursor, positionCursor } from "./follow-cursor.ts";

/** How often the names are looked at again, at most, when rotations keep moving them (then: next poll). */
const ATTEMPTS = 20;

/** A name of the log's and the file it named when looked at. */
interface Link {
  readonly file: string;
  /** `dev:ino`. */
  readonly identity: string;
  /** Why it is not read (a folder, a FIFO, ...); undefined for a regular file. */
  readonly refused: string | undefined;
}

/** Where a file stood among the log's files, and the files after it, oldest first. */
interface Chain {
  /** The name of the file looked for; undefined when it is neither the log nor a rotated file. */
  readonly at: string | undefined;
  /** The files after it, oldest first: rotated files, then the log when it exists. */
  readonly newer: readonly Link[];
}

/** What {@link openChain} found. */
export type ChainStep =
  | {
      readonly kind: "settled";
      /**
       * Open files, oldest first: the file looked for itself when a position in it was given (at that
       * position), then every file after it, each at its start. When `live`, the last is the log.
       */
      readonly cursors: readonly { readonly cursor: Cursor; readonly file: string }[];
      /** Whether the last cursor is the log itself (false: there is no log at the moment). */
      readonly live: boolean;
      /** The identity of the newest of these files (the file looked for when there is none). */
      readonly newest: string;
      /** Rotated files passed over unread, as they are not regular files (a FIFO, a folder). */
      readonly skipped: readonly { readonly file: string; readonly reason: string }[];
    }
  /** The file is neither the log nor a rotated file any more (rotated out, deleted, replaced). */
  | { readonly kind: "lost" }
  /** Rotations kept moving the files while they were looked at: try again later. */
  | { readonly kind: "unsettled" };

/**
 * The file a name stands for, or `undefined` when it does not exist.
 * @param file - The name.
 * @returns The link.
 * @throws {Error} A file-system error other than "not found".
 */
function linkOf(file: string): Link | undefined {
  try {
    const stats = statSync(file);
    return { file, identity: `${stats.dev}:${stats.ino}`, refused: notRegularReason(stats)?.reason };
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Looks at the names once: where the file is and what came after it. Names are in age order at any
 * moment (rotation renames `path.4` → `path.5` first and `path` → `path.1` last, under its lock), so
 * a gap left by a rotation under way is passed over, not taken for the end.
 * @param path - The log file.
 * @param identity - The file looked for.
 * @returns The chain as the names stood while they were looked at.
 */
function scanChain(path: string, identity: string): Chain {
  const log = linkOf(path);
  if (log?.identity === identity) return { at: path, newer: [] };
  const rotated = listAuditFiles(path).filter((file) => basename(file) !== basename(path));
  const newer: Link[] = log === undefined ? [] : [log];
  for (const file of rotated.reverse()) {
    const link = linkOf(file);
    if (link === undefined) continue;
    if (link.identity === identity) return { at: file, newer };
    newer.unshift(link);
  }
  return { at: undefined, newer: [] };
}

/**
 * Whether two looks at the names saw the same.
 * @param a - One look.
 * @param b - The other.
 * @returns True when every name stood for the same file both times.
 */
function sameChain(a: Chain, b: Chain): boolean {
  return (
    a.at === b.at &&
    a.newer.length === b.newer.length &&
    a.newer.every((link, i) => link.file === b.newer[i]?.file && link.identity === b.newer[i]?.identity)
  );
}

/**
 * Opens the files of links, oldest first, passing over rotated files that are not regular files.
 * @param path - The log file (a log that is not a regular file is not passed over: its error is thrown).
 * @param links - The files, as looked at.
 * @returns The open files and those passed over, or `undefined` when a name no longer stood for the
 *   file looked at (everything opened is closed then).
 * @throws {Error} A file-system error other than "not found"; `EISDIR` or `ENOTREG` for the log.
 */
function openLinks(
  path: string,
  links: readonly Link[],
): { cursors: { cursor: Cursor; file: string }[]; skipped: { file: string; reason: string }[] } | undefined {
  const cursors: { cursor: Cursor; file: string }[] = [];
  const skipped: { file: string; reason: string }[] = [];
  const rotated = (error: unknown, file: string): boolean =>
    file !== path && (errorCode(error) === "EISDIR" || errorCode(error) === "ENOTREG");
  try {
    for (const link of links) {
      if (link.refused !== undefined && link.file !== path) {
        skipped.push({ file: link.file, reason: link.refused });
        continue;
      }
      let cursor: Cursor | undefined;
      try {
        cursor = openCursor(link.file, true);
      } catch (error) {
        // A rotated name that became a FIFO or a folder since it was looked at: it moved.
        if (rotated(error, link.file)) cursor = undefined;
        else throw error;
      }
      if (cursor !== undefined) cursors.push({ cursor, file: link.file });
      if (cursor?.identity !== link.identity) {
        for (const open of cursors) closeSync(open.cursor.fd);
        return undefined;
      }
    }
  } catch (error) {
    for (const open of cursors) closeSync(open.cursor.fd);
    throw error;
  }
  return { cursors, skipped };
}

/**
 * Opens the files after a file of the log, as they all stood at one moment: the names are looked at,
 * the files opened, and the names looked at again; when anything moved in between (a rotation), all
 * is closed and done again. Each name stood for the same file at both looks, and files only move up
 * (`path` → `path.1` → …), so there was a moment in between when the files opened were exactly the
 * files after the one looked for.
 *
 * Source: SPEC §5.6, §3.5.
 * @param path - The log file.
 * @param identity - The `dev:ino` of the file read last (or to resume).
 * @param position - Where to resume in that file; without it, that file is not opened (the caller
 *   has it open).
 * @returns The open files, or that the file is lost, or that rotations kept moving the files.
 * @throws {Error} A file-system error other than "not found" (e.g. `EACCES`).
 */
export function openChain(path: string, identity: string, position?: LogPosition): ChainStep {
  let misses = 0;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = scanChain(path, identity);
    if (before.at === undefined) {
      // Not found three looks in a row: gone (a file moved past the names listed is found next time).
      if (++misses === 3) return { kind: "lost" };
      continue;
    }
    misses = 0;
    const wanted =
      position === undefined
        ? before.newer
        : [{ file: before.at, identity, refused: undefined }, ...before.newer];
    const opened = openLinks(path, wanted);
    if (opened === undefined) continue;
    if (sameChain(before, scanChain(path, identity))) {
      const first = opened.cursors[0];
      if (position !== undefined && first !== undefined) positionCursor(first.cursor, position);
      const last = opened.cursors.at(-1);
      return {
        kind: "settled",
        cursors: opened.cursors,
        live: last?.file === path,
        newest: wanted.at(-1)?.identity ?? identity,
        skipped: opened.skipped,
      };
    }
    for (const { cursor } of opened.cursors) closeSync(cursor.fd);
  }
  return { kind: "unsettled" };
}
