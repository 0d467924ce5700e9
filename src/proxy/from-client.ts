/**
 * Messages from the client: parsed (noise, batches and invalid messages answered), requests
 * registered and routed (gated methods to `intercept.ts`, everything else forwarded with a Bouncer
 * id), notifications relayed (cancellations translated at once, id-less calls dropped); answers to
 * server-to-client requests and over-long lines go to `client-answers.ts`. Edge.
 *
 * Source: SPEC §3.1 (ids, batches, id-less calls, `--unknown-methods`, cancellation), F20.
 * @module
 */

import type { JsonObject } from "../engine/index.ts";
import { describePair, holdsFoldedPair, rpcMemberVariant } from "./case-variants.ts";
import { clientInvalidAnswer, clientResponse, settleUnusable } from "./client-answers.ts";
import { cancelledRequestKey, exactMessage, exactNumbers } from "./exact-numbers.ts";
import { interceptRequest } from "./intercept.ts";
import { findUniqueIdSpan, scanTopLevel, spliceSpan } from "./json-scan.ts";
import {
  type Classified,
  classify,
  errorResponseText,
  idKey,
  isJsonObject,
  member,
  RPC_ERROR,
  requestText,
} from "./jsonrpc.ts";
import { isKnownMethod, nearGatedMethod, nearToolsCall } from "./known-methods.ts";
import type { RelayCore } from "./relay-core.ts";
import { LazyAbort, preview, progressTokenKey } from "./relay-support.ts";
import type { PendingClient } from "./relay-types.ts";
import { repeatsAKey } from "./strict-json.ts";

/**
 * Handles one line from the client.
 *
 * Source: SPEC §3.1 (batches, id-less calls, unknown methods).
 * @param core - The relay.
 * @param line - A complete line.
 */
export function receiveFromClient(core: RelayCore, line: string): void {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    core.noise({ side: "client", kind: "not_json", bytes: line.length, text: line });
    core.sendClient(
      errorResponseText("null", {
        code: RPC_ERROR.parseError,
        message: "Parse error: the line is not JSON",
      }),
    );
    return;
  }
  if (Array.isArray(value) || !isJsonObject(value)) {
    const batch = Array.isArray(value);
    core.noise({
      side: "client",
      kind: batch ? "batch" : "invalid",
      bytes: line.length,
      text: line,
    });
    const message = batch ? "Invalid request: batches are not supported" : "Invalid request: not an object";
    core.sendClient(errorResponseText("null", { code: RPC_ERROR.invalidRequest, message }));
    return;
  }
  const message = classify(value);
  const variant = rpcMemberVariant(value);
  if (variant !== undefined) {
    clientCaseVariant(core, message, { line, variant });
    return;
  }
  if (message.kind === "request") clientRequest(core, message, { line, value });
  else if (message.kind === "notification") clientNotification(core, message, { line, value });
  else if (message.kind === "result" || message.kind === "error")
    clientResponse(core, message, { line, value });
  else if (message.response) clientInvalidAnswer(core, message, line);
  else {
    core.noise({ side: "client", kind: "invalid", bytes: line.length, text: line });
    const idText = message.id === null ? "null" : JSON.stringify(message.id);
    core.sendClient(
      errorResponseText(idText, {
        code: RPC_ERROR.invalidRequest,
        message: `Invalid request: ${message.reason}`,
      }),
    );
  }
}

/**
 * A client message with a top-level key that spells one of JSON-RPC's member names in other letter
 * case (`Method`, `ID`, `paramſ`): a server decoding names case-insensitively (Go's `encoding/json`)
 * may read another method or id than Bouncer did — a `tools/call` where Bouncer saw a `ping`, a
 * notification or an answer. Never relayed: a request gets `-32600` (with id `null` when its id is a
 * pending request's), an answer settles what it answers as unusable, a notification is dropped.
 *
 * Source: SPEC §3.1 ("Decide on exactly what is forwarded"); JSON-RPC 2.0 §4 (exact member names).
 * @param core - The relay.
 * @param message - The message as classified by its exact keys.
 * @param raw - Its text and the key found.
 */
function clientCaseVariant(
  core: RelayCore,
  message: Classified,
  raw: { readonly line: string; readonly variant: { readonly key: string; readonly member: string } },
): void {
  const { line, variant } = raw;
  core.noise({ side: "client", kind: "invalid", bytes: line.length, text: line });
  const what = `the top-level key ${JSON.stringify(variant.key)} is ${JSON.stringify(variant.member)} in other letter case (some servers read it as that member)`;
  const answer = message.kind === "result" || message.kind === "error";
  if (answer || (message.kind === "invalid" && message.response)) {
    const error = { code: RPC_ERROR.invalidRequest, message: `The client's answer is invalid: ${what}` };
    if (message.id === null || !settleUnusable(core, message.id, error))
      core.log(`Dropped a client answer that answers nothing pending: ${what}`);
    return;
  }
  if (message.kind === "notification") {
    core.log(`Dropped a client notification: ${what}`);
    return;
  }
  const id = message.id;
  const idText = id === null || core.pending.has(idKey(id)) ? "null" : JSON.stringify(id);
  core.sendClient(
    errorResponseText(idText, { code: RPC_ERROR.invalidRequest, message: `Invalid request: ${what}` }),
  );
}

/**
 * Registers a request from the client and routes it. A text that repeats no key at all (the usual
 * case, found without walking it) has its `id` found at its start or end; otherwise its top level is
 * scanned, and a repeated top-level key refuses the request. A request whose id is one of a pending
 * request's is refused with id `null`, so that the refusal cannot settle the pending one.
 *
 * Source: SPEC §3.1; JSON-RPC 2.0 §5 (`id` null when it cannot be determined).
 * @param core - The relay.
 * @param message - The classified request.
 * @param raw - Its text and parsed value.
 */
function clientRequest(
  core: RelayCore,
  message: Classified & { readonly kind: "request" },
  raw: { readonly line: string; readonly value: JsonObject },
): void {
  const { line } = raw;
  const repeatsKey = repeatsAKey(line, raw.value);
  const top = repeatsKey ? scanTopLevel(line) : undefined;
  const span = repeatsKey ? top?.members.get("id") : findUniqueIdSpan(line);
  const idText = span === undefined ? undefined : line.slice(span.start, span.end);
  const key = idKey(message.id, idText?.trim());
  if (
    span === undefined ||
    idText === undefined ||
    top?.duplicateKey === true ||
    (repeatsKey && top === undefined)
  ) {
    const reason = "Invalid request: a top-level key is repeated";
    const answerId = core.pending.has(key) ? "null" : JSON.stringify(message.id);
    core.sendClient(errorResponseText(answerId, { code: RPC_ERROR.invalidRequest, message: reason }));
    return;
  }
  if (core.pending.has(key)) {
    // Answered with id null (JSON-RPC's id for an error that cannot be tied to one request): with
    // its own id it would settle, for a client matching by id, the first request, still pending.
    const reason = `Invalid request: id ${idText} is already in use`;
    core.sendClient(errorResponseText("null", { code: RPC_ERROR.invalidRequest, message: reason }));
    return;
  }
  const failure = core.failure();
  if (failure !== undefined) {
    core.sendClient(errorResponseText(idText, failure));
    core.options.onFailureReported?.();
    return;
  }
  // The upstream is not reading its input: refused before anything decides it (SPEC §3.3).
  const refusal = core.refusal();
  if (refusal !== undefined) {
    core.sendClient(errorResponseText(idText, refusal));
    return;
  }
  if (nearGatedMethod(message.method)) {
    core.log(
      `Refused the client's method ${JSON.stringify(message.method)}: a near spelling of one Bouncer gates`,
    );
    const error = {
      code: RPC_ERROR.methodNotFound,
      message: `Method not found: ${JSON.stringify(message.method)}`,
    };
    core.sendClient(errorResponseText(idText, error));
    return;
  }
  if (core.options.unknownMethods === "deny" && !isKnownMethod(message.method, "request")) {
    core.log(
      `Refused the client's unknown method ${JSON.stringify(message.method)} (--unknown-methods deny)`,
    );
    const error = { code: RPC_ERROR.methodNotFound, message: `Method not found: "${message.method}"` };
    core.sendClient(errorResponseText(idText, error));
    return;
  }
  const tokenKey = progressTokenKey(message.params, "meta");
  const pending: PendingClient = {
    id: message.id,
    key,
    idText,
    method: message.method,
    params: message.params,
    abort: new LazyAbort(),
    tokenKey,
    state: "held",
  };
  core.pending.set(key, pending);
  const textFor = (legId: number): string => spliceSpan(line, span, String(legId));
  if (!interceptRequest(core, { pending, line, textFor, repeatsKey, value: raw.value })) {
    core.forward(pending, textFor);
  }
}

/**
 * Relays a client notification (cancellations translated, id-less calls dropped).
 * @param core - The relay.
 * @param message - The classified notification.
 * @param raw - Its text and parsed value.
 */
function clientNotification(
  core: RelayCore,
  message: Classified & { readonly kind: "notification" },
  raw: { readonly line: string; readonly value: JsonObject },
): void {
  const { method, params } = message;
  if (method === "tools/call" || nearToolsCall(method)) {
    core.log("Dropped a tools/call without an id (never forwarded)");
    core.safely("onDroppedCall", () => core.hooks.onDroppedCall(raw.value));
    return;
  }
  if (nearGatedMethod(method)) {
    core.log(
      `Dropped the client's notification ${JSON.stringify(method)}: a near spelling of a method Bouncer gates`,
    );
    return;
  }
  if (core.failure() !== undefined) return;
  if (core.refusal() !== undefined && method !== "notifications/cancelled") {
    core.droppedWhileRefusing++;
    return;
  }
  // Relayed as the client's bytes: a parser that keeps the first of two keys must not read another
  // message than this one (SPEC §3.1 "Decide on exactly what is forwarded").
  if (repeatsAKey(raw.line, raw.value)) {
    core.log(`Dropped a client notification that repeats a key: ${preview(raw.line)}`);
    return;
  }
  // Nor as bytes a server decoding names case-insensitively reads otherwise (`RequestId` beside
  // `requestId` would cancel another request).
  const pair = holdsFoldedPair(raw.value);
  if (pair !== undefined) {
    core.log(`Dropped a client notification: ${describePair(pair)}: ${preview(raw.line)}`);
    return;
  }
  if (method === "notifications/cancelled") {
    clientCancel(core, params, raw.line);
    return;
  }
  if (method === "notifications/progress") {
    const token = progressTokenKey(params, "direct");
    if (token !== undefined && core.upstreamTokens.has(token)) core.sendUpstream(raw.line);
    else core.log("Dropped a client progress notification with an unknown token");
    return;
  }
  if (core.options.unknownMethods === "deny" && !isKnownMethod(method, "notification")) {
    core.log(`Dropped the client's unknown notification ${JSON.stringify(method)} (--unknown-methods deny)`);
    return;
  }
  core.sendUpstream(raw.line);
  if (method === "notifications/initialized") core.safely("onInitialized", () => core.hooks.onInitialized());
}

/**
 * Translates a client cancel: forwarded at once with the upstream's id, or the held decision is
 * aborted (nothing is forwarded). The request is answered no more.
 *
 * Source: SPEC §3.1, §3.4 ("A client cancel of the gated call withdraws Bouncer's elicitation"), F20.
 * @param core - The relay.
 * @param params - The notification's params.
 * @param line - The notification's text (an integer `requestId` beyond ±2^53 is read from it exactly).
 */
function clientCancel(core: RelayCore, params: JsonObject, line: string): void {
  const requestId = member(params, "requestId");
  if (typeof requestId !== "string" && typeof requestId !== "number") return;
  const exact = typeof requestId === "number" ? exactMessage(exactNumbers(line)) : undefined;
  const pending = core.pending.get(cancelledRequestKey(requestId, exact));
  if (pending === undefined) return;
  if (pending.state === "forwarded" && pending.legId !== undefined) {
    core.upstream.table.take(pending.legId);
    core.sendUpstream(
      requestText("notifications/cancelled", { params: { ...params, requestId: pending.legId } }),
    );
  }
  pending.abort.abort();
  core.finish(pending);
}
