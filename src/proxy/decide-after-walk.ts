/**
 * An approved call decided again before its approval is applied (SPEC §3.4: accept → the call is
 * decided again), on the tool list as the upstream has it now: the walk a `list_changed` started
 * while the question was open is waited for, as every call waits for it. Edge.
 *
 * Source: SPEC §2.2 ("The walk is repeated on every upstream notifications/tools/list_changed (calls
 * wait for it too)"), §3.4.
 * @module
 */

import type { Decision, JsonObject } from "../engine/index.ts";
import type { CallGate } from "./gated-call.ts";
import { proxyDeny } from "./proxy-denies.ts";

/**
 * An approved call decided again on the tool list as it is now: once the latest walk is done, with
 * the pins as read now (an accept from a terminal meanwhile); a walk that failed denies, as for a
 * first decision (never decided on a list older than the upstream's).
 *
 * Source: SPEC §2.2 ("calls wait for it too"), §3.4 (accept → decided again).
 * @param gated - The call gate.
 * @param call - The tool, its arguments and the request's seq.
 * @returns The decision (no attempt counted).
 * @throws When the pin file cannot be read or deciding fails (the caller blocks the call).
 */
export async function decideAfterWalk(
  gated: CallGate,
  call: { readonly tool: string; readonly args: JsonObject; readonly seq: number },
): Promise<Decision> {
  const { gate, server, tools } = gated;
  await tools.whenReady();
  const failed = tools.failure;
  if (failed !== undefined) {
    return proxyDeny({ code: "walk_failed", message: `${failed.message}, so the call cannot be checked` });
  }
  const pins = await tools.noticePinChanges();
  const now = await gate.decideCall(server, call.tool, call.args, {
    countAttempt: false,
    seq: call.seq,
    ...(pins === undefined ? {} : { pins }),
  });
  return now.decision;
}
