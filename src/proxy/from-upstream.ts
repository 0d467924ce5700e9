/**
 * Messages from the upstream, handled strictly in order: each line parsed and routed — answers to
 * `upstream-answers.ts`, the upstream's own requests and notifications to `from-upstream-own.ts` —
 * noise reported, malformed messages refused (`upstream-refusals.ts`), over-long lines and the
 * upstream's death answered. Edge.
 *
 * Source: SPEC §3.1, §3.2 step 2, §3.3; F03, F07, F19, F20, F22.
 * @module
 */

import type { JsonObject } from "../engine/index.ts";
import { rpcMemberVariant } from "./case-variants.ts";
import { exactMessage, exactNumbers } from "./exact-numbers.ts";
import { upstreamNotification, upstreamRequest } from "./from-upstream-own.ts";
import { gluedObjects } from "./json-scan.ts";
import { classify, errorResponseText, isJsonObject, RPC_ERROR, type RpcErrorObject } from "./jsonrpc.ts";
import type { OversizedLine } from "./line-framer.ts";
import type { RelayCore } from "./relay-core.ts";
import type { UpstreamFailure } from "./relay-hooks.ts";
import { oversizedLineId, oversizeError, parseIdText } from "./relay-support.ts";
import { repeatsAKey } from "./strict-json.ts";
import { topLevelRepeat } from "./top-level-repeats.ts";
import { upstreamInvalidAnswer, upstreamResponse } from "./upstream-answers.ts";
import { upstreamCaseVariant, upstreamRepeat } from "./upstream-refusals.ts";
import { salvage } from "./upstream-salvage.ts";

/**
 * An upstream line over the size limit was discarded: the request it answered gets an error, or
 * every pending one when that cannot be known; the relay carries on.
 *
 * Source: SPEC §3.3.
 * @param core - The relay.
 * @param line - The head and tail of the line.
 */
export function upstreamOversize(core: RelayCore, line: OversizedLine): void {
  core.enqueue(() => {
    core.noise({
      side: "upstream",
      kind: "oversize",
      bytes: line.byteLength,
      text: line.head,
    });
    const limit = core.options.maxLineBytes === undefined ? {} : { limitBytes: core.options.maxLineBytes };
    const error = oversizeError(line.byteLength, { side: "upstream", ...limit });
    const { idText, kind } = oversizedLineId(line);
    if (kind === "request") {
      if (idText !== undefined)
        core.replyUpstream(errorResponseText(idText, { ...error, code: RPC_ERROR.invalidRequest }));
      return;
    }
    const id = idText === undefined ? undefined : parseIdText(idText);
    if (id !== undefined) {
      const settled = core.upstream.settle(id, { kind: "error", error });
      if (settled.relayed !== undefined) core.answerError(settled.relayed, error);
      if (settled.found) return;
    }
    for (const pending of core.upstream.failAll(error)) core.answerError(pending, error);
  });
}

/**
 * The upstream is gone: every pending request gets the error, later ones too.
 *
 * Source: SPEC §3.3 ("Upstream exits"), F07.
 * @param core - The relay.
 * @param failure - Message and data (exit code, stderr tail).
 * @returns How many client requests were answered with it.
 */
export function upstreamGone(core: RelayCore, failure: UpstreamFailure): Promise<number> {
  return new Promise((resolve) => {
    core.enqueue(() => {
      const error: RpcErrorObject = {
        code: RPC_ERROR.upstreamFailed,
        message: failure.message,
        data: failure.data,
      };
      core.fail(error);
      core.safely("onUpstreamExit", () => core.hooks.onUpstreamExit(failure));
      let told = 0;
      for (const pending of core.upstream.close(error)) if (core.answerError(pending, error)) told++;
      for (const pending of [...core.pending.values()]) {
        pending.abort.abort("upstream_gone");
        if (core.answerError(pending, error)) told++;
      }
      if (told > 0) core.options.onFailureReported?.();
      resolve(told);
    });
  });
}

/**
 * The objects of a line that holds two or more JSON objects one after the other, when every one of
 * them parses (all or nothing: a line with one piece that does not is left to {@link salvage}).
 * @param line - An upstream line that does not parse as JSON.
 * @returns The objects' texts, or undefined.
 */
function gluedMessages(line: string): string[] | undefined {
  const pieces = gluedObjects(line);
  if (pieces === undefined) return undefined;
  for (const piece of pieces) {
    try {
      JSON.parse(piece);
    } catch {
      return undefined;
    }
  }
  return pieces;
}

/**
 * Parses and routes one upstream line (noise reported; a JSON message after a text prefix salvaged;
 * messages glued on one line routed one by one, in order).
 * @param core - The relay.
 * @param text - The line.
 * @returns A promise while a hook records an answer.
 */
export function fromUpstream(core: RelayCore, text: string): void | Promise<void> {
  let line = text;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    const glued = gluedMessages(line);
    if (glued !== undefined) {
      core.noise({ side: "upstream", kind: "glued", bytes: line.length, text: line });
      for (const piece of glued) core.enqueue(() => fromUpstream(core, piece));
      return;
    }
    const { at, salvaged } = salvage(line);
    const kind = salvaged === undefined ? "not_json" : "salvaged";
    core.noise({
      side: "upstream",
      kind,
      bytes: line.length,
      text: salvaged === undefined ? line : line.slice(0, at),
    });
    if (salvaged === undefined) return;
    value = salvaged;
    line = line.slice(at);
  }
  const exact = exactNumbers(line);
  if (Array.isArray(value)) {
    core.noise({ side: "upstream", kind: "batch", bytes: line.length, text: line });
    for (const [index, element] of value.entries()) {
      if (!isJsonObject(element)) continue;
      const written = exactMessage(exact, index);
      core.enqueue(() => upstreamMessage(core, element, { line: JSON.stringify(element), exact: written }));
    }
    return;
  }
  if (!isJsonObject(value)) {
    core.noise({ side: "upstream", kind: "invalid", bytes: line.length, text: line });
    return;
  }
  return upstreamMessage(core, value, { line, exact: exactMessage(exact) });
}

/**
 * Routes one parsed upstream message.
 * @param core - The relay.
 * @param value - The message.
 * @param text - Its text, and its reading with the digits of integers beyond ±2^53 when it has any.
 * @returns A promise while a hook records an answer.
 */
function upstreamMessage(
  core: RelayCore,
  value: JsonObject,
  text: { readonly line: string; readonly exact: JsonObject | undefined },
): void | Promise<void> {
  const message = classify(value);
  const variant = rpcMemberVariant(value);
  if (variant !== undefined) return upstreamCaseVariant(core, message, { line: text.line, variant });
  // One count of the keys tells most messages apart (no key repeated anywhere): only a message that
  // repeats one is looked at again for a top-level repeat.
  const repeats = repeatsAKey(text.line, value);
  const repeat = repeats ? topLevelRepeat(text.line, value) : undefined;
  if (repeat !== undefined) return upstreamRepeat(core, message, { line: text.line, repeat });
  const line = repeats ? asRecorded(core, value, text.line) : text.line;
  if (line === undefined) {
    const reason = "a nested key is repeated and the message nests too deeply to be written again";
    return upstreamRepeat(core, message, {
      line: text.line,
      repeat: { key: "", idAmbiguous: false },
      reason,
    });
  }
  const raw = text.exact === undefined ? { line, value } : { line, value, exact: text.exact };
  if (message.kind === "result" || message.kind === "error") return upstreamResponse(core, message, raw);
  if (message.kind === "request") return upstreamRequest(core, message, raw);
  if (message.kind === "notification") return upstreamNotification(core, message, raw);
  core.noise({ side: "upstream", kind: "invalid", bytes: line.length, text: line });
  if (message.response) {
    if (message.id !== null) return upstreamInvalidAnswer(core, message.id, message.reason);
    return;
  }
  if (message.id !== null) {
    const error = { code: RPC_ERROR.invalidRequest, message: `Invalid request: ${message.reason}` };
    core.replyUpstream(errorResponseText(JSON.stringify(message.id), error));
  }
}

/**
 * The text to relay for an upstream message that repeats a key inside it (not at its top level): the
 * re-serialisation of the message as `JSON.parse` read it (the last copy of each key), which
 * is what the hooks record as untrusted output. A client whose parser keeps the first copy would
 * otherwise show the model text Bouncer never recorded (an address planted there would only be asked
 * about, never denied). Said on stderr, its preview redacted as the upstream's stderr is.
 *
 * Source: SPEC §2.5 ("Everything the upstream says can reach the model, so all of it is recorded"),
 * §3.1 ("Other messages may be forwarded as their original bytes").
 * @param core - The relay.
 * @param value - The message as parsed.
 * @param text - Its text.
 * @returns The text to relay, or undefined when the message cannot be written again (nested too
 *   deeply for `JSON.stringify`).
 */
function asRecorded(core: RelayCore, value: JsonObject, text: string): string | undefined {
  let rewritten: string | undefined;
  try {
    rewritten = JSON.stringify(value);
  } catch {
    rewritten = undefined;
  }
  if (rewritten !== undefined) {
    core.log(
      `The upstream wrote a message that repeats a key inside it: relayed as Bouncer read and recorded it (the last copy of each key): ${core.upstreamPreview(text)}`,
    );
  }
  return rewritten;
}
