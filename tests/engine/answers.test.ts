import { describe, expect, test } from "bun:test";
import {
  type AskAnswer,
  answerKey,
  applyAnswer,
  approvalKeyString,
  createEngineState,
  type Question,
  rememberedAnswer,
} from "../../src/engine/index.ts";

const urlQuestion: Question = {
  kind: "destination",
  message: "Send to https://hooks.partner.example/in?x=1?",
  key: { server: "web", tool: "post", param: "url", identity: "https://hooks.partner.example/in?x=1" },
  origin: "https://hooks.partner.example",
};
const mailQuestion: Question = {
  kind: "destination",
  message: "Send to new.partner@other.example?",
  key: { server: "mail", tool: "send_email", param: "to", identity: "new.partner@other.example" },
};
const actionQuestion: Question = {
  kind: "action",
  message: "Run delete_repo?",
  key: { server: "gh", tool: "delete_repo", param: "", identity: 'action:{"repo":"x"}' },
};

function stored(answer: AskAnswer, questions: readonly Question[]): [string, string][] {
  const state = createEngineState();
  applyAnswer(state, questions, answer);
  return [...state.approvals.entries()];
}

describe("applyAnswer()", () => {
  test.each<[string, AskAnswer, Question, [string, string][]]>([
    [
      "remembers an approval under the exact key",
      { accepted: true, remember: true },
      mailQuestion,
      [[approvalKeyString(mailQuestion.key), "approved"]],
    ],
    [
      "remembers a URL approval under the exact canonical URL by default",
      { accepted: true, remember: true },
      urlQuestion,
      [[approvalKeyString(urlQuestion.key), "approved"]],
    ],
    [
      "remembers a whole-site URL approval under the origin",
      { accepted: true, remember: true, scope: "site" },
      urlQuestion,
      [
        [
          approvalKeyString({
            ...urlQuestion.key,
            identity: "https://hooks.partner.example",
            subject: "site",
          }),
          "approved",
        ],
      ],
    ],
    [
      "remembers a decline the same way",
      { accepted: false, remember: true },
      mailQuestion,
      [[approvalKeyString(mailQuestion.key), "declined"]],
    ],
    ["records nothing with remember: false", { accepted: true, remember: false }, mailQuestion, []],
    ["never remembers an approval of action: ask", { accepted: true, remember: true }, actionQuestion, []],
    [
      "remembers a decline of action: ask",
      { accepted: false, remember: true },
      actionQuestion,
      [[approvalKeyString(actionQuestion.key), "declined"]],
    ],
  ])("applyAnswer() %s", (_rule, answer, question, expected) => {
    expect(stored(answer, [question])).toEqual(expected);
  });

  test("applyAnswer() records every question of one ask", () => {
    expect(stored({ accepted: true, remember: true }, [mailQuestion, urlQuestion])).toHaveLength(2);
  });

  test("answerKey() ignores a site scope for a question without an origin", () => {
    expect(answerKey(mailQuestion, "site")).toEqual(mailQuestion.key);
  });
});

describe("rememberedAnswer()", () => {
  test("rememberedAnswer() finds an exact approval and a whole-site approval", () => {
    const state = createEngineState();
    expect(rememberedAnswer(state, urlQuestion)).toBeUndefined();
    applyAnswer(state, [urlQuestion], { accepted: true, remember: true, scope: "site" });
    const sameSite: Question = {
      ...urlQuestion,
      key: { ...urlQuestion.key, identity: "https://hooks.partner.example/other" },
    };
    expect(rememberedAnswer(state, sameSite)).toBe("approved");
  });

  test("rememberedAnswer() lets a remembered decline win over an approval", () => {
    const state = createEngineState();
    applyAnswer(state, [urlQuestion], { accepted: true, remember: true, scope: "site" });
    applyAnswer(state, [urlQuestion], { accepted: false, remember: true });
    expect(rememberedAnswer(state, urlQuestion)).toBe("declined");
  });

  test("rememberedAnswer() honours one-time approvals of this request", () => {
    const state = createEngineState();
    expect(rememberedAnswer(state, mailQuestion, [answerKey(mailQuestion)])).toBe("approved");
    expect(rememberedAnswer(state, actionQuestion, [answerKey(actionQuestion)])).toBe("approved");
  });

  test("rememberedAnswer() ignores a stored approval of action: ask (it asks every call)", () => {
    const state = createEngineState();
    state.approvals.set(approvalKeyString(actionQuestion.key), "approved");
    expect(rememberedAnswer(state, actionQuestion)).toBeUndefined();
  });

  test("rememberedAnswer() does not mix servers, tools or parameters", () => {
    const state = createEngineState();
    applyAnswer(state, [mailQuestion], { accepted: true, remember: true });
    for (const key of [
      { ...mailQuestion.key, server: "other" },
      { ...mailQuestion.key, tool: "send_draft" },
      { ...mailQuestion.key, param: "cc" },
    ]) {
      expect(rememberedAnswer(state, { ...mailQuestion, key })).toBeUndefined();
    }
  });
});
