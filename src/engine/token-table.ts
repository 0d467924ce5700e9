/**
 * A compact exact-lookup table for the taint index (SPEC §2.5 "Index, not rescans", §7 memory
 * targets): token keys hashed to 64 bits, of which 40 are kept, in an ordered open-addressing table
 * (Amble–Knuth: linear probing with each run kept sorted, home slot = the hash's top bits). A slot is
 * 8 bytes — the hash's high 32 bits, then its next 8 bits and a 24-bit value (an evidence or excerpt
 * id) — in pages of 4,096 slots, so millions of tokens stay out of the garbage collector's way.
 * Growing doubles the table in one ordered pass that reads the old pages in turn and reuses each one,
 * once read, for the new table: the memory held never exceeds the new table (no old-and-new copy).
 * Keys themselves are never stored: two keys whose 40 kept bits agree answer for each other — more
 * taint, never less, since the callers never use the table to trust. The hash is not keyed (the
 * engine has no randomness): a hostile upstream can find two colliding identities of its own in about
 * 2^20 tries, and one colliding with a given destination of the user's in about 2^40 (that
 * destination then looks tainted or seen: a deny or an ask it did not earn). A collision also keeps
 * the later key out of the newly indexed entries a recording returns, so the cross-server store of
 * SPEC §3.7 (not built) must compare identities, not these hashes. Keys can be hashed from a slice of
 * a larger text without building the slice. Pure.
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
 * The table: pages of {@link PAGE_SLOTS} slots, two words each — the hash's high half, then its low
 * half's top 8 bits above the value + 1 (low 24 bits; 0 = empty). Slot `i` lives in page `i >>> 12`.
 * Runs are sorted by (high half, top 8 bits) and may run past slot `2^bits − 1` into further pages
 * (no wrap-around).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 */
export interface TokenTable {
  pages: (Uint32Array | undefined)[];
  /** log2 of the home slot count: a hash's home is its high half's top `bits` bits. */
  bits: number;
  /** Entries stored. */
  count: number;
  /** Pages emptied by growth, zeroed, for reuse. */
  readonly spare: Uint32Array[];
}

const PAGE_BITS = 12;
/** Slots per page (4,096: 32 KiB). */
const PAGE_SLOTS = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_SLOTS - 1;
/** The table grows (doubles) when an insert would take it past this load. */
const MAX_LOAD = 0.85;
const VALUE_BITS = 24;
const VALUE_FIELD = (1 << VALUE_BITS) - 1;

/**
 * The largest value a table stores (2^24 − 2: the value field holds value + 1, and 0 marks empty).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 */
export const MAX_TABLE_VALUE = VALUE_FIELD - 1;

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
 * Creates an empty table (one page, 32 KiB).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @returns The table.
 */
export function createTokenTable(): TokenTable {
  // The first page exists from the start, so a lookup in an empty table takes the same path as a
  // miss in a full one (one branch less for the JIT to meet late, on the decision path).
  return { pages: [new Uint32Array(PAGE_SLOTS * 2)], bits: PAGE_BITS, count: 0, spare: [] };
}

/**
 * The number of home slots (2^bits; runs may continue past them).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param table - The table.
 * @returns The count.
 */
export function homeSlots(table: TokenTable): number {
  return 2 ** table.bits;
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
  const { pages } = table;
  const hi = hash.hi >>> 0;
  const top = hash.lo >>> VALUE_BITS;
  for (let slot = hi >>> (32 - table.bits); ; slot += 1) {
    const index = slot >>> PAGE_BITS;
    // Never read past the list's end (an empty table has no page): that read is a slow path.
    if (index >= pages.length) return -1;
    const page = pages[index];
    if (page === undefined) return -1;
    const at = (slot & PAGE_MASK) << 1;
    const low = page[at + 1] ?? 0;
    const value = low & VALUE_FIELD;
    if (value === 0) return -1;
    const high = page[at] ?? 0;
    // Runs are sorted: a larger key where ours would stand means ours is absent.
    if (high > hi) return -1;
    if (high === hi) {
      const held = low >>> VALUE_BITS;
      if (held === top) return value - 1;
      if (held > top) return -1;
    }
  }
}

/**
 * The page holding a slot, taken from the spare pages or created when the slot has none yet.
 * @param table - The table.
 * @param index - The page's index.
 * @returns The page.
 */
function pageAt(table: TokenTable, index: number): Uint32Array {
  let page = table.pages[index];
  if (page === undefined) {
    page = table.spare.pop() ?? new Uint32Array(PAGE_SLOTS * 2);
    table.pages[index] = page;
  }
  return page;
}

/**
 * Places an entry known to be absent, keeping its run sorted (a larger entry moves on one slot).
 * @param table - The table.
 * @param high - The hash's high half.
 * @param low - Its top 8 bits above value + 1.
 */
function place(table: TokenTable, high: number, low: number): void {
  for (let slot = high >>> (32 - table.bits); ; slot += 1) {
    const page = pageAt(table, slot >>> PAGE_BITS);
    const at = (slot & PAGE_MASK) << 1;
    const heldLow = page[at + 1] ?? 0;
    if ((heldLow & VALUE_FIELD) === 0) {
      page[at] = high;
      page[at + 1] = low;
      return;
    }
    const heldHigh = page[at] ?? 0;
    if (heldHigh > high || (heldHigh === high && heldLow >>> VALUE_BITS > low >>> VALUE_BITS)) {
      page[at] = high;
      page[at + 1] = low;
      high = heldHigh;
      low = heldLow;
    }
  }
}

/**
 * Doubles the home slots in one pass: the entries, already in key order, are read page by page and
 * each goes to the first free slot from its new home; each old page, once read, is zeroed and reused.
 * @param table - The table.
 */
function grow(table: TokenTable): void {
  const old = table.pages;
  table.pages = [];
  table.bits += 1;
  const shift = 32 - table.bits;
  let next = 0;
  for (let index = 0; index < old.length; index += 1) {
    const page = old[index];
    if (page === undefined) continue;
    for (let at = 0; at < page.length; at += 2) {
      const low = page[at + 1] ?? 0;
      if ((low & VALUE_FIELD) === 0) continue;
      const high = page[at] ?? 0;
      const slot = Math.max(high >>> shift, next);
      next = slot + 1;
      const target = pageAt(table, slot >>> PAGE_BITS);
      const to = (slot & PAGE_MASK) << 1;
      target[to] = high;
      target[to + 1] = low;
    }
    page.fill(0);
    old[index] = undefined;
    table.spare.push(page);
  }
}

/**
 * Refuses a value the table cannot hold.
 * @param value - The value to store.
 * @throws {RangeError} When it is not an integer from 0 to {@link MAX_TABLE_VALUE}.
 */
function checkValue(value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > MAX_TABLE_VALUE) {
    throw new RangeError(`Cannot store ${value} in a token table: values run from 0 to ${MAX_TABLE_VALUE}`);
  }
}

/**
 * Stores a value under a hash the caller has just found absent ({@link findHash} returned -1).
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param table - The table (doubled past 85% load).
 * @param hash - The key's hash, absent from the table.
 * @param value - An integer from 0 to {@link MAX_TABLE_VALUE}.
 * @returns Nothing.
 * @throws {RangeError} When the value is out of range.
 */
export function addAbsentHash(table: TokenTable, hash: TokenHash, value: number): void {
  checkValue(value);
  if (table.count + 1 > homeSlots(table) * MAX_LOAD) grow(table);
  place(table, hash.hi >>> 0, (((hash.lo >>> VALUE_BITS) << VALUE_BITS) | (value + 1)) >>> 0);
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
  const hash: TokenHash = { lo: 0, hi: 0 };
  for (const page of table.pages) {
    if (page === undefined) continue;
    for (let at = 0; at < page.length; at += 2) {
      const low = page[at + 1] ?? 0;
      if ((low & VALUE_FIELD) === 0) continue;
      hash.hi = page[at] ?? 0;
      hash.lo = ((low >>> VALUE_BITS) << VALUE_BITS) >>> 0;
      visit(hash);
    }
  }
}
