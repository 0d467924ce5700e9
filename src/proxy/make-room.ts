/**
 * Room for one more entry in a bounded memo (a `Set` or `Map` kept in insertion order): the gate's
 * recorded definitions, a server's compiled rules, the start-up warnings said. The upstream chooses
 * their keys, so each holds a fixed number and forgets its oldest first. Pure.
 *
 * Source: SPEC §3.3 (fail closed), §7 (memory).
 * @module
 */

/**
 * Forgets the oldest entries (first inserted, or re-inserted longest ago) of a collection until
 * fewer than `max` remain, so that one more can be added.
 *
 * Source: SPEC §7 (memory).
 * @param collection - The memo; entries are removed in place.
 * @param max - Entries it holds at most (a positive integer).
 */
export function makeRoom(collection: Set<unknown> | Map<unknown, unknown>, max: number): void {
  for (const key of collection.keys()) {
    if (collection.size < max) return;
    collection.delete(key);
  }
}
