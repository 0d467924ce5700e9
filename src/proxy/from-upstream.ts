/**
 * Messages from the upstream, handled strictly in order: each line parsed and routed — answers to
 * `upstream-answers.ts`, the upstream's own requests and notifications to `from-upstream-own.ts` —
 * noise reported, malformed messages refused, over-long lines and the upstream's death answered. Edge.
 *
 * Source: SPEC §3.1, §3.2 step 2, §3.3; F03, F07, F19, F20, F22.
 * @module
 */

import type { JsonObject } from "../engine/index.ts";
import { rpcMemberVariant } from "./case-variants.ts";
import { exactMessage, exactNumbers } from "./exact-numbers.ts";
import { upstreamNotification, upstreamRequest } from "./from-upstream-own.ts";
import {
  type Classified,
  classify,
  errorResponseText,
  isJsonObject,
  type RequestId,
  RPC_ERROR,
  type RpcErrorObject,
} from "./jsonrpc.ts";
import type { OversizedLine } from "./line-framer.ts";
import type { RelayCore } from "./relay-core.ts";
import type { UpstreamFailure } from "./relay-hooks.ts";
import { oversizedLineId, oversizeError, parseIdText, preview } from "./relay-support.ts";
import { repeatsAKey } from "./strict-json.ts";
import { type TopLevelRepeat, topLevelRepeat } from "./top-level-repeats.ts";
import { upstreamInvalidAnswer, upstreamResponse } from "./upstream-answers.ts";

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
      preview: preview(line.head),
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
 * Parses and routes one upstream line (noise reported; a JSON message after a text prefix salvaged).
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
    const { at, salvaged } = salvage(line);
    const kind = salvaged === undefined ? "not_json" : "salvaged";
    core.noise({
      side: "upstream",
      kind,
      bytes: line.length,
      preview: preview(salvaged === undefined ? line : line.slice(0, at)),
    });
    if (salvaged === undefined) return;
    value = salvaged;
    line = line.slice(at);
  }
  const exact = exactNumbers(line);
  if (Array.isArray(value)) {
    core.noise({ side: "upstream", kind: "batch", bytes: line.length, preview: preview(line) });
    for (const [index, element] of value.entries()) {
      if (!isJsonObject(element)) continue;
      const written = exactMessage(exact, index);
      core.enqueue(() => upstreamMessage(core, element, { line: JSON.stringify(element), exact: written }));
    }
    return;
  }
  if (!isJsonObject(value)) {
    core.noise({ side: "upstream", kind: "invalid", bytes: line.length, preview: preview(line) });
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
  core.noise({ side: "upstream", kind: "invalid", bytes: line.length, preview: preview(line) });
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
 * about, never denied). Said on stderr.
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
      `The upstream wrote a message that repeats a key inside it: relayed as Bouncer read and recorded it (the last copy of each key): ${preview(text)}`,
    );
  }
  return rewritten;
}

/**
 * An upstream message that repeats a top-level key is malformed (what it says depends on the
 * parser): reported as noise and never relayed. An answer settles the request it answers with a
 * `-32000` error, a request is refused with `-32600` — when its id is written once, or in alike copies;
 * otherwise (and for a notification) it is dropped.
 *
 * Source: SPEC §3.1 ("a response goes back with the original id"), §3.3 (malformed upstream lines).
 * @param core - The relay.
 * @param message - The message as `JSON.parse` read it (the last copy of each key).
 * @param raw - Its text and what it repeats.
 * @returns A promise while a hook records the error.
 */
function upstreamRepeat(
  core: RelayCore,
  message: Classified,
  raw: { readonly line: string; readonly repeat: TopLevelRepeat; readonly reason?: string },
): void | Promise<void> {
  const { line, repeat } = raw;
  const reason = raw.reason ?? `the top-level key ${JSON.stringify(repeat.key)} is repeated`;
  const what = raw.reason === undefined ? `repeats a top-level key (${repeat.key})` : "repeats a nested key";
  return refuseUpstreamMessage(core, message, {
    line,
    reason,
    id: message.kind === "notification" || repeat.idAmbiguous ? null : message.id,
    dropped: `Dropped an upstream message that ${what}: no single id to answer`,
  });
}

/**
 * An upstream message with a top-level key that spells one of JSON-RPC's member names in other
 * letter case (`Method`, `ID`, `Result`): a client decoding names case-insensitively (Go's
 * `encoding/json`) may read another message than Bouncer did — a request where Bouncer saw an
 * answer (a question Bouncer never vetted, answered under an id of Bouncer's own), or the answer to
 * another of its requests. Malformed, as a repeated top-level key is: never relayed; an answer
 * settles its request with `-32000`, a request gets `-32600`, a notification is dropped.
 *
 * Source: SPEC §3.1 (ids remapped; "An upstream's request can never be mistaken for Bouncer's own").
 * @param core - The relay.
 * @param message - The message as classified by its exact keys.
 * @param raw - Its text and the key found.
 * @returns A promise while a hook records the error.
 */
function upstreamCaseVariant(
  core: RelayCore,
  message: Classified,
  raw: { readonly line: string; readonly variant: { readonly key: string; readonly member: string } },
): void | Promise<void> {
  const { line, variant } = raw;
  const reason = `the top-level key ${JSON.stringify(variant.key)} is ${JSON.stringify(variant.member)} in other letter case`;
  return refuseUpstreamMessage(core, message, {
    line,
    reason,
    id: message.kind === "notification" ? null : message.id,
    dropped: `Dropped an upstream message: ${reason}`,
  });
}

/**
 * Refuses a malformed upstream message (SPEC §3.3): reported as noise and never relayed; without an
 * id to answer it is dropped (with a log line), a request is answered `-32600`, an answer settles
 * the request it answers as unusable (`-32000`).
 * @param core - The relay.
 * @param message - The message as classified.
 * @param refusal - Its text, why it is refused, the id to answer (`null`: none), the log line of a drop.
 * @returns A promise while a hook records the error.
 */
function refuseUpstreamMessage(
  core: RelayCore,
  message: Classified,
  refusal: {
    readonly line: string;
    readonly reason: string;
    readonly id: RequestId | null;
    readonly dropped: string;
  },
): void | Promise<void> {
  const { line, reason, id } = refusal;
  core.noise({ side: "upstream", kind: "invalid", bytes: line.length, preview: preview(line) });
  if (id === null) {
    core.log(refusal.dropped);
    return;
  }
  if (message.kind === "request" || (message.kind === "invalid" && !message.response)) {
    const error = { code: RPC_ERROR.invalidRequest, message: `Invalid request: ${reason}` };
    core.replyUpstream(errorResponseText(JSON.stringify(id), error));
    return;
  }
  return upstreamInvalidAnswer(core, id, reason);
}

/** How many `{"jsonrpc"` starts of one line `salvage` tries at most (a hostile line has many). */
const SALVAGE_TRIES = 4;

/**
 * The JSON-RPC message at the end of a line that does not parse: after a text prefix (`Server
 * started{"jsonrpc":…}`), or after a message cut off half-way and written again (`{"jsonrpc":"2.0",
 * "id":3,"res{"jsonrpc":"2.0","id":3,"result":…}`), else undefined. Tries the first
 * {@link SALVAGE_TRIES} places where `{"jsonrpc"` starts after the line's first character.
 *
 * Source: SPEC §3.3 (framing: noise is skipped, never fatal); F03; review of `bouncer run` (an
 * answer glued to a half-written line left its call waiting).
 * @param line - An upstream line that is not JSON.
 * @returns Where the message starts and the message, or `at: -1` and no message.
 */
function salvage(line: string): { at: number; salvaged: unknown } {
  let at = line.indexOf('{"jsonrpc"', 1);
  for (let tries = 0; at > 0 && tries < SALVAGE_TRIES; tries++) {
    const salvaged = tryParse(line.slice(at));
    if (salvaged !== undefined) return { at, salvaged };
    at = line.indexOf('{"jsonrpc"', at + 1);
  }
  return { at: -1, salvaged: undefined };
}

/**
 * Parses JSON, or returns undefined.
 * @param text - Candidate JSON.
 * @returns The value, or undefined.
 */
function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
