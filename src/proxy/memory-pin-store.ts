/**
 * The pin store interface the gate reads pins through, and its in-memory implementation (for
 * `bouncer replay` and `--pins off`). File persistence under `$BOUNCER_HOME/pins` implements the same
 * interface on the proxy side. Edge.
 *
 * Source: SPEC §2.2 ("Where", "Modes"), §5.9 ("pins live in memory").
 * @module
 */

import type { JsonObject, ToolDefinition } from "../engine/index.ts";

/** What the gate knows about one upstream server (SPEC §2.2 identity, §4.3 pack matching, §5.9). */
export interface ServerContext {
  /** The `--upstream-name` (the `server` of a session file). */
  readonly name: string;
  /** The upstream command line, command first. */
  readonly command?: readonly string[];
  /** The upstream's working directory (absolute); relative paths resolve against it (SPEC §2.4). */
  readonly cwd?: string;
  /** The upstream's `initialize` `serverInfo` (its `name` matches packs). */
  readonly serverInfo?: JsonObject;
}

/**
 * Where a server's pinned tool definitions live. `load` is called before every decision (so an accept
 * made elsewhere takes effect); it must return the same `Map` object for as long as the pins have not
 * changed, and a new one when they have (the gate re-compares only then).
 */
export interface PinStore {
  /**
   * The server's pinned definitions by tool name.
   * @returns `undefined` when the server has never been pinned (first sight, SPEC §2.2).
   */
  load(server: ServerContext): Promise<ReadonlyMap<string, ToolDefinition> | undefined>;
  /**
   * Pins definitions (adding or replacing by name); an empty list marks the server as seen.
   *
   * Source: SPEC §2.2 ("a server seen for the first time has all its tools pinned on first sight").
   * @param server - The server.
   * @param definitions - The definitions to pin.
   * @param options - `firstSight`: pin only while the server still has no pins. Another session of
   *   the same server may have pinned it since `load` said first sight: the first writer wins, and
   *   nothing is written (the caller compares its walk with those pins instead).
   * @returns False when `firstSight` found the server pinned (nothing written), true otherwise.
   * @throws {BouncerError} When the pins cannot be written (the caller fails closed).
   */
  pin(server: ServerContext, definitions: readonly ToolDefinition[], options?: PinOptions): Promise<boolean>;
}

/** Options of {@link PinStore.pin}. */
export interface PinOptions {
  /** The caller's `load` found no pins: pin only if there are none still (SPEC §2.2 first sight). */
  readonly firstSight?: boolean;
}

/**
 * A pin store that lives as long as the process: keyed by server name, nothing persisted.
 *
 * Source: SPEC §2.2 (`--pins off`), §5.9.
 * @returns A fresh, empty store.
 */
export function createMemoryPinStore(): PinStore {
  const servers = new Map<string, ReadonlyMap<string, ToolDefinition>>();
  return {
    load: (server) => Promise.resolve(servers.get(server.name)),
    pin: (server, definitions, options) => {
      if (options?.firstSight === true && servers.has(server.name)) return Promise.resolve(false);
      const next = new Map(servers.get(server.name) ?? []);
      for (const definition of definitions) next.set(definition.name, definition);
      servers.set(server.name, next);
      return Promise.resolve(true);
    },
  };
}
