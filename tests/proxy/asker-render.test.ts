import { describe, expect, test } from "bun:test";
import { evaluateConstraints, type Question, renderUntrusted } from "../../src/engine/index.ts";
import { askSchema, readAskAnswer, renderAskMessage } from "../../src/proxy/asker-render.ts";
import { makeInput, makeRules, sourced } from "../engine/core-input.ts";

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

  test("renderAskMessage() lists an action: ask call's arguments once (the question lists them)", () => {
    const rules = makeRules({ tool: "run_job", action: sourced("ask") });
    const args = { repo: "scratch-test" };
    const asked = evaluateConstraints(makeInput({ rules, arguments: args })).asks[0]?.question;
    if (asked === undefined) throw new Error("expected a question");
    const message = renderAskMessage({ server: "srv", tool: "run_job", questions: [asked], arguments: args });
    expect(message.split("repo:")).toHaveLength(2);
    expect(message).not.toContain("arguments:");
  });

  test("renderAskMessage() follows another question about the call (an unclassified tool) with its arguments", () => {
    const question: Question = {
      kind: "action",
      message: "Allow tool x, which no policy classifies, for this session?",
      key: { server: "s", tool: "x", param: "", identity: "unclassified" },
    };
    const message = renderAskMessage({ server: "s", tool: "x", questions: [question], arguments: { a: 1 } });
    expect(message).toContain("This call's arguments:\n  a: 1");
  });

  test("renderAskMessage() says first how many destinations one accept approves, when more than one", () => {
    const destination = (to: string): Question => ({
      kind: "destination",
      message: `Allow send_email to send to "${to}" (to)?`,
      key: { server: "mail", tool: "send_email", param: "to", identity: to },
    });
    const many = Array.from({ length: 2001 }, (_, i) => destination(`u${i}@x.example`));
    const lines = renderAskMessage({ server: "mail", tool: "send_email", questions: many }).split("\n");
    expect(lines[1]).toBe(
      "This call has 2001 destinations needing approval (not trusted), all listed below; accepting approves all 2001.",
    );
    expect(lines[2]).toBe('1. Allow send_email to send to "u0@x.example" (to)?');
    const one = renderAskMessage({
      server: "mail",
      tool: "send_email",
      questions: [destination("a@x.example")],
    });
    expect(one).not.toContain("This call has");
  });
});

describe("askSchema() and readAskAnswer()", () => {
  const action: Question = {
    kind: "action",
    message: "Run deploy?",
    key: { server: "s", tool: "deploy", param: "", identity: 'action:{"target":"prod"}' },
  };
  const destination: Question = {
    kind: "destination",
    message: "Allow deploy to send to x?",
    key: { server: "s", tool: "deploy", param: "to", identity: "x@y.example" },
  };

  test("askSchema() offers no remember field for an action: ask question alone (its accept is never remembered)", () => {
    expect(askSchema([action])).toEqual({ type: "object", properties: {} });
    const message = renderAskMessage({ server: "s", tool: "deploy", questions: [action] });
    expect(message).toEndWith(
      "Accept to allow this call only (the policy asks before every call of this tool), decline to block it and identical calls in this session.",
    );
  });

  test("askSchema() offers remember beside an action: ask question for the other questions, saying what it covers", () => {
    const properties = askSchema([action, destination]).properties as Record<string, { description: string }>;
    expect(properties.remember?.description).toBe(
      "Answer the questions about destinations and tools the same way for the rest of this session, and block identical calls after a decline; an accept of the call itself is never remembered (action: ask)",
    );
    expect((askSchema([destination]).properties as Record<string, unknown>).remember).toMatchObject({
      type: "boolean",
      default: true,
    });
  });

  test("readAskAnswer() takes remember as malformed where the form had none, and an accept without it as one call", () => {
    expect(readAskAnswer({ action: "accept", content: { remember: true } }, [action]).action).toBe(
      "malformed",
    );
    expect(readAskAnswer({ action: "accept", content: {} }, [action])).toEqual({
      action: "accept",
      answer: { accepted: true, remember: false },
    });
    expect(readAskAnswer({ action: "decline", content: {} }, [action])).toEqual({
      action: "decline",
      remember: true,
    });
    expect(readAskAnswer({ action: "accept", content: { remember: true } }, [destination])).toEqual({
      action: "accept",
      answer: { accepted: true, remember: true },
    });
  });
});
