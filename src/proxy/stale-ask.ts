/**
 * Whether an answered ask still covers its call: what the human saw may be out of date by the time
 * the answer comes. Asks are serialised, so a queued question waits while other calls run, and
 * output read meanwhile can taint the very destination it asks about ("not seen in this session's
 * output" is then false). Before an approval is applied, the call is decided again as it stands: a
 * deny wins (SPEC §2.5 "deny beats ask"), and a question the human was not shown — or was shown
 * with other words (other evidence) — is not approved by the answer. Pure.
 *
 * Source: SPEC §2.1 (`ask` never degrades to `allow`), §2.5 (deny beats ask), §3.4 (the ask names
 * every question); review of session 8 (a queued ask showed evidence from before a taint).
 * @module
 */

import type { Decision, Question } from "../engine/index.ts";

/** The reason code of an approval that no longer covers its call. */
export const STALE_ASK_CODE = "ask_superseded";

/**
 * A question as the human saw it: its kind, key, URL origin and words.
 * @param question - A question.
 * @returns A collision-free string.
 */
function shownAs(question: Question): string {
  const { kind, key, origin, message } = question;
  return JSON.stringify([kind, key.server, key.tool, key.param, key.identity, origin ?? null, message]);
}

/**
 * What an approved ask's call comes to now, when the approval no longer covers it.
 *
 * Source: SPEC §2.1, §2.5, §3.4.
 * @param shown - The ask decision whose questions the human answered.
 * @param now - The call decided again, before the answer is applied.
 * @returns Undefined when the answer still covers the call (now allow, or asking nothing the human
 *   was not shown as shown); else the deny to block it with — the current deny itself, or an
 *   `ask_superseded` deny naming the question that changed.
 * @example staleAsk(asked, { verdict: "deny", ... }) // that deny: the destination was tainted meanwhile
 */
export function staleAsk(
  shown: Extract<Decision, { readonly verdict: "ask" }>,
  now: Decision,
): Extract<Decision, { readonly verdict: "deny" }> | undefined {
  if (now.verdict === "allow") return undefined;
  if (now.verdict === "deny") return now;
  const seen = new Set(shown.questions.map(shownAs));
  const changed = now.questions.find((question) => !seen.has(shownAs(question)));
  return changed === undefined ? undefined : superseded(now, changed);
}

/**
 * The deny of a call still asking once its approval is applied (never expected: the approval
 * answered every question shown), so that no call ends on an ask without an outcome (SPEC §3.5).
 *
 * Source: SPEC §2.1 (`ask` never degrades to `allow`), §3.5.
 * @param now - The re-decision, an ask.
 * @returns An `ask_superseded` deny naming its first question.
 */
export function stillAsking(
  now: Extract<Decision, { readonly verdict: "ask" }>,
): Extract<Decision, { readonly verdict: "deny" }> {
  return superseded(now, now.questions[0]);
}

/**
 * The `ask_superseded` deny.
 * @param now - The decision as it stands (its contract is kept).
 * @param changed - The question the answer does not cover.
 * @returns The deny.
 */
function superseded(now: Decision, changed: Question): Extract<Decision, { readonly verdict: "deny" }> {
  return {
    verdict: "deny",
    contract: now.contract,
    reasons: [
      {
        code: STALE_ASK_CODE,
        message: `What Bouncer asked about changed while the question was waiting or on screen, so the answer does not cover it: ${changed.message} (call again to be asked as it is now)`,
        source: "default",
      },
    ],
  };
}
