/**
 * Malformed upstream messages (SPEC §3.3): one that repeats a top-level key, or spells a JSON-RPC
 * member in other letter case, is reported as noise and never relayed; an answer settles its
 * request as unusable, a request is refused, anything else is dropped with a log line. Edge.
 *
 * Source: SPEC §3.1, §3.3.
 * @module
 */

import type { Classified, RequestId } from "./jsonrpc.ts";
import { errorResponseText, RPC_ERROR } from "./jsonrpc.ts";
import type { RelayCore } from "./relay-core.ts";
import type { TopLevelRepeat } from "./top-level-repeats.ts";
import { upstreamInvalidAnswer } from "./upstream-answers.ts";

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
export function upstreamRepeat(
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
export function upstreamCaseVariant(
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
  core.noise({ side: "upstream", kind: "invalid", bytes: line.length, text: line });
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
