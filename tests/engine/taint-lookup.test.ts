import { describe, expect, test } from "bun:test";
import { createTaintStore, type Evidence } from "../../src/engine/index.ts";
import { indexHash } from "../../src/engine/taint-index.ts";
import { lookupToken, searchRecent } from "../../src/engine/taint-lookup.ts";
import { appendSegment } from "../../src/engine/text-window.ts";
import { hashSlice } from "../../src/engine/token-table.ts";

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

describe("lookupToken()", () => {
  test("lookupToken() counts one probe per lookup, found or not", () => {
    const store = createTaintStore();
    indexToken(store, { key: "a@x.example", evidence: at(1, "free_text") });
    lookupToken(store, "a@x.example");
    lookupToken(store, "b@x.example");
    expect(store.work).toEqual({ probes: 2, scanned: 0 });
  });
});

describe("searchRecent()", () => {
  test("searchRecent() counts the window text it scans", () => {
    const store = createTaintStore({ windowBytes: 1024 });
    appendSegment(store.window, { text: "book the riverside view hotel", meta: at(1, "free_text") });
    expect(searchRecent(store, "riverside view hotel").free?.seq).toBe(1);
    expect(store.work.scanned).toBeGreaterThan(0);
  });
});
