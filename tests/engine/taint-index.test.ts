import { describe, expect, test } from "bun:test";
import { createTaintStore, DEFAULT_WINDOW_BYTES, type Evidence } from "../../src/engine/index.ts";
import { indexHash, kindTable } from "../../src/engine/taint-index.ts";
import { lookupToken, tokenCount } from "../../src/engine/taint-lookup.ts";
import { findHash, hashSlice } from "../../src/engine/token-table.ts";

const at = (seq: number, kind: Evidence["kind"]): Evidence => ({
  server: "mail",
  tool: "read_inbox",
  seq,
  kind,
});

/** Indexes one occurrence of a token by its key (what the recorder does with a key's hash). */
function indexToken(
  store: ReturnType<typeof createTaintStore>,
  found: { readonly key: string; readonly evidence: Evidence; readonly excerpt?: string },
): boolean {
  return indexHash(store, { hash: hashSlice({ lo: 0, hi: 0 }, found.key), ...found });
}

describe("createTaintStore()", () => {
  test("createTaintStore() defaults the window to 8 MiB", () => {
    expect(createTaintStore().options.windowBytes).toBe(DEFAULT_WINDOW_BYTES);
    expect(DEFAULT_WINDOW_BYTES).toBe(8 * 1024 * 1024);
  });

  test.each([0, -1, 1.5, Number.NaN])("createTaintStore() refuses window size %p", (size) => {
    expect(() => createTaintStore({ windowBytes: size })).toThrow(RangeError);
  });
});

describe("indexHash()", () => {
  test("indexHash() keeps the first occurrence of each kind", () => {
    const store = createTaintStore();
    expect(indexToken(store, { key: "a@x.example", evidence: at(1, "field") })).toBe(true);
    expect(indexToken(store, { key: "a@x.example", evidence: at(2, "field") })).toBe(false);
    expect(
      indexToken(store, { key: "a@x.example", evidence: at(3, "free_text"), excerpt: "mail a@x.example" }),
    ).toBe(true);
    expect(indexToken(store, { key: "a@x.example", evidence: at(4, "definition") })).toBe(true);
    expect(lookupToken(store, "a@x.example")).toEqual({
      field: at(1, "field"),
      free: { ...at(3, "free_text"), excerpt: "mail a@x.example" },
      definition: at(4, "definition"),
    });
    expect(tokenCount(store)).toBe(1);
  });

  test("indexHash() keeps each kind in its own table, and a lookup there counts no probe", () => {
    const store = createTaintStore();
    indexToken(store, { key: "a@x.example", evidence: at(1, "field") });
    const has = (key: string, kind: Evidence["kind"]) =>
      findHash(kindTable(store, kind), hashSlice({ lo: 0, hi: 0 }, key)) !== -1;
    expect([
      has("a@x.example", "field"),
      has("a@x.example", "free_text"),
      has("b@x.example", "field"),
    ]).toEqual([true, false, false]);
    expect(store.work.probes).toBe(0);
  });

  test("indexHash() shares one evidence record among the tokens of one output", () => {
    const store = createTaintStore();
    const shared = at(1, "free_text");
    for (let i = 0; i < 1000; i += 1) indexToken(store, { key: `user${i}@x.example`, evidence: shared });
    expect(store.evidence).toEqual([shared]);
  });

  test("indexHash() stops keeping excerpts when their budget is spent, and keeps indexing", () => {
    const store = createTaintStore();
    store.excerptBudget = 10;
    indexToken(store, { key: "a@x.example", evidence: at(1, "free_text"), excerpt: "0123456789" });
    indexToken(store, { key: "b@x.example", evidence: at(1, "free_text"), excerpt: "0123456789" });
    expect(lookupToken(store, "a@x.example")?.free?.excerpt).toBe("0123456789");
    expect(lookupToken(store, "b@x.example")?.free).toEqual(at(1, "free_text"));
  });

  test("indexHash() grows the table past many tokens and finds each of them", () => {
    const store = createTaintStore();
    for (let i = 0; i < 50_000; i += 1) indexToken(store, { key: `token${i}`, evidence: at(i, "free_text") });
    expect(tokenCount(store)).toBe(50_000);
    for (const i of [0, 1, 4_095, 49_999]) expect(lookupToken(store, `token${i}`)?.free?.seq).toBe(i);
    expect(lookupToken(store, "token50000")).toBeUndefined();
  });
});
