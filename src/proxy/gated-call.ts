/**
 * One client `tools/call` through the gate: the decision is the gate's (engine and policy); this file
 * only sequences it — re-walk once for an unknown name or after a failed walk (still failing: deny),
 * notice pins accepted elsewhere, decide on exactly the arguments that would be forwarded (a message
 * with repeated keys or unsafe integers is denied), audit the decision (a failed write denies), then forward, block, or ask the human and
 * decide again with the approval in place. `--mode audit` forwards every call and logs the verdict.
 * A call blocked for a reason the session file would not otherwise show (a stale approval, an
 * unwritable audit log, an abort, a failure to decide) says so in its record, for `--record`. Edge.
 *
 * Source: SPEC §2.1 (verdicts), §2.2 ("Unknown name"), §2.3 (counted once per request), §3.1 ("Decide
 * on exactly what is forwarded"), §3.4 (asks), §3.5 (fail closed), §3.8 (modes).
 * @module
 */

import type { AmbiguousJson, AskOutcome as AuditAskOutcome, LiveBlocked } from "../audit/index.ts";
import type { AskAnswer, Decision, JsonObject } from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import { askedPhrase } from "./ask-reasons.ts";
import type { Asker, AskOutcome } from "./asker.ts";
import { decideAfterWalk } from "./decide-after-walk.ts";
import { decideFirst, type FirstDecision } from "./decide-first.ts";
import type { Gate } from "./gate.ts";
import { ambiguousJsonDeny, blockedResult, notForwardedDeny } from "./proxy-denies.ts";
import type { ToolCallDecision, ToolCallRequest } from "./relay-hooks.ts";
import type { SessionAudit } from "./session-audit.ts";
import { staleAsk, stillAsking } from "./stale-ask.ts";
import type { ToolListState } from "./tool-list-state.ts";

/** What a gated call is decided with. */
export interface CallGate {
  readonly server: string;
  readonly gate: Gate;
  readonly tools: ToolListState;
  readonly audit: SessionAudit;
  readonly asker: Asker;
  readonly mode: "enforce" | "audit";
  readonly log: (message: string) => void;
}

/** A call's bookkeeping, kept until its result is recorded. */
export interface CallRecord {
  readonly seq: number;
  /** The arguments decided (and forwarded, when forwarded). */
  readonly args: JsonObject;
  /** The ask's outcome, when one was put. */
  readonly ask?: AuditAskOutcome;
  /**
   * The human's answer that was applied (remembered or not, URL scope), when the ask ended in one: an
   * approval or an explicit decline. Other outcomes applied nothing (SPEC §2.5, §3.4).
   */
  readonly answer?: AskAnswer;
  /** Why the call's JSON was ambiguous, when it was (it was denied for it, whatever the policy). */
  readonly ambiguous?: AmbiguousJson;
  /** Why it was blocked for a reason replay cannot see in the session file, when it was. */
  readonly liveBlocked?: LiveBlocked;
}

/** The decision on a call and its bookkeeping. */
export interface GatedCall {
  readonly decision: ToolCallDecision;
  /** Present for a call that was decided (forwarded or blocked). */
  readonly record?: CallRecord;
}

/**
 * Audits a decision; a failed write blocks the call (fail closed) and says why on stderr.
 * @param gated - The call gate.
 * @param entry - The decision, seq, tool and arguments.
 * @returns Undefined when written, else the blocked answer.
 */
function auditDecision(
  gated: CallGate,
  entry: {
    readonly decision: Decision;
    readonly seq: number;
    readonly tool: string;
    readonly args: JsonObject;
  },
): ToolCallDecision | undefined {
  try {
    gated.audit.decision(entry.decision, { seq: entry.seq, tool: entry.tool, args: entry.args });
    return undefined;
  } catch (error) {
    const detail = errorText(error);
    gated.log(`${detail}: the call is blocked (fail closed)`);
    return { kind: "result", result: blockedResult(`${detail}: Bouncer blocks calls it cannot audit`) };
  }
}

/**
 * Decides one client `tools/call`.
 *
 * Source: SPEC §2, §3.1, §3.4, §3.5, §3.8.
 * @param gated - The gate, tool list, audit, asker and mode.
 * @param call - The client's request (parsed, with its strict-JSON report and cancel signal).
 * @returns What to do with it, and what to record when its result comes back.
 * @throws Never for an expected outcome (an unexpected error while deciding is a deny).
 */
export async function gateToolCall(gated: CallGate, call: ToolCallRequest): Promise<GatedCall> {
  const first = await decideFirst(gated, call);
  return concludeCall(gated, call, first);
}

/**
 * What follows the first decision: a call whose JSON is ambiguous is denied; the decision is audited
 * (a failed write blocks); then forward, block, or ask. A call blocked for a reason replay cannot see
 * (aborted, unaudited, not decidable) is recorded with it (`liveBlocked`).
 * @param gated - The call gate.
 * @param call - The client's request.
 * @param first - The first decision and the request's seq.
 * @returns What to do with the call (a promise only when a human is asked).
 */
function concludeCall(
  gated: CallGate,
  call: ToolCallRequest,
  first: FirstDecision,
): GatedCall | Promise<GatedCall> {
  const tool = call.name;
  const args = call.arguments;
  const { seq } = first;
  let { decision } = first;
  const ambiguous: AmbiguousJson | undefined = call.strict.duplicateKeys
    ? "duplicate_keys"
    : call.strict.unsafeIntegers
      ? "unsafe_integers"
      : call.strict.tooDeep
        ? "too_deep"
        : undefined;
  if (ambiguous !== undefined) decision = ambiguousJsonDeny(ambiguous);
  // Aborted while it was being decided (the client cancelled it, the session ended, the upstream
  // went): it will not be forwarded, so the record must not say it was allowed.
  const dropped = call.abortedBy;
  if (dropped !== undefined) decision = notForwardedDeny(dropped);
  const audited = auditDecision(gated, { decision, seq, tool, args });
  // Audit mode forwards a call that could not be decided: only enforce mode blocks it.
  const liveBlocked: LiveBlocked | undefined =
    dropped !== undefined
      ? "not_forwarded"
      : audited !== undefined
        ? "audit_failed"
        : first.gateError === true && gated.mode === "enforce"
          ? "gate_error"
          : undefined;
  const record: CallRecord = {
    seq,
    args,
    ...(ambiguous === undefined ? {} : { ambiguous }),
    ...(liveBlocked === undefined ? {} : { liveBlocked }),
  };
  if (audited !== undefined) return { decision: audited, record };
  // Audit mode forwards every call as the client sent it (SPEC §3.8): not even a re-serialisation
  // (`1e400` would reach the upstream as `null`, a repeated key as its last value).
  if (gated.mode === "audit")
    return { decision: { kind: "forward", arguments: args, verbatim: true }, record };
  if (decision.verdict === "allow") return { decision: { kind: "forward", arguments: args }, record };
  if (decision.verdict === "deny") {
    return { decision: { kind: "result", result: blockedResult(decision.reasons[0].message) }, record };
  }
  return askAndDecide(gated, { call, decision, seq });
}

/**
 * Puts an ask to the human and decides again on approval (SPEC §3.4): an approved answer is applied
 * (remembered approvals, re-pinned tools with `list_changed`) and the call is decided once more with
 * `countAttempt: false`; it is forwarded only if that decision allows. An explicit decline is applied
 * (remembered; when that fails, the call is blocked all the same and its reason says so). Anything
 * else blocks with the asker's reason.
 * @param gated - The call gate.
 * @param asked - The call, its ask decision and seq.
 * @returns What to do with the call.
 */
async function askAndDecide(
  gated: CallGate,
  asked: {
    readonly call: ToolCallRequest;
    readonly decision: Extract<Decision, { readonly verdict: "ask" }>;
    readonly seq: number;
  },
): Promise<GatedCall> {
  const { gate, server } = gated;
  const { call, decision, seq } = asked;
  const tool = call.name;
  const args = call.arguments;
  const outcome: AskOutcome = await gated.asker.ask({
    server,
    tool,
    decision,
    signal: call.signal,
    arguments: args,
    ...(call.progressToken === undefined ? {} : { progressToken: call.progressToken }),
  });
  const auditOutcome: AuditAskOutcome = outcome.kind === "limit" ? "no_channel" : outcome.kind;
  const answer = outcome.kind === "approved" || outcome.kind === "declined" ? outcome.answer : undefined;
  const record: CallRecord = { seq, args, ask: auditOutcome, ...(answer === undefined ? {} : { answer }) };
  /** Blocked for a reason replay cannot see: the answer, if any, may not have been applied. */
  const liveBlocked = (why: LiveBlocked): CallRecord => ({ ...record, liveBlocked: why });
  const blocked = (reason: string, why?: LiveBlocked): GatedCall => ({
    decision: { kind: "result", result: blockedResult(reason) },
    record: why === undefined ? record : liveBlocked(why),
  });
  try {
    gated.audit.outcome(
      { seq, tool },
      auditOutcome,
      outcome.kind === "approved" ? undefined : outcome.reason,
    );
  } catch (error) {
    const detail = errorText(error);
    gated.log(`${detail}: the call is blocked (fail closed)`);
    // Nothing of the answer is applied: recorded without it.
    return {
      decision: { kind: "result", result: blockedResult(`${detail}: Bouncer blocks calls it cannot audit`) },
      record: { seq, args, ask: auditOutcome, liveBlocked: "audit_failed" },
    };
  }
  if (outcome.kind !== "approved") {
    const reason = `${outcome.reason} (${askedPhrase(decision.reasons)})`;
    if (outcome.kind !== "declined" || outcome.answer === undefined) return blocked(reason);
    try {
      await gate.answer(decision.questions, outcome.answer);
    } catch (error) {
      // Blocked as declined all the same. Recorded with the decline, which replay applies whole:
      // stricter than live, which kept it in part or not at all, never laxer.
      const message = errorText(error);
      gated.log(`Cannot remember the decline of a call of ${JSON.stringify(tool)}: ${message}`);
      return blocked(`${reason}; the decline cannot be remembered: ${message}`);
    }
    return blocked(reason);
  }
  try {
    // What the human saw may be out of date (a queued ask, output read meanwhile, a tool list the
    // upstream changed): decided as the call stands now — after the walk a list_changed started while
    // the question was open, as every call waits for it (SPEC §2.2) — a deny wins and a question not
    // shown as shown is not approved.
    const now = await decideAfterWalk(gated, { tool, args, seq });
    const stale = staleAsk(decision, now);
    if (stale !== undefined) {
      // The answer is not applied: recorded without it (nothing remembered) and as blocked live,
      // since replay cannot see what arrived while the question was open.
      const unapplied: CallRecord = { seq, args, ask: auditOutcome, liveBlocked: "stale_ask" };
      const audited = auditDecision(gated, { decision: stale, seq, tool, args });
      const result = audited ?? { kind: "result", result: blockedResult(stale.reasons[0].message) };
      return { decision: result, record: unapplied };
    }
    const answered = await gate.answer(decision.questions, outcome.answer);
    for (const event of answered.events) gated.audit.pin(event);
    if (answered.events.length > 0) await gated.tools.refresh();
    const again = await gate.decideCall(server, tool, args, {
      countAttempt: false,
      oneTimeApprovals: answered.oneTimeApprovals,
      seq,
    });
    // Aborted while the approval was being applied (the client cancelled the call, the session
    // ended, the upstream went): it will not be forwarded, so the record must not say allow.
    const dropped = call.abortedBy;
    // Still asking after the approval is applied (never expected): audited as a deny, so that the
    // log never ends a call on an ask without its outcome (SPEC §3.5).
    const final =
      dropped !== undefined
        ? notForwardedDeny(dropped)
        : again.decision.verdict === "ask"
          ? stillAsking(again.decision)
          : again.decision;
    const audited = auditDecision(gated, { decision: final, seq, tool, args });
    if (audited !== undefined) return { decision: audited, record: liveBlocked("audit_failed") };
    if (dropped !== undefined) {
      return blocked(notForwardedDeny(dropped).reasons[0]?.message ?? "", "not_forwarded");
    }
    if (final.verdict === "allow") return { decision: { kind: "forward", arguments: args }, record };
    return blocked(final.reasons[0].message);
  } catch (error) {
    const message = errorText(error);
    gated.log(`Cannot decide an approved call of ${JSON.stringify(tool)}: ${message}`);
    return blocked(`Bouncer could not decide the approved call: ${message}`, "gate_error");
  }
}
