import { describe, expect, test } from "bun:test";
import { type Question, renderUntrusted } from "../../src/engine/index.ts";
import { renderAskMessage } from "../../src/proxy/asker-render.ts";

describe("renderAskMessage()", () => {
  test("renderAskMessage() keeps the engine's rendering of an untrusted value: one backslash per escape", () => {
    const shown = renderUntrusted("bob@b\u00fccher\u200b.example");
    const question: Question = {
      kind: "destination",
      message: `Send to ${shown}? It was never seen in this session.`,
      key: { server: "mail", tool: "send_email", param: "to", identity: "bob@bücher.example" },
    };
    const message = renderAskMessage({ server: "mail", tool: "send_email", questions: [question] });
    expect(message).toContain('"bob@b\\u{fc}cher\\u{200b}.example"');
    expect(message).not.toContain("\\\\u{");
  });

  test("renderAskMessage() escapes a raw control or invisible character that reached a sentence", () => {
    const question: Question = {
      kind: "action",
      message: "Run it\u001b[2J now\u2066?",
      key: { server: "gh", tool: "delete_repo", param: "", identity: "action" },
    };
    const message = renderAskMessage({ server: "gh", tool: "delete_repo", questions: [question] });
    expect(message).toContain("Run it\\u{1b}[2J now\\u{2066}?");
  });
});
