/**
 * The pin store on disk (SPEC §2.2): `$BOUNCER_HOME/pins/<identity-hash>.json`, one file per server
 * identity, written atomically (temp file written whole, fsync, rename: `replaceFile`) while holding an `O_EXCL`
 * lock file, mode 0600. Every read re-checks the file (inode, size, mtime, then content) so that an
 * accept made from a terminal, or by another instance, is seen before the next decision, while an
 * unchanged file keeps returning the same `Map` (the gate re-compares only when pins change). A file
 * that disappears after the store knew it (`bouncer pins forget` while a session runs) is not first
 * sight again: the store keeps the pins it had, in memory, for the rest of the process, and writes
 * that file no more. A first-sight pin looks again under the lock: when another session of the same
 * identity pinned the server since this one's `load`, its pins stand (the first writer wins) and
 * nothing is written. A corrupt file is an error naming it — never an empty store (STYLE #14). Edge
 * (file system).
 *
 * Source: SPEC §2.2 ("Where", "Modes", "Changed tool": the pending definition is stored beside the
 * pins), STYLE #14.
 * @module
 */

import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ToolDefinition } from "../engine/index.ts";
import { BouncerError, errorCode, isBouncerError } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { readRegularTextFile } from "../platform/regular-file.ts";
import { replaceFile } from "../platform/replace-file.ts";
import type { PinStore, ServerContext } from "./memory-pin-store.ts";
import {
  definitionHash,
  type PinFile,
  type PinRecord,
  parsePinFile,
  replacePending,
  serializePinFile,
} from "./pin-file.ts";
import { withPinLock } from "./pin-lock.ts";
import { assertPrivate } from "./pin-privacy.ts";
import { identityHash, storedCommand } from "./server-identity.ts";

/** A definition waiting for approval, as a walk found it. */
export interface PendingDefinition {
  readonly definition: ToolDefinition;
  readonly kind: "changed" | "new";
}

/** The file pin store: the gate's {@link PinStore} plus what the proxy and `bouncer pins` need. */
export interface FilePinStore extends PinStore {
  /** The pin file of a server. */
  fileFor(server: ServerContext): string;
  /**
   * Stores a walk's changed and new definitions beside the pins, so that `bouncer pins accept` can
   * accept them: the pending list becomes exactly these (those of tools no longer listed leave, so a
   * flood of fresh names cannot grow the file). Writes nothing when they are already there.
   * @throws {BouncerError} When the file is corrupt or cannot be written.
   */
  setPending(server: ServerContext, pending: readonly PendingDefinition[]): Promise<void>;
}

/**
 * The folder holding every pin file.
 *
 * Source: SPEC §2.2 ("`$BOUNCER_HOME/pins/<identity-hash>.json`").
 * @param home - Bouncer's home directory.
 * @returns `<home>/pins`.
 */
export function pinsDir(home: string): string {
  return join(home, "pins");
}

/**
 * Reads and parses a pin file, or returns undefined when it does not exist.
 *
 * Source: SPEC §2.2, STYLE #14.
 * @param path - The file.
 * @returns The text and content, or undefined.
 * @throws {BouncerError} `PINS_CORRUPT` for a file that does not parse; `PINS_UNREADABLE` when it
 *   cannot be read.
 */
export function readPinFile(path: string): { readonly text: string; readonly file: PinFile } | undefined {
  let text: string;
  try {
    assertPrivate(path, statSync(path));
    // Whoever may write the folder may put another file in this one's place (read again when
    // its stamp changes, so a replaced file meets this check).
    assertPrivate(dirname(path), statSync(dirname(path)), "Pins folder");
    text = readRegularTextFile(path); // a FIFO there would block every call and the shutdown
  } catch (error) {
    if (isBouncerError(error)) throw error;
    if (errorCode(error) === "ENOENT") return undefined;
    throw new BouncerError("PINS_UNREADABLE", `Cannot read pins "${path}": ${describeFsError(error)}`, {
      cause: error,
    });
  }
  return { text, file: parsePinFile(text, path) };
}

/**
 * Changes a pin file under its lock: reads it fresh, applies `change`, writes it atomically (mode
 * 0600) unless `change` returns undefined.
 *
 * Source: SPEC §2.2 ("written atomically (temp file + rename) under a lock file").
 * @param path - The pin file.
 * @param change - From the current content (undefined when absent) to the new one, or undefined for
 *   "no change".
 * @returns The text written, or undefined when nothing was written.
 * @throws {BouncerError} `PINS_CORRUPT`, `PINS_LOCKED` or `PINS_UNWRITABLE`.
 */
export async function updatePinFile(
  path: string,
  change: (current: PinFile | undefined) => PinFile | undefined,
): Promise<string | undefined> {
  return withPinLock(path, {
    verb: "write",
    action: async () => {
      const next = change(readPinFile(path)?.file);
      if (next === undefined) return undefined;
      const text = serializePinFile(next);
      try {
        await replaceFile(path, Buffer.from(text, "utf8"), { mode: 0o600 });
      } catch (error) {
        throw new BouncerError("PINS_UNWRITABLE", `Cannot write pins "${path}": ${describeFsError(error)}`, {
          cause: error,
        });
      }
      return text;
    },
  });
}

/** What the store remembers about one file between reads. */
interface CacheEntry {
  stamp: string;
  readonly text: string;
  readonly file: PinFile;
  readonly pins: ReadonlyMap<string, ToolDefinition>;
}

/**
 * Creates the file pin store.
 *
 * Source: SPEC §2.2.
 * @param options - Bouncer's home and the clock (for the dates in the file).
 * @returns The store.
 */
export function createFilePinStore(options: {
  readonly home: string;
  readonly now?: () => number;
  /** Told once per file that disappears after this store read or wrote it. */
  readonly onGone?: (path: string) => void;
}): FilePinStore {
  const now = options.now ?? Date.now;
  const cache = new Map<string, CacheEntry>();
  // Files that disappeared (`bouncer pins forget`, removed by hand) after this store knew their pins:
  // it keeps deciding on those, in memory, and never writes the file again (SPEC §2.2: first sight
  // is the first walk of the first session; the next session pins again).
  const gone = new Map<string, ReadonlyMap<string, ToolDefinition>>();
  const detach = (path: string): ReadonlyMap<string, ToolDefinition> | undefined => {
    const known = gone.get(path) ?? cache.get(path)?.pins;
    if (known === undefined || gone.has(path)) return known;
    gone.set(path, known);
    cache.delete(path);
    options.onGone?.(path);
    return known;
  };
  // The identity hash (SHA-256) is computed once per server context, not on every call's pin check.
  const files = new WeakMap<ServerContext, string>();
  const fileFor = (server: ServerContext): string => {
    const known = files.get(server);
    if (known !== undefined) return known;
    const file = join(
      pinsDir(options.home),
      `${identityHash({ name: server.name, command: server.command ?? [], cwd: server.cwd ?? "" })}.json`,
    );
    files.set(server, file);
    return file;
  };
  const blank = (server: ServerContext): PinFile => ({
    server: server.name,
    command: storedCommand(server.command ?? []),
    cwd: server.cwd ?? "",
    tools: [],
    pending: [],
  });
  const remember = (path: string, text: string): ReadonlyMap<string, ToolDefinition> => {
    const previous = cache.get(path);
    const stamp = stampOf(path) ?? "";
    if (previous !== undefined && previous.text === text) {
      previous.stamp = stamp;
      return previous.pins;
    }
    const file = parsePinFile(text, path);
    const pins = new Map(file.tools.map((record) => [record.name, record.definition] as const));
    cache.set(path, { stamp, text, file, pins });
    return pins;
  };
  return {
    fileFor,
    async load(server) {
      const path = fileFor(server);
      const held = gone.get(path);
      if (held !== undefined) return held;
      const stamp = stampOf(path);
      if (stamp === undefined) return detach(path);
      const cached = cache.get(path);
      if (cached !== undefined && cached.stamp === stamp) return cached.pins;
      const read = readPinFile(path);
      return read === undefined ? undefined : remember(path, read.text);
    },
    async pin(server, definitions, pinOptions = {}) {
      const path = fileFor(server);
      const at = new Date(now()).toISOString();
      const firstSight = pinOptions.firstSight === true;
      // Pinned (an approval) while the file is gone: for this session only, in memory.
      const pinInMemory = (): undefined => {
        const next = new Map(detach(path));
        for (const definition of definitions) next.set(definition.name, definition);
        gone.set(path, next);
        return undefined;
      };
      if (gone.has(path)) {
        if (firstSight) return false;
        pinInMemory();
        return true;
      }
      let taken = false;
      const text = await updatePinFile(path, (current) => {
        if (current === undefined && cache.has(path)) return pinInMemory();
        // First sight, but another session of this identity pinned the server since `load` (both
        // walks started before either wrote): its pins stand, never replaced without a "changed".
        if (current !== undefined && firstSight) {
          taken = true;
          return undefined;
        }
        const file = current ?? blank(server);
        const names = new Set(definitions.map((definition) => definition.name));
        const pinned: PinRecord[] = definitions.map((definition) => ({
          name: definition.name,
          hash: definitionHash(definition),
          definition,
          at,
        }));
        return {
          ...file,
          // A file written before its secrets were known as such loses them at its next write.
          command: storedCommand(server.command ?? []),
          tools: [...file.tools.filter((record) => !names.has(record.name)), ...pinned],
          pending: file.pending.filter((record) => !names.has(record.name)),
        };
      });
      if (text !== undefined) remember(path, text);
      return !taken;
    },
    async setPending(server, pending) {
      const path = fileFor(server);
      if (gone.has(path)) return; // nothing to accept them into: the next session starts afresh
      const wanted = pending.map(({ definition, kind }) => ({
        name: definition.name,
        hash: definitionHash(definition),
        definition,
        kind,
      }));
      // A walk that changes nothing writes nothing, and takes no lock (the file as last read holds it).
      const cached = cache.get(path);
      if (cached !== undefined && cached.stamp === stampOf(path)) {
        if (replacePending(cached.file, { wanted, at: "" }) === undefined) return;
      }
      const at = new Date(now()).toISOString();
      const text = await updatePinFile(path, (current) => {
        if (current === undefined && cache.has(path)) {
          detach(path);
          return undefined;
        }
        if (current === undefined && wanted.length === 0) return undefined;
        const file = current ?? blank(server);
        const next = replacePending(file, { wanted, at });
        return next === undefined
          ? undefined
          : { ...file, command: storedCommand(server.command ?? []), pending: next };
      });
      if (text !== undefined) remember(path, text);
    },
  };
}

/**
 * A file's identity and version: inode, size and mtime, or undefined when it does not exist.
 * @param path - The file.
 * @returns The stamp.
 * @throws {BouncerError} `PINS_UNREADABLE` when it cannot be looked at.
 */
function stampOf(path: string): string | undefined {
  try {
    const stats = statSync(path);
    assertPrivate(path, stats);
    return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  } catch (error) {
    if (isBouncerError(error)) throw error;
    if (errorCode(error) === "ENOENT") return undefined;
    throw new BouncerError("PINS_UNREADABLE", `Cannot read pins "${path}": ${describeFsError(error)}`, {
      cause: error,
    });
  }
}
