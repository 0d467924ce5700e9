import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  addAbsentHash,
  createTokenTable,
  findHash,
  forEachHash,
  hashSlice,
  homeSlots,
  MAX_TABLE_VALUE,
  type TokenHash,
  type TokenTable,
} from "../../src/engine/token-table.ts";

const hashOf = (key: string): TokenHash => hashSlice({ lo: 0, hi: 0 }, key);

/** Stores a value unless the hash is present (the first value stays), as the taint index does. */
function addHash(table: TokenTable, hash: TokenHash, value: number): boolean {
  if (findHash(table, hash) !== -1) return false;
  addAbsentHash(table, hash, value);
  return true;
}

describe("hashSlice()", () => {
  test("hashSlice() is deterministic, unsigned 32-bit halves, and tells close keys apart", () => {
    expect(hashOf("a@x.example")).toEqual(hashOf("a@x.example"));
    expect(hashOf("a@x.example")).not.toEqual(hashOf("b@x.example"));
    const { lo, hi } = hashOf("a@x.example");
    for (const half of [lo, hi]) expect(Number.isInteger(half) && half >= 0 && half < 2 ** 32).toBe(true);
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i += 1) {
      const hash = hashOf(`user${i}@host.example`);
      seen.add(`${hash.lo}:${hash.hi}`);
    }
    expect(seen.size).toBe(100_000);
  });

  test("hashSlice() of a slice equals the hash of the string it forms (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.nat(), fc.nat(), (text, a, b) => {
        const start = a % (text.length + 1);
        const end = start + (b % (text.length - start + 1));
        expect(hashSlice({ lo: 0, hi: 0 }, text, start, end)).toEqual(hashOf(text.slice(start, end)));
      }),
    );
  });
});

describe("addHash() and findHash()", () => {
  test("addHash() stores a value once and keeps the first", () => {
    const table = createTokenTable();
    expect(addHash(table, hashOf("a"), 7)).toBe(true);
    expect(addHash(table, hashOf("a"), 8)).toBe(false);
    expect(addHash(table, hashOf("b"), 0)).toBe(true);
    expect(findHash(table, hashOf("a"))).toBe(7);
    expect(findHash(table, hashOf("b"))).toBe(0);
    expect(findHash(table, hashOf("c"))).toBe(-1);
    expect(table.count).toBe(2);
  });

  test("addHash() keeps every entry across growth, and absent keys stay absent", () => {
    const table = createTokenTable();
    for (let i = 0; i < 50_000; i += 1) addHash(table, hashOf(`k${i}`), i);
    expect(table.count).toBe(50_000);
    expect(homeSlots(table)).toBeGreaterThanOrEqual(50_000 / 0.85);
    for (let i = 0; i < 50_000; i += 1) expect(findHash(table, hashOf(`k${i}`))).toBe(i);
    for (let i = 50_000; i < 60_000; i += 1) expect(findHash(table, hashOf(`k${i}`))).toBe(-1);
  });

  test("addHash() and findHash() agree with a Map on any sequence of keys (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 4 }), { maxLength: 600 }),
        fc.array(fc.string({ maxLength: 4 })),
        (keys, probes) => {
          const table = createTokenTable();
          const model = new Map<string, number>();
          keys.forEach((key, i) => {
            expect(addHash(table, hashOf(key), i)).toBe(!model.has(key));
            if (!model.has(key)) model.set(key, i);
          });
          for (const key of [...keys, ...probes])
            expect(findHash(table, hashOf(key))).toBe(model.get(key) ?? -1);
        },
      ),
      { numRuns: 200 },
    );
  });

  test("addHash() and findHash() agree with a Map across growth, with crowded homes (property)", () => {
    // 64 home regions, each with up to 256 × 256 keys: long runs, runs past the last home slot,
    // and two or three doublings per run.
    const key = fc.tuple(fc.nat(63), fc.nat(255), fc.nat(255));
    fc.assert(
      fc.property(fc.array(key, { minLength: 3000, maxLength: 12_000 }), fc.array(key), (keys, probes) => {
        const hashOfKey = ([region, high, top]: [number, number, number]): TokenHash => ({
          hi: (region * 0x04000000 + high) >>> 0,
          lo: ((top << 24) | 0x5a5a5a) >>> 0,
        });
        const table = createTokenTable();
        const model = new Map<string, number>();
        keys.forEach((k, i) => {
          const name = k.join(",");
          expect(addHash(table, hashOfKey(k), i)).toBe(!model.has(name));
          if (!model.has(name)) model.set(name, i);
        });
        expect(table.count).toBe(model.size);
        for (const k of [...keys, ...probes])
          expect(findHash(table, hashOfKey(k))).toBe(model.get(k.join(",")) ?? -1);
      }),
      { numRuns: 25 },
    );
  });

  test("findHash() tells apart hashes that share a home slot, inserted in reverse key order", () => {
    // Same top bits of the high half (same home), told apart by the high half's low bits or by the
    // top 8 bits of the low half; inserted in reverse key order so each insert moves the run on.
    const hashes = Array.from({ length: 40 }, (_, i) => ({
      lo: ((i % 4) << 24) >>> 0,
      hi: 0xabc00000 + (i >> 2),
    }));
    const t = createTokenTable();
    for (const [i, hash] of [...hashes.entries()].reverse()) addHash(t, hash, i);
    for (const [i, hash] of hashes.entries()) expect(findHash(t, hash)).toBe(i);
    expect(findHash(t, { lo: 4 << 24, hi: 0xabc00000 })).toBe(-1);
    expect(findHash(t, { lo: 0, hi: 0xabc00000 + 10 })).toBe(-1);
    expect(findHash(t, { lo: 0, hi: 0xabbfffff })).toBe(-1);
  });

  test("a run that passes the last home slot continues on a further page, and survives growth", () => {
    const t = createTokenTable();
    const hashes = Array.from({ length: 300 }, (_, i) => ({
      lo: (i & 0xff) << 24,
      hi: 0xffffffff - (i >> 8),
    }));
    for (const [i, hash] of hashes.entries()) addHash(t, hash, i);
    for (const [i, hash] of hashes.entries()) expect(findHash(t, hash)).toBe(i);
    for (let i = 0; i < 5000; i += 1) addHash(t, hashOf(`g${i}`), i);
    expect(homeSlots(t)).toBeGreaterThan(4096);
    for (const [i, hash] of hashes.entries()) expect(findHash(t, hash)).toBe(i);
  });

  test("only the high half and the low half's top 8 bits are kept: hashes that differ below agree", () => {
    const t = createTokenTable();
    addHash(t, { lo: 0x12345678, hi: 7 }, 3);
    expect(findHash(t, { lo: 0x12000000, hi: 7 })).toBe(3);
    expect(addHash(t, { lo: 0x12ffffff, hi: 7 }, 4)).toBe(false);
    expect(findHash(t, { lo: 0x13345678, hi: 7 })).toBe(-1);
    const seen: TokenHash[] = [];
    forEachHash(t, (hash) => seen.push({ ...hash }));
    expect(seen).toEqual([{ lo: 0x12000000, hi: 7 }]);
  });

  test("addAbsentHash() takes values from 0 to MAX_TABLE_VALUE and refuses others", () => {
    const t = createTokenTable();
    expect(addHash(t, hashOf("a"), MAX_TABLE_VALUE)).toBe(true);
    expect(findHash(t, hashOf("a"))).toBe(MAX_TABLE_VALUE);
    for (const bad of [MAX_TABLE_VALUE + 1, -1, 1.5])
      expect(() => addHash(t, hashOf("b"), bad)).toThrow(RangeError);
    expect(findHash(t, hashOf("b"))).toBe(-1);
  });

  test("growth reuses the pages it has read: every old page serves the new table", () => {
    const t = createTokenTable();
    let i = 0;
    while (homeSlots(t) < 2 ** 17) addHash(t, hashOf(`p${i}`), i++);
    const before = t.pages.filter((page) => page !== undefined);
    const bits = t.bits;
    while (t.bits === bits) addHash(t, hashOf(`p${i}`), i++);
    const after = new Set([...t.pages, ...t.spare]);
    // Not one old page was dropped for the collector: each holds entries of the new table (or waits).
    expect(before.every((page) => after.has(page))).toBe(true);
    // 2^18 home slots at 4,096 a page, and the few pages a run past the end needs.
    expect(homeSlots(t)).toBe(2 ** 18);
    expect(after.size - (after.has(undefined) ? 1 : 0)).toBeLessThanOrEqual(2 ** 18 / 4096 + 2);
    for (let k = 0; k < i; k += 7) expect(findHash(t, hashOf(`p${k}`))).toBe(k);
  });

  test("growth carries on past pages that were never written (entries only at high homes)", () => {
    const t = createTokenTable();
    const hashes = Array.from({ length: 9000 }, (_, i) => ({
      lo: (i & 0xff) << 24,
      hi: 0xf0000000 + (i >> 8) * 4096,
    }));
    for (const [i, hash] of hashes.entries()) addHash(t, hash, i);
    expect(homeSlots(t)).toBeGreaterThan(4096 * 2);
    expect(t.pages[0]).toBeUndefined();
    for (const [i, hash] of hashes.entries()) expect(findHash(t, hash)).toBe(i);
  });
});
