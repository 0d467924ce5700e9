/**
 * A compact exact-lookup table for the taint index (SPEC §2.5 "Index, not rescans", §7 memory
 * targets): token keys hashed to 64 bits, Robin Hood open addressing over one typed array — per slot
 * the hash's two 32-bit halves and one 32-bit value (an evidence or excerpt id) — so millions of
 * tokens cost 12 bytes a slot and stay out of the garbage collector's way. Keys themselves are never
 * stored: a hash collision can only make one key answer for another (more taint, never less: the
 * callers never use it to trust or to skip recording). Keys can be hashed from a slice of a larger
 * text without building the slice. Pure.
 * @module
 */

/**
 * A 64-bit hash, as two unsigned 32-bit halves (a reusable out-parameter: no allocation per hash).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 */
export interface TokenHash {
  lo: number;
  hi: number;
}

/**
 * The table: `slots` holds three words per slot — hash low, hash high, value + 1 (0 = empty).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 */
export interface TokenTable {
  slots: Uint32Array;
  /** Slot count − 1 (the slot count is a power of two). */
  mask: number;
  /** Entries stored. */
  count: number;
  /** The entry being placed (the table's own scratch: no allocation per insert). */
  readonly moving: { lo: number; hi: number; value: number };
}

const INITIAL_SLOTS = 256;
/** The table grows (doubles) when an insert would take it past this load. */
const MAX_LOAD = 0.85;

/**
 * Hashes `text[start, end)` (UTF-16 code units) to 64 bits: the same hash as the string those units
 * form, without building it. Two 32-bit multiply-xor lanes with a final avalanche (after cyrb53).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param out - Receives the hash.
 * @param text - The text.
 * @param start - First code unit (default 0).
 * @param end - One past the last code unit (default the text's length).
 * @returns `out`.
 */
export function hashSlice(out: TokenHash, text: string, start = 0, end = text.length): TokenHash {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  out.lo = h1 >>> 0;
  out.hi = h2 >>> 0;
  return out;
}

/**
 * Creates an empty table.
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @returns The table.
 */
export function createTokenTable(): TokenTable {
  return {
    slots: new Uint32Array(INITIAL_SLOTS * 3),
    mask: INITIAL_SLOTS - 1,
    count: 0,
    moving: { lo: 0, hi: 0, value: 0 },
  };
}

/**
 * Finds the value stored under a hash.
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param table - The table.
 * @param hash - The key's hash.
 * @returns The value, or -1 when the hash is absent.
 */
export function findHash(table: TokenTable, hash: TokenHash): number {
  const { slots, mask } = table;
  const { lo, hi } = hash;
  let slot = lo & mask;
  for (let distance = 0; ; distance += 1) {
    const at = slot * 3;
    const value = slots[at + 2] ?? 0;
    if (value === 0) return -1;
    const word = slots[at] ?? 0;
    // Robin Hood order: an entry closer to its home than we are to ours means ours is absent.
    if (((slot - (word & mask)) & mask) < distance) return -1;
    if (word === lo && slots[at + 1] === hi) return value - 1;
    slot = (slot + 1) & mask;
  }
}

/** Places `table.moving`, known to be absent (Robin Hood: an entry nearer its home yields its slot). */
function place(table: TokenTable): void {
  const { slots, mask } = table;
  let { lo, hi, value } = table.moving;
  let slot = lo & mask;
  let distance = 0;
  for (;;) {
    const at = slot * 3;
    const held = slots[at + 2] ?? 0;
    if (held === 0) {
      slots[at] = lo;
      slots[at + 1] = hi;
      slots[at + 2] = value;
      return;
    }
    const heldLo = slots[at] ?? 0;
    const heldDistance = (slot - (heldLo & mask)) & mask;
    if (heldDistance < distance) {
      const heldHi = slots[at + 1] ?? 0;
      slots[at] = lo;
      slots[at + 1] = hi;
      slots[at + 2] = value;
      lo = heldLo;
      hi = heldHi;
      value = held;
      distance = heldDistance;
    }
    slot = (slot + 1) & mask;
    distance += 1;
  }
}

function grow(table: TokenTable): void {
  const old = table.slots;
  const size = (table.mask + 1) * 2;
  table.slots = new Uint32Array(size * 3);
  table.mask = size - 1;
  const entry = table.moving;
  for (let at = 0; at < old.length; at += 3) {
    const value = old[at + 2] ?? 0;
    if (value === 0) continue;
    entry.lo = old[at] ?? 0;
    entry.hi = old[at + 1] ?? 0;
    entry.value = value;
    place(table);
  }
}

/**
 * Stores a value under a hash unless the hash is already present (the first value stays).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param table - The table (doubled in place past 85% load).
 * @param hash - The key's hash.
 * @param value - A non-negative integer below 2^32 − 1.
 * @returns True when stored, false when the hash was present.
 */
export function addHash(table: TokenTable, hash: TokenHash, value: number): boolean {
  if (findHash(table, hash) !== -1) return false;
  addAbsentHash(table, hash, value);
  return true;
}

/**
 * Stores a value under a hash the caller has just found absent ({@link findHash} returned -1).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param table - The table (doubled in place past 85% load).
 * @param hash - The key's hash, absent from the table.
 * @param value - A non-negative integer below 2^32 − 1.
 * @returns Nothing.
 */
export function addAbsentHash(table: TokenTable, hash: TokenHash, value: number): void {
  if (table.count + 1 > (table.mask + 1) * MAX_LOAD) grow(table);
  const entry = table.moving;
  entry.lo = hash.lo;
  entry.hi = hash.hi;
  entry.value = value + 1;
  place(table);
  table.count += 1;
}

/**
 * Visits every hash stored in a table (in slot order; for counting, never on the decision path).
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param table - The table.
 * @param visit - Receives each hash (a scratch object, valid during the call only).
 * @returns Nothing.
 */
export function forEachHash(table: TokenTable, visit: (hash: TokenHash) => void): void {
  const { slots } = table;
  const hash: TokenHash = { lo: 0, hi: 0 };
  for (let at = 0; at < slots.length; at += 3) {
    if ((slots[at + 2] ?? 0) === 0) continue;
    hash.lo = slots[at] ?? 0;
    hash.hi = slots[at + 1] ?? 0;
    visit(hash);
  }
}
