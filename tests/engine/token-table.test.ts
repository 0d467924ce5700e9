import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  addHash,
  createTokenTable,
  findHash,
  hashSlice,
  type TokenHash,
} from "../../src/engine/token-table.ts";

const hashOf = (key: string): TokenHash => hashSlice({ lo: 0, hi: 0 }, key);

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
    expect(table.mask + 1).toBeGreaterThanOrEqual(50_000 / 0.85);
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

  test("findHash() tells apart hashes that share a home slot (the Robin Hood probe)", () => {
    const table = createTokenTable();
    const size = table.mask + 1;
    // Same low bits (same home), different high halves and low words.
    const hashes = Array.from({ length: 40 }, (_, i) => ({ lo: (i * size + 5) >>> 0, hi: i }));
    for (const [i, hash] of hashes.entries()) addHash(table, hash, i);
    for (const [i, hash] of hashes.entries()) expect(findHash(table, hash)).toBe(i);
    expect(findHash(table, { lo: 5, hi: 99 })).toBe(-1);
    expect(findHash(table, { lo: 6, hi: 0 })).toBe(-1);
  });
});
