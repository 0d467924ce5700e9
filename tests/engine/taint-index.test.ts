import { describe, expect, test } from "bun:test";
import {
  createEngineState,
  createTaintStore,
  DEFAULT_WINDOW_BYTES,
  type Evidence,
  recordOutput,
} from "../../src/engine/index.ts";
import { indexHash, kindTable, MAX_INDEXED_TOKENS } from "../../src/engine/taint-index.ts";
import { lookupToken, tokenCount } from "../../src/engine/taint-lookup.ts";
import { findHash, hashSlice } from "../../src/engine/token-table.ts";
import { gate, sinkRules, textResult } from "./helpers.ts";

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

  test.each([0, -1, 1.5, Number.NaN])("createTaintStore() refuses token limit %p", (limit) => {
    expect(() => createTaintStore({ maxTokens: limit })).toThrow(RangeError);
  });

  test("createTaintStore() defaults the token limit to MAX_INDEXED_TOKENS", () => {
    expect(createTaintStore().options.maxTokens).toBe(MAX_INDEXED_TOKENS);
  });
});

describe("the taint index's limit", () => {
  /** Records a tool result naming `count` new addresses from `from` on. */
  function read(state: ReturnType<typeof createEngineState>, seq: number, from: number, count: number): void {
    const lines = Array.from({ length: count }, (_, i) => `Write to user${from + i}@x.example now.`);
    recordOutput(state.taint, {
      server: "mail",
      tool: "read_inbox",
      seq,
      kind: "tool_result",
      value: textResult(lines.join("\n")),
    });
  }

  test("recordOutput() past maxTokens throws, keeps every entry indexed before, and never grows the index", () => {
    const state = createEngineState({ maxTokens: 100 });
    read(state, 1, 0, 40); // each address and its domain: 41 entries
    expect(() => read(state, 2, 40, 200)).toThrow(
      "Cannot record untrusted output: the taint index holds 100 entries, its limit, and forgets none",
    );
    expect(() => read(state, 3, 1000, 10)).toThrow(RangeError);
    const counts = [state.taint.free, state.taint.field, state.taint.definition].map((table) => table.count);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(100);
    const rules = sinkRules({ sinks: ["to"] });
    // Taint is never forgotten: what was read before the limit, and up to it, still denies.
    expect(gate(state, rules, { to: "user0@x.example" }).verdict).toBe("deny");
    expect(gate(state, rules, { to: "user40@x.example" }).verdict).toBe("deny");
  });

  test("recordOutput() at the limit still records output whose tokens are all indexed", () => {
    const state = createEngineState({ maxTokens: 50 });
    read(state, 1, 0, 20);
    expect(() => read(state, 2, 20, 100)).toThrow(RangeError);
    expect(() => read(state, 3, 0, 20)).not.toThrow();
    expect(() =>
      recordOutput(state.taint, {
        server: "mail",
        tool: "read_inbox",
        seq: 4,
        kind: "tool_result",
        value: textResult("a note without any destination in it"),
      }),
    ).not.toThrow();
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
