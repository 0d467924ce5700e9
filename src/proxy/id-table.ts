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

/** Options of an {@link IdTable}. */
export interface IdTableOptions<T> {
  /**
   * What an entry counts for in {@link IdTable.counted}: a weight (such as the characters it holds),
   * or undefined for an entry that is not counted. Asked once, when the entry is added; the same
   * weight is taken off when it is removed.
   */
  readonly weigh?: (value: T) => number | undefined;
}

/** The entries an {@link IdTable} counts, and their weights added up. */
export interface IdTableCount {
  readonly entries: number;
  readonly weight: number;
}

interface Entry<T> {
  readonly value: T;
  readonly origin: string | undefined;
  /** Its weight in {@link IdTable.counted}, or undefined when it is not counted. */
  readonly weight: number | undefined;
}

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
  readonly #entries = new Map<number, Entry<T>>();
  readonly #byOrigin = new Map<string, number>();
  readonly #weigh: ((value: T) => number | undefined) | undefined;
  /** Running totals of the counted entries, changed where entries are added and removed. */
  #counted = 0;
  #weight = 0;

  /**
   * @param options - `weigh`: which entries {@link IdTable.counted} counts, and their weights.
   */
  constructor(options: IdTableOptions<T> = {}) {
    this.#weigh = options.weigh;
  }

  /**
   * Assigns the next id to an entry.
   * @param value - What the id stands for.
   * @param options - `origin`: the key of the original id, for cancel translation.
   * @returns The id to put on the wire.
   */
  allocate(value: T, options: { readonly origin?: string } = {}): number {
    const id = this.#next++;
    const weight = this.#weigh?.(value);
    this.#entries.set(id, { value, origin: options.origin, weight });
    if (weight !== undefined) {
      this.#counted += 1;
      this.#weight += weight;
    }
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
    if (entry.weight !== undefined) {
      this.#counted -= 1;
      this.#weight -= entry.weight;
    }
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
    this.#counted = 0;
    this.#weight = 0;
    return all;
  }

  /**
   * The open entries `weigh` counts and their weights added up, kept as running totals (no walk of
   * the table). Zero for both when the table has no `weigh`.
   * @returns The count and the total weight.
   */
  get counted(): IdTableCount {
    return { entries: this.#counted, weight: this.#weight };
  }

  /** The number of open entries. */
  get size(): number {
    return this.#entries.size;
  }
}
