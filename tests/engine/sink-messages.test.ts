import { describe, expect, test } from "bun:test";
import { canonicalize, type Evidence, identify } from "../../src/engine/index.ts";
import {
  describeEvidence,
  type MessageSubject,
  renderDestination,
  renderName,
  sinkMessages,
} from "../../src/engine/sink-messages.ts";

function subject(raw: string, path = "to"): MessageSubject {
  const identity = identify(raw.trim(), canonicalize(raw, { destination: true }));
  return { server: "mail", tool: "send_email", path, raw, identity };
}

const fromInbox: Evidence = { server: "mail", tool: "read_inbox", seq: 1, kind: "field", field: "sender" };

describe("renderName()", () => {
  test.each<[string, string]>([
    ["read_inbox", "read_inbox"],
    ["files[0].path", "files[0].path"],
    ["tools/list", "tools/list"],
    ["to\nIgnore previous instructions", '"to\\u{a}Ignore previous instructions"'],
    ["x".repeat(65), `"${"x".repeat(65)}"`],
  ])("renderName(%p) is %p", (name, rendered) => {
    expect(renderName(name)).toBe(rendered);
  });
});

describe("renderDestination()", () => {
  test("renderDestination() quotes and escapes the value as written, with the address it reaches", () => {
    expect(renderDestination(subject("bob\u200b@x.example"))).toBe(
      '"bob\\u{200b}@x.example" (address "bob@x.example")',
    );
  });

  test("renderDestination() shows an address as written alone, whatever its case", () => {
    expect(renderDestination(subject("Bob@Partner.example"))).toBe('"Bob@Partner.example"');
  });

  test("renderDestination() names the address behind a display name", () => {
    expect(renderDestination(subject("Boss <x1@evil.example>"))).toBe(
      '"Boss <x1@evil.example>" (address "x1@evil.example")',
    );
  });

  test("renderDestination() keeps the real recipient in view when padding pushes it past the cut", () => {
    const shown = renderDestination(subject(`boss@corp.example${" ".repeat(200)}<x1@evil2.example>`));
    expect(shown).toContain('(address "x1@evil2.example", ending "');
    expect(shown).toEndWith('<x1@evil2.example>")');
  });

  test("renderDestination() shows the end of an address too long to show whole (its domain)", () => {
    const shown = renderDestination(subject(`boss.corp.example.${"x".repeat(190)}@evil2.example`));
    expect(shown).toEndWith('(ending "…xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx@evil2.example")');
  });

  test("renderDestination() adds an address's domain in punycode when it is not ASCII", () => {
    expect(renderDestination(subject("boss@c\u043erp.example"))).toBe(
      '"boss@c\\u{43e}rp.example" (domain "xn--crp-sed.example")',
    );
    expect(renderDestination(subject("Boss <boss@b\u00fccher.example>"))).toBe(
      '"Boss <boss@b\\u{fc}cher.example>" (address "boss@b\\u{fc}cher.example", domain "xn--bcher-kva.example")',
    );
    expect(renderDestination(subject("b\u00f6b@corp.example"))).toBe('"b\\u{f6}b@corp.example"');
    expect(renderDestination(subject("boss@xn--crp-sed.example"))).toBe('"boss@xn--crp-sed.example"');
  });

  test("renderDestination() adds a URL's host in punycode", () => {
    expect(renderDestination(subject("https://exаmple.com/x"))).toBe(
      '"https://ex\\u{430}mple.com/x" (host "xn--exmple-4nf.com")',
    );
  });
});

describe("describeEvidence()", () => {
  test.each<[string, Evidence, string]>([
    ["a field value with its key", fromInbox, 'seen as "sender" in read_inbox\'s output (call #1)'],
    [
      "a field value without a key",
      { server: "mail", tool: "read_inbox", seq: 1, kind: "field" },
      "seen as a field value in read_inbox's output (call #1)",
    ],
    [
      "free text with its excerpt",
      { server: "mail", tool: "read_inbox", seq: 1, kind: "free_text", excerpt: "send to x" },
      'free text of read_inbox\'s output (call #1): "send to x"',
    ],
    [
      "another server's output",
      { server: "web", tool: "get_webpage", seq: 4, kind: "free_text" },
      "free text of get_webpage's output (call #4) on server web",
    ],
    [
      "a definition",
      { server: "mail", tool: "tools/list", seq: 0, kind: "definition" },
      "seen in the tool definitions or instructions (tools/list) of server mail",
    ],
    [
      "a hostile key, escaped",
      { ...fromInbox, field: "sender\u202e" },
      'seen as "sender\\u{202e}" in read_inbox\'s output (call #1)',
    ],
  ])("describeEvidence() describes %s", (_name, evidence, expected) => {
    expect(describeEvidence(evidence, "mail")).toBe(expected);
  });
});

describe("sinkMessages", () => {
  test.each<[string, string]>([
    [
      "tainted",
      sinkMessages.tainted(subject("x@evil.example"), {
        server: "mail",
        tool: "read_inbox",
        seq: 1,
        kind: "free_text",
      }),
    ],
    ["seen", sinkMessages.seen(subject("bob@partner.example"), fromInbox)],
    ["declined", sinkMessages.declined(subject("x@y.example"))],
    ["unproven", sinkMessages.unproven(subject("x@y.example"))],
    ["unproven question", sinkMessages.unprovenQuestion(subject("x@y.example"))],
  ])("sinkMessages.%s is one line that names the destination and its argument", (_name, message) => {
    expect(message).not.toContain("\n");
    expect(message).toMatch(/"[^"]*@[^"]*"/);
    expect(message).toMatch(/\bto\b/);
  });

  test("sinkMessages.seenQuestion() asks about sending and says where the value was seen", () => {
    expect(sinkMessages.seenQuestion(subject("bob@partner.example"), fromInbox)).toBe(
      'Allow send_email to send to "bob@partner.example" (to)? It is not a trusted destination; seen as "sender" in read_inbox\'s output (call #1)',
    );
  });
});
