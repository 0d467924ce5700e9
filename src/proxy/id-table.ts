/**
 * The id table of one leg of the relay (Bouncer → upstream, or Bouncer → client). Every request
 * Bouncer sends on a leg — relayed or its own — gets a fresh Bouncer-assigned integer id; the answer
 * is looked up by that id only, so a peer's own ids can never be mistaken for Bouncer's, and an entry
 * removed (answered or cancelled) makes a late answer unknown (dropped). Relayed entries also keep the
 * key of the original id so that `notifications/cancelled` can be translated. Edge (pure).
 *
 * Source: SPEC §3.1 ("Ids are remapped in both directions … late responses to cancelled requests are
 * dropped. An upstream's request can never be mistaken for Bouncer's own").
 * @module
 */

import type { RequestId } from "./jsonrpc.ts";

/**
 * Outgoing ids of one leg, each mapped to what it stands for.
 *
 * Source: SPEC §3.1.
 * @example
 * const table = new IdTable<string>();
 * const id = table.allocate("tools/list", { origin: "n:7" });
 * table.take(id); // "tools/list"
 */
export class IdTable<T> {
  #next = 1;
  readonly #entries = new Map<number, { readonly value: T; readonly origin: string | undefined }>();
  readonly #byOrigin = new Map<string, number>();

  /**
   * Assigns the next id to an entry.
   * @param value - What the id stands for.
   * @param options - `origin`: the key of the original id, for cancel translation.
   * @returns The id to put on the wire.
   */
  allocate(value: T, options: { readonly origin?: string } = {}): number {
    const id = this.#next++;
    this.#entries.set(id, { value, origin: options.origin });
    if (options.origin !== undefined) this.#byOrigin.set(options.origin, id);
    return id;
  }

  /**
   * The entry for an id as it came back on the wire (only the exact integer matches: `"3"` ≠ `3`).
   * @param id - The id of a response.
   * @returns The entry, or undefined.
   */
  get(id: RequestId): T | undefined {
    return typeof id === "number" ? this.#entries.get(id)?.value : undefined;
  }

  /**
   * Removes and returns the entry for an id (an answer arrived, or the request was cancelled).
   * @param id - The id of a response.
   * @returns The entry, or undefined when unknown or already taken.
   */
  take(id: RequestId): T | undefined {
    if (typeof id !== "number") return undefined;
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    this.#entries.delete(id);
    if (entry.origin !== undefined && this.#byOrigin.get(entry.origin) === id)
      this.#byOrigin.delete(entry.origin);
    return entry.value;
  }

  /**
   * The outgoing id that stands for an original id.
   * @param origin - The key of the original id (see `idKey`).
   * @returns The outgoing id, or undefined.
   */
  idForOrigin(origin: string): number | undefined {
    return this.#byOrigin.get(origin);
  }

  /**
   * The open entries with their ids, oldest first (a snapshot).
   * @returns Id and entry pairs.
   */
  entries(): [number, T][] {
    return [...this.#entries].map(([id, entry]) => [id, entry.value]);
  }

  /**
   * Removes every entry (the peer is gone).
   * @returns The entries with their ids, oldest first.
   */
  takeAll(): [number, T][] {
    const all: [number, T][] = [...this.#entries].map(([id, entry]) => [id, entry.value]);
    this.#entries.clear();
    this.#byOrigin.clear();
    return all;
  }

  /** The number of open entries. */
  get size(): number {
    return this.#entries.size;
  }
}
