/**
 * The client's answers to server-to-client requests and to Bouncer's own requests (elicitations):
 * mapped back to the upstream's ids, or settling Bouncer's request. An answer Bouncer cannot read
 * as one meaning (it repeats a key, carries both `result` and `error`, or is over the size limit)
 * is never answered to the client — its id is the id of a request Bouncer sent, in Bouncer's id
 * space, and the client's own pending request may carry the same number: an ask it answers settles
 * at once as not approved, an upstream request it answers gets an error, anything else is dropped
 * and logged. Edge.
 *
 * Source: SPEC §3.1 ("Ids are remapped in both directions", "Decide on exactly what is forwarded"),
 * §3.3 (over-long lines), §3.4 (an answer that does not match the form is no approval).
 * @module
 */

import type { JsonObject } from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import { describePair, holdsFoldedPair } from "./case-variants.ts";
import { findIdSpan, spliceSpan } from "./json-scan.ts";
import {
  type Classified,
  errorResponseText,
  idKey,
  type RequestId,
  RPC_ERROR,
  type RpcErrorObject,
} from "./jsonrpc.ts";
import type { OversizedLine } from "./line-framer.ts";
import type { RelayCore } from "./relay-core.ts";
import { outcomeOf, oversizedLineId, oversizeError, parseIdText, preview } from "./relay-support.ts";
import { repeatsAKey } from "./strict-json.ts";

/** The error an answer that repeats a key becomes: what it says depends on the parser. */
const AMBIGUOUS_ANSWER = {
  code: RPC_ERROR.invalidRequest,
  message: "The client's answer repeats a key, so what it says depends on who reads it",
};

/**
 * Settles what an unusable client answer names with an error in its place: Bouncer's own request
 * is rejected (an ask is not approved, and no later answer counts: the id is spent), a relayed
 * upstream request gets the error. Nothing is written to the client.
 *
 * Source: SPEC §3.1 (an answer is matched to exactly one request), §3.3 (fail closed).
 * @param core - The relay.
 * @param id - The answer's id (Bouncer's id on the client leg).
 * @param error - The error it stands for.
 * @returns Whether the id named a request Bouncer sent to the client.
 */
export function settleUnusable(core: RelayCore, id: RequestId, error: RpcErrorObject): boolean {
  const settled = core.client.settle(id, { kind: "error", error });
  const relayed = settled.relayed;
  if (relayed === undefined) return settled.found;
  if (relayed.tokenKey !== undefined) core.upstreamTokens.delete(relayed.tokenKey);
  if (core.failure() === undefined) core.sendUpstream(errorResponseText(relayed.idText, error));
  return true;
}

/**
 * A client line over the size limit was discarded. A response (a `result` or `error` member seen
 * before the cut) settles what it answers with an error and is never answered to the client; a
 * request gets `-32600` with its id — or with `null` when that id is one of the client's requests
 * still pending (a reply with it would settle that one). A line that cannot be told does both, so
 * that neither an ask nor a request waits for an answer that will not come.
 *
 * Source: SPEC §3.3 ("the request it answered … gets an error"), §3.1, §3.4.
 * @param core - The relay.
 * @param line - The head and tail of the line.
 */
export function clientOversize(core: RelayCore, line: OversizedLine): void {
  core.noise({ side: "client", kind: "oversize", bytes: line.byteLength, text: line.head });
  const { idText, kind } = oversizedLineId(line);
  const limit = core.options.maxLineBytes === undefined ? {} : { limitBytes: core.options.maxLineBytes };
  const error = oversizeError(line.byteLength, { side: "client", ...limit });
  const id = idText === undefined ? undefined : parseIdText(idText);
  if (kind !== "request") {
    const answerError = { ...error, message: error.message.replace("Message", "The client's answer is") };
    const found = id !== undefined && settleUnusable(core, id, answerError);
    if (kind === "response") {
      if (!found)
        core.log(
          `Dropped an over-long client answer that answers nothing pending (id ${idText ?? "unknown"})`,
        );
      return;
    }
  }
  if (idText === undefined) return;
  const inUse = id !== undefined && core.pending.has(idKey(id));
  core.sendClient(errorResponseText(inUse ? "null" : idText, error));
}

/**
 * A client message meant as an answer that is invalid (`result` and `error` both, or neither): what
 * it answers settles with an error — an ask is not approved whichever member a reader would take —
 * and the client is answered nothing.
 *
 * Source: JSON-RPC 2.0 §5 (exactly one of `result` and `error`), SPEC §3.1, §3.4.
 * @param core - The relay.
 * @param message - The classified message (invalid, without `method`).
 * @param line - Its text.
 */
export function clientInvalidAnswer(
  core: RelayCore,
  message: Classified & { readonly kind: "invalid" },
  line: string,
): void {
  core.noise({ side: "client", kind: "invalid", bytes: line.length, text: line });
  const error = {
    code: RPC_ERROR.invalidRequest,
    message: `The client's answer is invalid: ${message.reason}`,
  };
  if (message.id === null || !settleUnusable(core, message.id, error))
    core.log(`Dropped an invalid client answer that answers nothing pending: ${preview(line)}`);
}

/**
 * Routes a client answer to a server-to-client request (or to Bouncer's own request). An answer that
 * repeats a key at any depth is read as an error by both: an ask it answers is not approved
 * (`{"action":"decline","action":"accept"}`), and the upstream gets an error in place of bytes its
 * parser might read otherwise.
 *
 * Source: SPEC §3.1 ("Decide on exactly what is forwarded"), §3.4 (an answer that does not match the
 * form is no approval).
 * @param core - The relay.
 * @param message - The classified response.
 * @param raw - Its text and parsed value.
 */
export function clientResponse(
  core: RelayCore,
  message: Classified & { readonly kind: "result" | "error" },
  raw: { readonly line: string; readonly value: JsonObject },
): void {
  const { line } = raw;
  if (message.id === null) {
    core.log(`The client sent an error without an id: ${preview(line)}`);
    return;
  }
  if (repeatsAKey(line, raw.value)) {
    core.log(`The client sent an answer that repeats a key: ${preview(line)}`);
    settleUnusable(core, message.id, AMBIGUOUS_ANSWER);
    return;
  }
  // A server decoding names case-insensitively reads `Roots` beside `roots` as one of them.
  const pair = holdsFoldedPair(raw.value);
  if (pair !== undefined) {
    const why = describePair(pair);
    core.log(`The client sent an answer in which ${why}: ${preview(line)}`);
    const text = `The client's answer is ambiguous: ${why}, so what it says depends on who reads it`;
    settleUnusable(core, message.id, { code: RPC_ERROR.invalidRequest, message: text });
    return;
  }
  const outcome = outcomeOf(message);
  const relayed = core.client.settle(message.id, outcome).relayed;
  if (relayed === undefined) return;
  if (relayed.tokenKey !== undefined) core.upstreamTokens.delete(relayed.tokenKey);
  if (core.failure() !== undefined) return;
  try {
    core.hooks.onClientAnswer({ method: relayed.method }, outcome);
  } catch (error) {
    // What the upstream is told (roots it resolves paths against) must be what the gate knows.
    const detail = errorText(error);
    core.log(`Answered the upstream with an error: the client's answer could not be recorded (${detail})`);
    const failed = { code: RPC_ERROR.internalError, message: "Bouncer could not record this answer" };
    core.sendUpstream(errorResponseText(relayed.idText, failed));
    return;
  }
  const span = findIdSpan(line);
  if (span !== undefined) core.sendUpstream(spliceSpan(line, span, relayed.idText));
}
