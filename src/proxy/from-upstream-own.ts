/**
 * What the upstream sends on its own: server-to-client requests (sampling, elicitation, roots),
 * relayed to the client with Bouncer ids, and notifications (cancellations translated, progress only
 * for requests forwarded to it, `list_changed` shown to its hook, every other one shown to the gate
 * to record before the client sees it). Edge.
 *
 * Source: SPEC §3.1, §2.5 ("all of it is recorded"), §3.4.
 * @module
 */

import type { JsonObject } from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import { cancelledRequestKey } from "./exact-numbers.ts";
import { findIdSpan, spliceSpan } from "./json-scan.ts";
import { type Classified, errorResponseText, idKey, member, RPC_ERROR, requestText } from "./jsonrpc.ts";
import { isKnownMethod } from "./known-methods.ts";
import type { RelayCore } from "./relay-core.ts";
import { progressTokenKey } from "./relay-support.ts";
import type { PendingUpstream } from "./relay-types.ts";

/**
 * Requests of the upstream that may wait for the client's answer at once, at most: each keeps its
 * id, method and progress token until the client answers, and a client that never answers must not
 * let the upstream grow Bouncer without limit. A request past it is answered with an error and
 * never reaches the client.
 *
 * Source: SPEC §3.1 (server-to-client requests relayed), §3.3 (fail closed), §7 (memory).
 */
export const MAX_OPEN_UPSTREAM_REQUESTS = 1024;

/**
 * Characters (UTF-16 code units) of the ids, methods and progress tokens of the upstream's requests
 * waiting for the client's answer, at most (the upstream writes them: an id can be megabytes long).
 *
 * Source: SPEC §3.3 (fail closed), §7 (memory).
 */
export const MAX_OPEN_UPSTREAM_REQUEST_CHARS = 4 * 1024 * 1024;

/**
 * The characters an upstream request waiting for the client's answer holds, as
 * {@link MAX_OPEN_UPSTREAM_REQUEST_CHARS} counts them: its id twice (as written, and as the key that
 * translates a cancel), its method and its progress token. The relay's client leg weighs its relayed
 * entries with it, so the totals are kept as entries come and go.
 *
 * Source: SPEC §3.3 (fail closed), §7 (memory).
 * @param request - The relayed request.
 * @returns Its characters (UTF-16 code units).
 */
export function heldChars(request: PendingUpstream): number {
  return request.idText.length * 2 + request.method.length + (request.tokenKey?.length ?? 0);
}

/**
 * Why one more upstream request cannot wait for the client's answer, if it cannot.
 * @param core - The relay.
 * @param chars - The new request's id, method and token characters.
 * @returns The refusal's message, or undefined when it fits.
 */
function openRequestsFull(core: RelayCore, chars: number): string | undefined {
  const open = core.client.table.counted;
  const count = open.entries;
  const held = open.weight + chars;
  if (count >= MAX_OPEN_UPSTREAM_REQUESTS)
    return `Bouncer refused this request: ${MAX_OPEN_UPSTREAM_REQUESTS} requests of the upstream already wait for the client's answer`;
  if (held > MAX_OPEN_UPSTREAM_REQUEST_CHARS)
    return "Bouncer refused this request: the ids, methods and progress tokens of the upstream's requests waiting for the client's answer would pass 4 Mi characters";
  return undefined;
}

/**
 * Relays a server-to-client request (sampling, elicitation, roots) with a Bouncer id, unless
 * {@link MAX_OPEN_UPSTREAM_REQUESTS} of them (or {@link MAX_OPEN_UPSTREAM_REQUEST_CHARS} of their
 * ids, methods and tokens) already wait for the client's answer: then it is answered `-32603` and
 * neither recorded nor relayed.
 * @param core - The relay.
 * @param message - The classified request.
 * @param raw - Its text and the message as parsed.
 */
export function upstreamRequest(
  core: RelayCore,
  message: Classified & { readonly kind: "request" },
  raw: { readonly line: string; readonly value: JsonObject; readonly exact?: JsonObject },
): void {
  const { line } = raw;
  const span = findIdSpan(line);
  // An integer id beyond ±2^53 keeps its digits: a batch element's text is written again from the
  // parsed (rounded) value, and its answer must reach the upstream under the id it sent.
  const exactId = raw.exact === undefined ? undefined : member(raw.exact, "id");
  const idText =
    typeof message.id === "number" && typeof exactId === "string"
      ? exactId
      : span === undefined
        ? JSON.stringify(message.id)
        : line.slice(span.start, span.end);
  if (
    span === undefined ||
    (core.options.unknownMethods === "deny" && !isKnownMethod(message.method, "request"))
  ) {
    core.log(`Refused the upstream's method ${JSON.stringify(message.method)} (--unknown-methods deny)`);
    const error = { code: RPC_ERROR.methodNotFound, message: `Method not found: "${message.method}"` };
    core.replyUpstream(errorResponseText(idText, error));
    return;
  }
  const tokenKey = progressTokenKey(message.params, "meta");
  const waiting: PendingUpstream = { idText, tokenKey, method: message.method };
  const full = openRequestsFull(core, heldChars(waiting));
  if (full !== undefined) {
    core.log(`Refused the upstream's request ${JSON.stringify(message.method.slice(0, 80))}: ${full}`);
    core.replyUpstream(errorResponseText(idText, { code: RPC_ERROR.internalError, message: full }));
    return;
  }
  const seen = {
    method: message.method,
    params: message.params,
    message: raw.value,
    ...(raw.exact === undefined ? {} : { exact: raw.exact }),
  };
  if (!observed(core, "request", () => core.hooks.onUpstreamRequest(seen))) {
    const error = { code: RPC_ERROR.internalError, message: "Bouncer could not record this request" };
    core.replyUpstream(errorResponseText(idText, error));
    return;
  }
  const legId = core.client.relay(waiting, idKey(message.id, idText.trim()));
  if (tokenKey !== undefined) core.upstreamTokens.add(tokenKey);
  core.sendClient(spliceSpan(line, span, String(legId)));
}

/**
 * Relays an upstream notification (cancellations translated, progress only for open tokens).
 * @param core - The relay.
 * @param message - The classified notification.
 * @param raw - Its text and the message as parsed.
 */
export function upstreamNotification(
  core: RelayCore,
  message: Classified & { readonly kind: "notification" },
  raw: { readonly line: string; readonly value: JsonObject; readonly exact?: JsonObject },
): void {
  const { line } = raw;
  const { method, params } = message;
  const seen = {
    method,
    params,
    message: raw.value,
    ...(raw.exact === undefined ? {} : { exact: raw.exact }),
  };
  if (method === "notifications/cancelled") {
    const requestId = member(params, "requestId");
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const legId = core.client.table.idForOrigin(cancelledRequestKey(requestId, raw.exact));
    if (legId === undefined) return;
    const entry = core.client.table.take(legId);
    if (entry?.kind === "relay" && entry.value.tokenKey !== undefined)
      core.upstreamTokens.delete(entry.value.tokenKey);
    // Its reason reaches the client too: recorded, or not relayed (the request is cancelled either
    // way: a late answer of the client's finds no entry and is dropped).
    if (!observed(core, "notification", () => core.hooks.onUpstreamNotification(seen))) return;
    core.sendClient(requestText(method, { params: { ...params, requestId: legId } }));
    return;
  }
  if (method === "notifications/progress") {
    const token = progressTokenKey(params, "direct");
    if (token === undefined || !core.clientTokens.has(token)) {
      core.log("Dropped an upstream progress notification with an unknown token");
      return;
    }
  } else if (method === "notifications/tools/list_changed") {
    core.safely("onToolsListChanged", () => core.hooks.onToolsListChanged());
  } else if (core.options.unknownMethods === "deny" && !isKnownMethod(method, "notification")) {
    core.log(
      `Dropped the upstream's unknown notification ${JSON.stringify(method)} (--unknown-methods deny)`,
    );
    return;
  }
  // Recorded as untrusted output by the gate before the client sees it: unrecorded, it is not relayed.
  if (!observed(core, "notification", () => core.hooks.onUpstreamNotification(seen))) return;
  core.sendClient(line);
}

/**
 * Runs a hook that records what the upstream sends on its own before the client sees it.
 * @param core - The relay.
 * @param what - `request` or `notification`, for the stderr line.
 * @param run - The hook call.
 * @returns False when the hook threw (said on stderr): the message must not reach the client.
 */
function observed(core: RelayCore, what: string, run: () => void): boolean {
  try {
    run();
    return true;
  } catch (error) {
    core.log(`Dropped an upstream ${what}: it could not be recorded (${errorText(error)})`);
    return false;
  }
}
