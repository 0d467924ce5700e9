/**
 * Reading the taint store: a token looked up by exact key (one probe, whatever the session's size),
 * the window of recent output searched for a value that is not token-shaped, and the count of tokens
 * indexed. The store and its indexing live in `taint-index.ts`. Pure.
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 * @module
 */

import type { TaintStore, TokenOccurrences } from "./taint-index.ts";
import { searchWindow, type WindowHits } from "./text-window.ts";
import { findHash, forEachHash, hashSlice } from "./token-table.ts";
import type { Evidence } from "./types.ts";

function evidenceOf(store: TaintStore, id: number): Evidence | undefined {
  return id === -1 ? undefined : store.evidence[id];
}

/**
 * Looks a token up by exact key: one probe, whatever the session's size.
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 * @param store - The taint store.
 * @param key - An index key (email, host, `+digits`, IBAN, or canonical string).
 * @returns Its first occurrence of each kind (free text with its excerpt), or undefined when never seen.
 */
export function lookupToken(store: TaintStore, key: string): TokenOccurrences | undefined {
  store.work.probes += 1;
  const hash = hashSlice(store.hash, key);
  const free = evidenceOf(store, findHash(store.free, hash));
  const field = evidenceOf(store, findHash(store.field, hash));
  const definition = evidenceOf(store, findHash(store.definition, hash));
  if (free === undefined && field === undefined && definition === undefined) return undefined;
  const found: { free?: Evidence; field?: Evidence; definition?: Evidence } = {};
  if (free !== undefined) {
    const id = findHash(store.excerptIds, hash);
    const excerpt = id === -1 ? undefined : store.excerpts[id];
    found.free = excerpt === undefined ? free : { ...free, excerpt };
  }
  if (field !== undefined) found.field = field;
  if (definition !== undefined) found.definition = definition;
  return found;
}

/**
 * The number of distinct tokens indexed (by walking the tables: for tests and reports, not for
 * the decision path).
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 * @param store - The taint store.
 * @returns The count.
 */
export function tokenCount(store: TaintStore): number {
  const keys = new Set<string>();
  for (const table of [store.free, store.field, store.definition]) {
    forEachHash(table, (hash) => keys.add(`${hash.lo}:${hash.hi}`));
  }
  return keys.size;
}

/**
 * Searches the window of recent output for a value that is not token-shaped, on token boundaries.
 * Bounded by the window size.
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 * @param store - The taint store.
 * @param needle - A canonical identity.
 * @returns The first occurrence of each kind in the window.
 */
export function searchRecent(store: TaintStore, needle: string): WindowHits {
  const { hits, scanned } = searchWindow(store.window, needle);
  store.work.scanned += scanned;
  return hits;
}
