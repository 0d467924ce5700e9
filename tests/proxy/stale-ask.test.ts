import { describe, expect, test } from "bun:test";
import type { Decision, Question } from "../../src/engine/index.ts";
import { STALE_ASK_CODE, staleAsk, stillAsking } from "../../src/proxy/stale-ask.ts";

const question = (identity: string, message: string): Question => ({
  kind: "destination",
  message,
  key: { server: "mail", tool: "send_email", param: "to", identity },
});
const ask = (...questions: [Question, ...Question[]]): Extract<Decision, { verdict: "ask" }> => ({
  verdict: "ask",
  contract: "sink_gate",
  reasons: [{ code: "unproven", message: questions[0].message, source: "default" }],
  questions,
});

const a = question("a@x.example", '"a@x.example" was not seen in this session\'s output');
const b = question("b@y.example", '"b@y.example" was not seen in this session\'s output');

describe("staleAsk()", () => {
  test("staleAsk() lets the answer stand when the call now allows, or asks only what was shown as shown", () => {
    expect(staleAsk(ask(a, b), { verdict: "allow", contract: "default", reasons: [] })).toBeUndefined();
    expect(staleAsk(ask(a, b), ask(b))).toBeUndefined();
    expect(staleAsk(ask(a), ask(a))).toBeUndefined();
  });

  test("staleAsk() returns the current deny itself (deny beats ask)", () => {
    const deny: Decision = {
      verdict: "deny",
      contract: "sink_gate",
      reasons: [{ code: "tainted", message: "seen in free text", source: "default" }],
    };
    expect(staleAsk(ask(a), deny)).toBe(deny);
  });

  test("staleAsk() refuses an answer to a question the human was not shown, or was shown in other words", () => {
    const seen = question("a@x.example", '"a@x.example" was seen in field "from" of read_inbox\'s output');
    for (const now of [ask(a, b), ask(seen)]) {
      const stale = staleAsk(ask(a), now);
      expect(stale?.verdict).toBe("deny");
      expect(stale?.reasons[0].code).toBe(STALE_ASK_CODE);
    }
    expect(staleAsk(ask(a), ask(seen))?.reasons[0].message).toContain('field "from"');
  });

  test("stillAsking() turns an ask that survived its approval into a deny naming its question", () => {
    const deny = stillAsking(ask(b));
    expect(deny.verdict).toBe("deny");
    expect(deny.reasons[0].message).toContain("b@y.example");
  });
});
