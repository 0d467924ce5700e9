/**
 * Remembered answers to asks (SPEC §2.5 "Approvals", §3.4): recording the human's answer in the
 * session state and looking it up on later decisions. Pure.
 * @module
 */

import { confirmsOneCall } from "./constraints.ts";
import { approvalKeyString, type EngineState } from "./state.ts";
import type { ApprovalKey, AskAnswer, Question } from "./types.ts";

/** What the session remembers about a question, if anything. */
export type RememberedAnswer = "approved" | "declined" | undefined;

/**
 * Whether an approval of this question may be remembered. `action: ask` confirms every call
 * (SPEC §2.4), so its approvals are for the one request only; its declines are remembered.
 */
function remembersApproval(question: Pick<Question, "kind" | "key">): boolean {
  return !confirmsOneCall(question);
}

/** Every key a question may be answered under: its own, and its URL origin ("whole site"). */
function keyForms(question: Pick<Question, "key" | "origin">): ApprovalKey[] {
  return question.origin === undefined
    ? [question.key]
    : [question.key, siteKey(question.key, question.origin)];
}

/**
 * The key of a URL destination's whole site: its origin, marked as a site — a URL with no path
 * (`sftp://files.example`) is its own origin as text, and its exact approval covers that URL only.
 */
function siteKey(key: ApprovalKey, origin: string): ApprovalKey {
  return { ...key, identity: origin, subject: "site" };
}

/**
 * The key an answer is remembered under: the question's key, or for a URL destination answered for
 * the whole site, the same key with the origin as identity.
 *
 * Source: SPEC §2.5 ("for a URL sink, the exact canonical URL with its query unless the human chose
 * 'whole site' (origin)").
 * @param question - The question answered.
 * @param scope - The URL scope the human chose, if any.
 * @returns The approval key to store (or to pass as a one-time approval).
 * @throws Never.
 */
export function answerKey(question: Question, scope?: AskAnswer["scope"]): ApprovalKey {
  return scope === "site" && question.origin !== undefined
    ? siteKey(question.key, question.origin)
    : question.key;
}

/**
 * Records the human's answer to an ask for the rest of the session: each question's key (or its
 * origin for a whole-site answer) becomes `approved` or `declined`. With `remember: false` nothing is
 * recorded. Approvals of `action: ask` questions are never recorded (that rule asks on every call);
 * their declines are. For the re-decision of the same request, the edge passes every accepted
 * question's {@link answerKey} in `CallInput.oneTimeApprovals`, whatever `remember` was.
 *
 * Source: SPEC §2.5 "Approvals", §3.4.
 * @param state - The session state; its `approvals` map is updated.
 * @param questions - The questions of the ask that was answered.
 * @param answer - Accepted or not, remembered or not, URL scope.
 * @returns Nothing; the state is changed in place.
 * @throws Never.
 * @example applyAnswer(state, decision.questions, { accepted: true, remember: true })
 */
export function applyAnswer(state: EngineState, questions: readonly Question[], answer: AskAnswer): void {
  if (!answer.remember) return;
  for (const question of questions) {
    if (answer.accepted && !remembersApproval(question)) continue;
    const key = approvalKeyString(answerKey(question, answer.scope));
    state.approvals.set(key, answer.accepted ? "approved" : "declined");
    if (!answer.accepted && question.declineKey !== undefined)
      state.approvals.set(approvalKeyString(question.declineKey), "declined");
  }
}

/**
 * Looks up what the session remembers about a question, and the request's one-time approvals. A
 * remembered decline of any form (exact, whole site, or the destination's identity: its
 * `declineKey`) wins over an approval.
 *
 * Source: SPEC §2.5 ("a repeat of a declined question is denied without asking").
 * @param state - The session state.
 * @param question - The question a contract wants to ask.
 * @param oneTime - Keys the human approved for this request only.
 * @returns `declined`, `approved`, or `undefined` when the question must be asked.
 * @throws Never.
 */
export function rememberedAnswer(
  state: EngineState,
  question: Pick<Question, "kind" | "key" | "origin" | "declineKey">,
  oneTime: readonly ApprovalKey[] = [],
): RememberedAnswer {
  if (state.approvals.size === 0 && oneTime.length === 0) return undefined;
  const forms = keyForms(question).map(approvalKeyString);
  const stored = forms.map((form) => state.approvals.get(form));
  if (stored.includes("declined")) return "declined";
  const { declineKey } = question;
  if (declineKey !== undefined && state.approvals.get(approvalKeyString(declineKey)) === "declined")
    return "declined";
  if (remembersApproval(question) && stored.includes("approved")) return "approved";
  const once = new Set(oneTime.map(approvalKeyString));
  return forms.some((form) => once.has(form)) ? "approved" : undefined;
}
