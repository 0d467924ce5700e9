/**
 * Answers from the upstream to the requests they answer: a relayed one is recorded by its hook
 * before the client sees it, with the client's original id restored (the `initialize` answer with
 * `tools.listChanged` added); an invalid answer settles its request with an error; late ones are
 * dropped. `from-upstream.ts` routes the messages here. Edge.
 *
 * Source: SPEC §3.1, §3.2 step 2; JSON-RPC 2.0 §5; F19.
 * @module
 */

import type { JsonObject } from "../engine/index.ts";
import { findIdSpan, spliceSpan } from "./json-scan.ts";
import {
  type Classified,
  errorResponseText,
  isJsonObject,
  member,
  type RequestId,
  RPC_ERROR,
} from "./jsonrpc.ts";
import type { RelayCore } from "./relay-core.ts";
import type { RpcOutcome } from "./relay-hooks.ts";
import { internalError, outcomeOf, PREVIEW_CHARS } from "./relay-support.ts";
import type { PendingClient } from "./relay-types.ts";
import { RequestView } from "./request-view.ts";

/**
 * Routes an upstream answer: Bouncer's own request settles; a relayed one is recorded by its hook,
 * then reaches the client with its original id. Late answers (cancelled requests) are dropped.
 *
 * Source: SPEC §3.1 ("a response goes back with the original id"), F03.
 * @param core - The relay.
 * @param message - The classified response.
 * @param raw - Its text and the message as parsed.
 * @returns A promise while a hook records it.
 */
export function upstreamResponse(
  core: RelayCore,
  message: Classified & { readonly kind: "result" | "error" },
  raw: { readonly line: string; readonly value: JsonObject; readonly exact?: JsonObject },
): void | Promise<void> {
  const { line } = raw;
  if (message.id === null) {
    // What it wrote is quoted with its secrets hidden, as its stderr is (review s18 finding B2).
    const sole = soleOpenId(core);
    if (sole === undefined) {
      core.log(
        `The upstream sent an error without an id while ${core.upstream.table.size} requests were open (which one it answers cannot be known): ${core.upstreamPreview(line)}`,
      );
      return;
    }
    core.log(
      `The upstream sent an error without an id while one request was open: taken as its answer: ${core.upstreamPreview(line)}`,
    );
    return upstreamResponse(core, { ...message, id: sole }, raw);
  }
  const outcome = {
    ...outcomeOf(message),
    message: raw.value,
    ...(raw.exact === undefined ? {} : { exact: raw.exact }),
  };
  const settled = core.upstream.settle(message.id, outcome);
  if (!settled.found) {
    // Not silent (STYLE #18): an id Bouncer never sent, or one it no longer waits for (cancelled).
    const id = JSON.stringify(message.id);
    const shown = id.length > PREVIEW_CHARS ? `${id.slice(0, PREVIEW_CHARS)}…` : id;
    core.log(
      `Dropped an upstream answer to a request it was not sent, or no longer pending (id ${shown}, ${line.length} characters)`,
    );
    return;
  }
  const pending = settled.relayed;
  if (pending === undefined || pending.state === "done") return;
  const span = findIdSpan(line);
  const text = span === undefined ? line : spliceSpan(line, span, pending.idText);
  return deliverAnswer(core, pending, { outcome, text });
}

/**
 * The id of the one request open at the upstream, Bouncer's own or relayed, else undefined (none,
 * or several). An error with `id: null` (JSON-RPC 2.0 §5: the id of the request could not be read)
 * can only have meant that one: it settles it, rather than leaving its call waiting for ever.
 *
 * Source: JSON-RPC 2.0 §5; SPEC §3.3 ("never a hang"); carried from the session 16 closing note.
 * @param core - The relay.
 * @returns The outgoing id, or undefined.
 */
function soleOpenId(core: RelayCore): RequestId | undefined {
  if (core.upstream.table.size !== 1) return undefined;
  return core.upstream.table.entries()[0]?.[0];
}

/**
 * An upstream message meant as an answer that is invalid (`result` and `error` both, or neither):
 * the request it answers settles with a `-32000` error — Bouncer's own is rejected, a client's is
 * recorded with that error and the client gets it, never the message's `result` or its bytes.
 *
 * Source: JSON-RPC 2.0 §5 (exactly one of `result` and `error`), SPEC §3.1.
 * @param core - The relay.
 * @param id - Its id.
 * @param reason - What is wrong with it.
 * @returns A promise while a hook records it.
 */
export function upstreamInvalidAnswer(core: RelayCore, id: RequestId, reason: string): void | Promise<void> {
  const error = { code: RPC_ERROR.upstreamFailed, message: `The upstream's answer is invalid: ${reason}` };
  const outcome = { kind: "error" as const, error };
  const pending = core.upstream.settle(id, outcome).relayed;
  if (pending === undefined || pending.state === "done") return;
  return deliverAnswer(core, pending, { outcome, text: errorResponseText(pending.idText, error) });
}

/**
 * Shows an upstream answer to its hook, then sends it to the client (the `initialize` answer with
 * `tools.listChanged` added).
 * @param core - The relay.
 * @param pending - The client request it answers.
 * @param answer - The outcome and the text the client gets.
 * @returns A promise while a hook records it.
 */
function deliverAnswer(
  core: RelayCore,
  pending: PendingClient,
  answer: { readonly outcome: RpcOutcome; readonly text: string },
): void | Promise<void> {
  const { outcome, text } = answer;
  if (pending.method === "initialize") return initializeAnswer(core, pending, { outcome, text });
  let recording: void | Promise<void>;
  try {
    recording =
      pending.call === undefined
        ? core.hooks.onUpstreamResult(new RequestView(pending), outcome)
        : core.hooks.onToolResult(pending.call, outcome);
  } catch (error) {
    core.answerError(pending, internalError("cannot record the upstream's answer", error));
    return;
  }
  if (recording === undefined) {
    core.answer(pending, text);
    return;
  }
  return recording.then(
    () => void core.answer(pending, text),
    (error: unknown) =>
      void core.answerError(pending, internalError("cannot record the upstream's answer", error)),
  );
}

/**
 * The upstream's `initialize` answer: remembered, shown to the hook, and `tools.listChanged: true`
 * added for the client when the upstream has tools.
 *
 * Source: SPEC §3.2 step 2, F19.
 * @param core - The relay.
 * @param pending - The client's initialize.
 * @param answer - The outcome and the answer's text with the client's id.
 */
function initializeAnswer(
  core: RelayCore,
  pending: PendingClient,
  answer: { readonly outcome: RpcOutcome; readonly text: string },
): void {
  const result = answer.outcome.kind === "result" ? answer.outcome.result : undefined;
  if (!isJsonObject(result)) {
    core.answer(pending, answer.text);
    return;
  }
  core.remember("upstreamInitialize", result);
  core.safely("onInitializeResult", () => core.hooks.onInitializeResult(result));
  const capabilities = member(result, "capabilities");
  const tools = isJsonObject(capabilities) ? member(capabilities, "tools") : undefined;
  if (!isJsonObject(capabilities) || !isJsonObject(tools)) {
    core.answer(pending, answer.text);
    return;
  }
  const patched = { ...result, capabilities: { ...capabilities, tools: { ...tools, listChanged: true } } };
  core.answer(pending, `{"jsonrpc":"2.0","id":${pending.idText},"result":${JSON.stringify(patched)}}`);
}
