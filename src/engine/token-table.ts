/**
 * A compact exact-lookup table for the taint index (SPEC §2.5 "Index, not rescans", §7 memory
 * targets): token keys hashed to 53 bits, open addressing over typed arrays, and per token the id of
 * its first free-text, field and definition evidence. Typed arrays keep millions of tokens out of the
 * garbage collector's way. A hash collision can only merge two tokens' occurrences (more taint,
 * never less). Pure.
 * @module
 */

/**
 * Which occurrence column: first free-text, field or definition evidence.
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 */
export type OccurrenceColumn = "free" | "field" | "definition";

/**
 * The table. Columns hold evidence id + 1 (0 = none), indexed by token number.
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 */
export interface TokenTable {
  /** Hash of the token in each slot. */
  hashes: Float64Array;
  /** Token number + 1 in each slot (0 = empty). */
  slots: Int32Array;
  free: Int32Array;
  field: Int32Array;
  definition: Int32Array;
  /** Tokens stored. */
  count: number;
}

const INITIAL_SLOTS = 1024;

/**
 * A 53-bit hash of a token key (cyrb53).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param key - The token key.
 * @returns A non-negative integer below 2^53.
 */
export function hashKey(key: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < key.length; i += 1) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Creates an empty table.
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @returns The table.
 */
export function createTokenTable(): TokenTable {
  return {
    hashes: new Float64Array(INITIAL_SLOTS),
    slots: new Int32Array(INITIAL_SLOTS),
    free: new Int32Array(INITIAL_SLOTS / 2),
    field: new Int32Array(INITIAL_SLOTS / 2),
    definition: new Int32Array(INITIAL_SLOTS / 2),
    count: 0,
  };
}

function slotOf(table: TokenTable, hash: number): number {
  const mask = table.slots.length - 1;
  let slot = (hash % 4294967296) & mask;
  for (;;) {
    const token = table.slots[slot] ?? 0;
    if (token === 0 || table.hashes[slot] === hash) return slot;
    slot = (slot + 1) & mask;
  }
}

function grown(column: Int32Array, length: number): Int32Array {
  const next = new Int32Array(length);
  next.set(column);
  return next;
}

function rehash(table: TokenTable): void {
  const { hashes, slots } = table;
  table.hashes = new Float64Array(slots.length * 2);
  table.slots = new Int32Array(slots.length * 2);
  for (let i = 0; i < slots.length; i += 1) {
    const token = slots[i] ?? 0;
    if (token === 0) continue;
    const slot = slotOf(table, hashes[i] ?? 0);
    table.hashes[slot] = hashes[i] ?? 0;
    table.slots[slot] = token;
  }
}

/** Columns grow by half their length when full (they hold one entry per token, not per slot). */
function growColumns(table: TokenTable): void {
  const length = Math.ceil(table.free.length * 1.5);
  table.free = grown(table.free, length);
  table.field = grown(table.field, length);
  table.definition = grown(table.definition, length);
}

/**
 * Finds a token's number.
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param table - The table.
 * @param hash - The token's {@link hashKey}.
 * @returns The token number, or -1 when absent.
 */
export function findToken(table: TokenTable, hash: number): number {
  return (table.slots[slotOf(table, hash)] ?? 0) - 1;
}

/**
 * Finds or adds a token.
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param table - The table (grown in place at three-quarters load).
 * @param hash - The token's {@link hashKey}.
 * @returns The token number.
 */
export function addToken(table: TokenTable, hash: number): number {
  const slot = slotOf(table, hash);
  const found = table.slots[slot] ?? 0;
  if (found !== 0) return found - 1;
  const token = table.count;
  table.count += 1;
  table.hashes[slot] = hash;
  table.slots[slot] = token + 1;
  if (table.count * 4 > table.slots.length * 3) rehash(table);
  if (table.count >= table.free.length) growColumns(table);
  return token;
}

/** One cell of the occurrence columns: a token number and a column. */
export interface TokenCell {
  readonly token: number;
  readonly column: OccurrenceColumn;
}

/**
 * Reads a token's evidence id in one column.
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param table - The table.
 * @param cell - The token number and the column (which occurrence).
 * @returns The evidence id, or -1 when the token has no such occurrence.
 */
export function occurrence(table: TokenTable, cell: TokenCell): number {
  return (table[cell.column][cell.token] ?? 0) - 1;
}

/**
 * Sets a token's evidence id in one column, unless one is already set (the first occurrence stays).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param table - The table.
 * @param cell - The token number, the column, and the evidence id to store.
 * @returns True when it was set.
 */
export function setOccurrence(table: TokenTable, cell: TokenCell & { readonly evidence: number }): boolean {
  if ((table[cell.column][cell.token] ?? 0) !== 0) return false;
  table[cell.column][cell.token] = cell.evidence + 1;
  return true;
}
