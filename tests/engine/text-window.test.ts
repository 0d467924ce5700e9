import { describe, expect, test } from "bun:test";
import type { Evidence } from "../../src/engine/index.ts";
import {
  appendSegment,
  createTextWindow,
  flushWindow,
  searchWindow,
  type WindowHits,
} from "../../src/engine/text-window.ts";

const free: Evidence = { server: "web", tool: "get_webpage", seq: 1, kind: "free_text" };
const field: Evidence = { server: "travel", tool: "get_hotels", seq: 2, kind: "field", field: "name" };
const definition: Evidence = { server: "travel", tool: "tools/list", seq: 0, kind: "definition" };

function search(segments: [string, Evidence][], needle: string, limit = 1 << 20): WindowHits {
  const window = createTextWindow(limit);
  for (const [text, meta] of segments) appendSegment(window, { text, meta });
  flushWindow(window);
  return searchWindow(window, needle).hits;
}

describe("searchWindow()", () => {
  test.each<[string, string, string, boolean]>([
    ["at the start", "riverside view hotel is great", "riverside view hotel", true],
    ["after punctuation", "book (riverside view hotel), now", "riverside view hotel", true],
    ["before a sentence's full stop", "book riverside view hotel.", "riverside view hotel", true],
    ["not inside a longer word", "book xriverside view hotel", "riverside view hotel", false],
    ["not joined by a dot to a word", "see riverside view hotel.example", "riverside view hotel", false],
    ["not joined by a hyphen to a word", "the riverside view hotel-annex", "riverside view hotel", false],
    ["not joined by @ to a word", "bob@riverside view hotel", "riverside view hotel", false],
    ["written against Chinese text (no spaces there)", "请付款给evil corp ltd谢谢", "evil corp ltd", true],
    ["not inside a longer word of accented Latin", "pay évil corp ltdé", "evil corp ltd", false],
  ])("searchWindow() finds a value %s on token boundaries: %p", (_name, text, needle, found) => {
    expect(search([[text, free]], needle).free !== undefined).toBe(found);
  });

  test("searchWindow() tells a whole field value from free text inside it", () => {
    expect(search([["riverside view hotel", field]], "riverside view hotel")).toEqual({ field });
    const inside = search([["riverside view hotel, paris", field]], "riverside view hotel");
    expect(inside.free?.kind).toBe("free_text");
    expect(inside.field).toBeUndefined();
  });

  test("searchWindow() reports a definition occurrence as a definition", () => {
    expect(search([["contact riverside view hotel", definition]], "riverside view hotel")).toEqual({
      definition,
    });
  });

  test("searchWindow() gives a free-text occurrence an excerpt", () => {
    const hits = search(
      [["please book the riverside view hotel for the team", free]],
      "riverside view hotel",
    );
    expect(hits.free).toEqual({ ...free, excerpt: "please book the riverside view hotel for the team" });
  });

  test("searchWindow() cuts an excerpt at its own segment: a neighbour's text is not shown as this output's", () => {
    const hits = search(
      [
        ["object properties url type string", definition],
        ["riverside view hotel is the one", free],
        ["other output entirely", { ...free, seq: 3 }],
      ],
      "riverside view hotel",
    );
    expect(hits.free).toEqual({ ...free, excerpt: "riverside view hotel is the one" });
  });

  test("searchWindow() never matches across two segments", () => {
    expect(
      search(
        [
          ["riverside", free],
          ["view hotel", free],
        ],
        "riverside view hotel",
      ),
    ).toEqual({});
  });

  test("searchWindow() forgets output older than the window", () => {
    const window = createTextWindow(4096);
    appendSegment(window, { text: "visit riverside view hotel", meta: free });
    for (let i = 0; i < 100; i += 1) appendSegment(window, { text: "x".repeat(1000), meta: free });
    flushWindow(window);
    expect(searchWindow(window, "riverside view hotel").hits).toEqual({});
  });

  test("searchWindow() scans no more than the window holds, however much was appended", () => {
    const limit = 256 * 1024;
    const window = createTextWindow(limit);
    for (let i = 0; i < 2000; i += 1)
      appendSegment(window, { text: `line ${i} ${"lorem ipsum ".repeat(80)}`, meta: free });
    flushWindow(window);
    const { scanned } = searchWindow(window, "riverside view hotel");
    expect(scanned).toBeGreaterThan(0);
    expect(scanned).toBeLessThanOrEqual(limit + 64 * 1024 + 2048);
  });

  test("appendSegment() keeps only the tail of a segment larger than the window", () => {
    const window = createTextWindow(1024);
    appendSegment(window, {
      text: `riverside view hotel ${"y ".repeat(2000)} grand budapest hotel`,
      meta: free,
    });
    flushWindow(window);
    expect(searchWindow(window, "riverside view hotel").hits).toEqual({});
    expect(searchWindow(window, "grand budapest hotel").hits.free).toBeDefined();
  });

  test("appendSegment() turns every control character but the scalar break into a space", () => {
    for (const control of ["\u0000", "\u0002", "\t", "\u001f", "\u007f", "\u0085", "\u009f"]) {
      const hits = search([[`book riverside${control}view hotel`, free]], "riverside view hotel");
      expect(hits.free?.seq).toBe(1);
    }
    expect(search([["book riverside\u0001view hotel", free]], "riverside view hotel")).toEqual({});
    expect(search([["book riverside\u0001view hotel", free]], "view hotel").free?.seq).toBe(1);
  });

  test("appendSegment() turns control characters into spaces so NUL cannot fake a segment", () => {
    expect(search([["a\u0000riverside view hotel\u0000b", free]], "riverside view hotel").free).toBeDefined();
  });
});
