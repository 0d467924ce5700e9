/**
 * The first decision on a client `tools/call` (SPEC §2.2 "Unknown name", "calls wait for it"): re-walk
 * once for an unknown name or after a failed walk, notice pins accepted elsewhere, decide. A walk
 * that still fails denies (`walk_failed`), and so does any error while deciding (`gate_error`), each
 * under the call's own seq. Edge.
 *
 * Source: SPEC §2.2, §2.3 (counted once per request), §3.5 (`seq`, fail closed).
 * @module
 */

import type { Decision } from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import type { CallGate } from "./gated-call.ts";
import { proxyDeny } from "./proxy-denies.ts";
import type { ToolCallRequest } from "./relay-hooks.ts";

/** The first decision on a call, its seq, and whether deciding failed (a `gate_error` deny). */
export interface FirstDecision {
  readonly decision: Decision;
  readonly seq: number;
  readonly gateError?: true;
}

/**
 * The first decision on a call: re-walk once for an unknown name or after a failed walk, notice pins
 * accepted elsewhere (one read of the pin file, handed to the gate), decide. A failed walk or any
 * error while deciding is a deny.
 * @param gated - The call gate.
 * @param call - The client's request.
 * @returns The decision and the request's seq.
 */
export async function decideFirst(gated: CallGate, call: ToolCallRequest): Promise<FirstDecision> {
  const { gate, server, tools } = gated;
  const tool = call.name;
  let seq: number | undefined;
  try {
    if (!gate.knowsTool(server, tool) || tools.failure !== undefined) await tools.walk();
    const pins = await tools.noticePinChanges();
    seq = gate.nextSeq();
    const first = await gate.decideCall(server, tool, call.arguments, {
      countAttempt: true,
      seq,
      ...(pins === undefined ? {} : { pins }),
    });
    const failed = tools.failure;
    if (failed === undefined) return first;
    return walkFailedDeny(failed, seq);
  } catch (error) {
    const message = errorText(error);
    gated.log(`Cannot decide a call of ${JSON.stringify(tool)}: ${message}`);
    // Denied before it was decided (the pins could not be read): its own seq, not the last call's.
    seq ??= gate.nextSeq();
    // After a walk that failed (the session file records it), denied for that, as replay denies it.
    const failed = tools.failure;
    if (failed !== undefined) return walkFailedDeny(failed, seq);
    const reason = { code: "gate_error", message: `Bouncer could not decide the call: ${message}` };
    return { decision: proxyDeny(reason), seq, gateError: true };
  }
}

/**
 * The deny of a call after a walk that failed: the gate's list is older than the upstream's, so it is
 * never decided on (SPEC §2.2 "calls wait for it").
 * @param failed - Why the walk failed.
 * @param seq - The call's seq.
 * @returns The `walk_failed` deny.
 */
function walkFailedDeny(failed: { readonly message: string }, seq: number): FirstDecision {
  const message = `${failed.message}, so the call cannot be checked`;
  return { decision: proxyDeny({ code: "walk_failed", message }), seq };
}
