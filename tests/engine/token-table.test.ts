import { describe, expect, test } from "bun:test";
import {
  addToken,
  createTokenTable,
  findToken,
  hashKey,
  occurrence,
  setOccurrence,
} from "../../src/engine/token-table.ts";

describe("hashKey()", () => {
  test("hashKey() is deterministic, below 2^53, and tells close keys apart", () => {
    expect(hashKey("a@x.example")).toBe(hashKey("a@x.example"));
    expect(hashKey("a@x.example")).not.toBe(hashKey("b@x.example"));
    expect(Number.isSafeInteger(hashKey("a@x.example"))).toBe(true);
    const seen = new Set<number>();
    for (let i = 0; i < 100_000; i += 1) seen.add(hashKey(`user${i}@host.example`));
    expect(seen.size).toBe(100_000);
  });
});

describe("addToken() and findToken()", () => {
  test("addToken() numbers new tokens and returns the same number for a known one", () => {
    const table = createTokenTable();
    expect(addToken(table, hashKey("a"))).toBe(0);
    expect(addToken(table, hashKey("b"))).toBe(1);
    expect(addToken(table, hashKey("a"))).toBe(0);
    expect(findToken(table, hashKey("b"))).toBe(1);
    expect(findToken(table, hashKey("c"))).toBe(-1);
  });

  test("addToken() keeps every token and its occurrences across growth", () => {
    const table = createTokenTable();
    for (let i = 0; i < 20_000; i += 1)
      setOccurrence(table, { token: addToken(table, hashKey(`k${i}`)), column: "field", evidence: i });
    for (let i = 0; i < 20_000; i += 1)
      expect(occurrence(table, { token: findToken(table, hashKey(`k${i}`)), column: "field" })).toBe(i);
  });
});

describe("setOccurrence()", () => {
  test("setOccurrence() keeps the first evidence of a column", () => {
    const table = createTokenTable();
    const token = addToken(table, hashKey("a"));
    expect(occurrence(table, { token, column: "free" })).toBe(-1);
    expect(setOccurrence(table, { token, column: "free", evidence: 3 })).toBe(true);
    expect(setOccurrence(table, { token, column: "free", evidence: 4 })).toBe(false);
    expect(occurrence(table, { token, column: "free" })).toBe(3);
    expect(occurrence(table, { token, column: "definition" })).toBe(-1);
  });
});
