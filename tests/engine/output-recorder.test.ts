import { describe, expect, test } from "bun:test";
import { canonicalize, createTaintStore, identify } from "../../src/engine/index.ts";
import {
  createRecorder,
  flushFreeScalars,
  identityKeys,
  queueFreeScalar,
  recordCanonicalFree,
  recordFieldValue,
  recordFreeText,
} from "../../src/engine/output-recorder.ts";
import { lookupToken, searchRecent, tokenCount } from "../../src/engine/taint-lookup.ts";
import { flushWindow, SCALAR_BREAK } from "../../src/engine/text-window.ts";

function recorder(definition = false) {
  return createRecorder(createTaintStore(), {
    server: "mail",
    tool: "read_inbox",
    seq: 3,
    definition,
    listIndexed: true,
  });
}

describe("identityKeys()", () => {
  test.each<[string, string[]]>([
    ["bob@mail.partner.example", ["bob@mail.partner.example", "mail.partner.example", "partner.example"]],
    ["https://a.b.example/x", ["a.b.example", "b.example"]],
    ["@eve_smith", ["@eve_smith", "eve_smith"]],
    ["+1 555 010 0000", ["+15550100000", "tel-tail:550100000"]],
    ["riverside view hotel", ["riverside view hotel"]],
  ])("identityKeys(%p) is %p", (raw, keys) => {
    expect(identityKeys(identify(raw, canonicalize(raw, { destination: true })))).toEqual(keys);
  });
});

describe("queueFreeScalar() and flushFreeScalars()", () => {
  test("flushFreeScalars() scans queued scalars together without joining two scalars into one value", () => {
    const r = recorder();
    queueFreeScalar(r, "Riverside");
    queueFreeScalar(r, "View Hotel");
    queueFreeScalar(r, "write to a@x.example");
    flushFreeScalars(r);
    flushWindow(r.store.window);
    expect(searchRecent(r.store, "riverside view hotel")).toEqual({});
    expect(searchRecent(r.store, "view hotel").free?.seq).toBe(3);
    expect(lookupToken(r.store, "a@x.example")?.free?.excerpt).toBe("write to a@x.example");
  });
});

describe("recordCanonicalFree()", () => {
  test("recordCanonicalFree() of the text it indexed last puts it in the window again, its tokens keeping their first occurrence", () => {
    const r = recorder();
    const text = "write to a@x.example about the riverside view hotel";
    recordCanonicalFree(r, text);
    recordCanonicalFree(r, `${text}`);
    flushWindow(r.store.window);
    expect(r.store.window.size).toBe(2 * (text.length + 1));
    expect(tokenCount(r.store)).toBe(2);
    expect(lookupToken(r.store, "a@x.example")?.free?.excerpt).toBe(text);
    expect(searchRecent(r.store, "riverside view hotel").free?.seq).toBe(3);
  });

  test("recordCanonicalFree() of the text it indexed last still meets its keys inside a text block", () => {
    const r = recorder();
    const text = "write to a@x.example";
    recordCanonicalFree(r, text);
    r.blockKeys = new Set();
    recordCanonicalFree(r, text);
    expect([...r.blockKeys]).toEqual(["a@x.example", "x.example"]);
    r.blockKeys = undefined;
  });

  test("recordCanonicalFree() of the same text again keeps an echoed argument a field value", () => {
    const r = createRecorder(createTaintStore(), {
      server: "mail",
      tool: "send_reply",
      seq: 4,
      definition: false,
      arguments: { to: "bob@x.example" },
    });
    recordCanonicalFree(r, "sent to bob@x.example");
    recordCanonicalFree(r, "sent to bob@x.example");
    expect(lookupToken(r.store, "bob@x.example")?.field?.seq).toBe(4);
    expect(lookupToken(r.store, "bob@x.example")?.free).toBeUndefined();
  });
});

describe("recordFreeText()", () => {
  test("recordFreeText() finds tokens across slices of a text larger than one slice", () => {
    const r = recorder();
    const text = `${"lorem ipsum ".repeat(30_000)}mail a@x.example ${"dolor sit ".repeat(30_000)}mail b@y.example`;
    recordFreeText(r, text);
    expect(lookupToken(r.store, "a@x.example")?.free).toBeDefined();
    expect(lookupToken(r.store, "b@y.example")?.free).toBeDefined();
  });

  test("recordFreeText() keeps excerpts, inside their scalar and trimmed, only while the budget lasts", () => {
    const r = recorder();
    // Each address and its host share one excerpt: 2 × 26 for the first, 2 × 11 for the last.
    r.store.excerptBudget = 74;
    recordFreeText(r, "  write to a@x.example today  ");
    recordFreeText(r, `${"and then ".repeat(10)}write to b@y.example ${"and so on ".repeat(10)}`);
    recordFreeText(r, "c@z.example");
    expect(lookupToken(r.store, "a@x.example")?.free?.excerpt).toBe("write to a@x.example today");
    expect(lookupToken(r.store, "b@y.example")?.free?.excerpt).toBeUndefined();
    expect(lookupToken(r.store, "c@z.example")?.free?.excerpt).toBe("c@z.example");
    expect(lookupToken(r.store, "y.example")?.free?.excerpt).toBeUndefined();
    expect(r.store.excerptBudget).toBe(0);
  });

  test("recordCanonicalFree() cuts an excerpt at its scalar's breaks (free scalars of structured output)", () => {
    const r = recorder();
    recordCanonicalFree(r, `aaa${SCALAR_BREAK}write to a@x.example${SCALAR_BREAK}bbb`);
    expect(lookupToken(r.store, "a@x.example")?.free?.excerpt).toBe("write to a@x.example");
  });

  test("recordFreeText() records definitions as definition occurrences", () => {
    const r = recorder(true);
    recordFreeText(r, "Support: help@vendor.example");
    expect(lookupToken(r.store, "help@vendor.example")).toEqual({
      definition: { server: "mail", tool: "read_inbox", seq: 3, kind: "definition" },
    });
  });
});

describe("recordFieldValue()", () => {
  test("recordFieldValue() records a whole address as a field value under its key, and nothing inside it as free text", () => {
    const r = recorder();
    recordFieldValue(r, "emma.johnson@corp.example", { key: "recipients" });
    expect(lookupToken(r.store, "emma.johnson@corp.example")?.field?.field).toBe("recipients");
    expect(lookupToken(r.store, "emma.johnson")).toBeUndefined();
    expect(r.entries?.map((e) => e.identity)).toEqual(["emma.johnson@corp.example", "corp.example"]);
  });

  test("recordFieldValue() records an address inside a longer field value as free text", () => {
    const r = recorder();
    recordFieldValue(r, "Please reply to attacker@evil.example", { key: "reply_to" });
    expect(lookupToken(r.store, "attacker@evil.example")?.free).toBeDefined();
    expect(lookupToken(r.store, "attacker@evil.example")?.field).toBeUndefined();
  });

  test("recordFieldValue() ignores an empty value", () => {
    const r = recorder();
    recordFieldValue(r, " \u200b ", { key: "to" });
    expect(tokenCount(r.store)).toBe(0);
  });
});
