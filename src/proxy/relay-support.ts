/**
 * Small pure helpers of the relay: safe previews of noise, the id of an over-long line, progress
 * token keys and the errors Bouncer answers with. Edge (pure).
 *
 * Source: SPEC §3.1, §3.3 ("A line that is not JSON is logged … a longer one is discarded … the
 * request it answered (if it can be known, else every pending one) gets an error").
 * @module
 */

import { redactCutTokens } from "../audit/redact.ts";
import type { JsonObject, JsonValue } from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import { scanTopLevel } from "./json-scan.ts";
import { isJsonObject, member, type RequestId, RPC_ERROR, type RpcErrorObject } from "./jsonrpc.ts";
import { DEFAULT_MAX_LINE_BYTES, type OversizedLine } from "./line-framer.ts";
import type { RpcOutcome } from "./relay-hooks.ts";

/** Characters of a noisy line shown in logs and audit records. */
export const PREVIEW_CHARS = 200;

/** `…,"id":<number or string>}` at the end of a fragment. */
const TAIL_ID = /[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * Characters of a line redacted before its preview is cut (as many as the upstream's stderr drain
 * redacts of an unterminated line at once, `MAX_HELD_CHARS`): a secret that starts in the preview
 * is whole in them.
 */
export const REDACTED_HEAD_CHARS = 64 * 1024;

/**
 * The first characters of a line as a JSON string literal (control characters escaped).
 * @param text - The line.
 * @returns A printable preview.
 */
export function preview(text: string): string {
  return JSON.stringify(text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text);
}

/**
 * {@link preview} of what the upstream wrote, its secrets hidden first: the redaction runs over the
 * line's first {@link REDACTED_HEAD_CHARS} characters before the cut at {@link PREVIEW_CHARS}, so a
 * secret the cut would halve is recognised whole (a URL's password, a token), and a token start the
 * cut still leaves is redacted as the audit log redacts one in a reason (`redactCutTokens`).
 *
 * Source: SPEC §3.5 (redaction); review s18 findings B2 and B3 (upstream text on Bouncer's stderr
 * unredacted, and noise cut before it was redacted).
 * @param text - The upstream's line (or message text).
 * @param hide - The upstream's redaction (`bouncer run`: its environment's secret values, token
 *   shapes, secret-named fields); without one, the plain preview.
 * @returns A printable preview.
 */
export function hiddenPreview(text: string, hide: ((text: string) => string) | undefined): string {
  if (hide === undefined) return preview(text);
  const head = text.length > REDACTED_HEAD_CHARS ? text.slice(0, REDACTED_HEAD_CHARS) : text;
  const shown = hide(head);
  const cut = shown.length > PREVIEW_CHARS || head.length < text.length;
  return redactCutTokens(JSON.stringify(cut ? `${shown.slice(0, PREVIEW_CHARS)}…` : shown));
}

/**
 * What an over-long line is meant as, as far as its head tells: a request or notification (a
 * `method` or `params` member is seen), a response (a `result` or `error` member and neither of
 * those), or unknown (only other members before the cut).
 */
export type OversizedKind = "request" | "response" | "unknown";

/**
 * What an over-long line was, as far as its head and tail tell: its top-level id (JSON text) and
 * whether it is a request, a response or cannot be told. A member counts from its key on, so
 * `{"id":1,"result":{"pad":"zzz…` is a response though its result is cut.
 *
 * Source: SPEC §3.3.
 * @param line - The head and tail of the discarded line.
 * @returns The id text when found, and the kind.
 */
export function oversizedLineId(line: OversizedLine): {
  readonly idText?: string;
  readonly kind: OversizedKind;
} {
  const head = scanTopLevel(line.head, { partial: true });
  const seen = (key: string): boolean => head?.members.has(key) === true || head?.cutKey === key;
  const kind: OversizedKind =
    seen("method") || seen("params") ? "request" : seen("result") || seen("error") ? "response" : "unknown";
  const headId = head?.members.get("id");
  if (headId !== undefined) return { idText: line.head.slice(headId.start, headId.end), kind };
  const match = TAIL_ID.exec(line.tail);
  if (match?.[1] !== undefined) return { idText: match[1], kind };
  return { kind };
}

/**
 * Parses an id text found in a fragment.
 * @param idText - JSON text of a number or string.
 * @returns The id, or undefined when it is not a valid id.
 */
export function parseIdText(idText: string): RequestId | undefined {
  try {
    const value: unknown = JSON.parse(idText);
    return typeof value === "string" || (typeof value === "number" && Number.isFinite(value))
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The error for a message over the size limit.
 * @param bytes - Its size.
 * @param options - Who sent it, and the limit in bytes (default 64 MiB).
 * @returns The JSON-RPC error.
 */
export function oversizeError(
  bytes: number,
  options: { readonly side: "client" | "upstream"; readonly limitBytes?: number },
): RpcErrorObject {
  const side = options.side;
  const limitBytes = options.limitBytes ?? DEFAULT_MAX_LINE_BYTES;
  const limit =
    limitBytes % (1024 * 1024) === 0 ? `${limitBytes / (1024 * 1024)} MiB` : `${limitBytes} bytes`;
  return {
    code: side === "upstream" ? RPC_ERROR.upstreamFailed : RPC_ERROR.invalidRequest,
    message: `${side === "upstream" ? "Upstream message" : "Message"} too large: ${bytes} bytes exceed the ${limit} limit`,
  };
}

/**
 * A Bouncer-internal failure, as a wire error (STYLE #11: -32603).
 * @param what - What failed, for the message.
 * @param error - The caught error.
 * @returns The JSON-RPC error.
 */
export function internalError(what: string, error: unknown): RpcErrorObject {
  const detail = errorText(error);
  return { code: RPC_ERROR.internalError, message: `Bouncer internal error: ${what}: ${detail}` };
}

/**
 * A typed key for a progress token (`n:1` vs `s:1`), or undefined when absent or invalid.
 * @param params - Request or notification params.
 * @param where - `meta` for a request's `_meta.progressToken`, `direct` for a progress notification.
 * @returns The key.
 */
export function progressTokenKey(params: JsonObject, where: "meta" | "direct"): string | undefined {
  let holder: JsonValue | undefined = params;
  if (where === "meta") holder = member(params, "_meta");
  if (!isJsonObject(holder)) return undefined;
  const token = member(holder, "progressToken");
  if (typeof token === "string") return `s:${token}`;
  if (typeof token === "number" && Number.isFinite(token)) return `n:${token}`;
  return undefined;
}

/**
 * The outcome carried by a response message.
 * @param message - A classified result or error.
 * @returns The outcome.
 */
export function outcomeOf(
  message:
    | { readonly kind: "result"; readonly result: JsonValue }
    | { readonly kind: "error"; readonly error: RpcErrorObject },
): RpcOutcome {
  return message.kind === "result"
    ? { kind: "result", result: message.result }
    : { kind: "error", error: message.error };
}

/**
 * A request's cancel switch whose `AbortController` is made only when someone asks for its signal:
 * most requests are never cancelled and nobody listens for it (SPEC §3.1 cancellation, §3.4
 * withdrawn asks). A class, so that the getter lives on the prototype, not on every request.
 */
export class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: AbortWhy = "client_cancel";

  /**
   * The signal (made on first use; already aborted when {@link LazyAbort.abort} came first). Its
   * `reason` is why: an {@link AbortWhy}.
   */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Why it was aborted, or undefined while it is not (no signal is made to tell). */
  get why(): AbortWhy | undefined {
    return this.#aborted ? this.#reason : undefined;
  }

  /**
   * Aborts the signal, now or when it is made.
   * @param why - Why (default: the client cancelled the request).
   */
  abort(why: AbortWhy = "client_cancel"): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = why;
    this.#controller?.abort(why);
  }
}

/**
 * Why a request's decision was aborted: the client cancelled it, the session ended (the client went
 * away, or Bouncer was stopped), or the upstream is gone.
 */
export type AbortWhy = "client_cancel" | "session_ended" | "upstream_gone";

/**
 * What aborted a request, as the start of a sentence (`The session ended (…)`). An abort reason
 * that is none of {@link AbortWhy} (a plain `AbortController`) reads as the client's cancel.
 * @param why - The abort reason.
 * @returns The phrase.
 */
export function abortPhrase(why: unknown): string {
  if (why === "session_ended") return "The session ended (the client went away, or Bouncer was stopped)";
  if (why === "upstream_gone") return "The upstream stopped";
  return "The client cancelled the call";
}
