/**
 * JSON-RPC 2.0 as the relay sees it: message kinds, error codes, and the few messages Bouncer writes
 * itself. Wire errors only (STYLE #11): local failures are `BouncerError`s and never reach here.
 * Edge (pure).
 *
 * Source: SPEC §3.1, §3.3; JSON-RPC 2.0; STYLE #11 ("A Bouncer-internal failure is -32603").
 * @module
 */

import type { JsonObject, JsonValue } from "../engine/index.ts";
import { isJsonObject, member } from "../engine/index.ts";

export { isJsonObject, member };

/** A request id: a string or a number, compared with its JSON type (`42` ≠ `"42"`; `0` is valid). */
export type RequestId = string | number;

/** Standard and Bouncer error codes. */
export const RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The upstream is gone or sent something unusable (server-defined range). */
  upstreamFailed: -32000,
  /**
   * Bouncer's own local state cannot be used (a corrupt or unreadable pin file): the user's to fix,
   * not an internal error (server-defined range; `data.code` is the local error's code).
   */
  localStateFailed: -32002,
} as const;

/** The `error` member of a JSON-RPC error response. */
export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: JsonValue;
}

/** A JSON-RPC error received as the answer to a request Bouncer sent itself. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: JsonValue | undefined;
  /**
   * True when the upstream itself answered with this error (its words, untrusted: SPEC §2.5: the
   * answer came with its message as written); false for one of Bouncer's own making (the peer is
   * gone, the request was cancelled or lost) and for the client's answers.
   */
  readonly fromPeer: boolean;

  /**
   * @param error - The error object as received.
   * @param options - `fromPeer`: the upstream answered with it (default false).
   */
  constructor(error: RpcErrorObject, options: { readonly fromPeer?: boolean } = {}) {
    super(error.message);
    this.name = "RpcError";
    this.code = error.code;
    this.data = error.data;
    this.fromPeer = options.fromPeer === true;
  }
}

/** What a parsed message is. */
export type Classified =
  | { readonly kind: "request"; readonly id: RequestId; readonly method: string; readonly params: JsonObject }
  | { readonly kind: "notification"; readonly method: string; readonly params: JsonObject }
  | { readonly kind: "result"; readonly id: RequestId; readonly result: JsonValue }
  | { readonly kind: "error"; readonly id: RequestId | null; readonly error: RpcErrorObject }
  | {
      readonly kind: "invalid";
      readonly id: RequestId | null;
      readonly reason: string;
      /**
       * No `method` member: meant as a response, so its id is one of the receiver's own requests and
       * it is never answered (a reply with that id lands in the sender's id space).
       */
      readonly response: boolean;
    };

/**
 * Whether a value is a valid request id.
 * @param value - The `id` member.
 * @returns True for a string or a finite number.
 */
function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/**
 * Classifies a parsed message. A response carrying both `result` and `error` is invalid (JSON-RPC
 * 2.0 §5: exactly one of them), so that no reader takes the result where another takes the error.
 *
 * Source: JSON-RPC 2.0 §4–5.
 * @param message - A parsed JSON object.
 * @returns Its kind and members.
 */
export function classify(message: JsonObject): Classified {
  const id = member(message, "id");
  const method = member(message, "method");
  const rawParams = member(message, "params");
  const params = isJsonObject(rawParams) ? rawParams : {};
  if (typeof method === "string") {
    if (rawParams !== undefined && !isJsonObject(rawParams) && !Array.isArray(rawParams)) {
      return invalid(id, "params must be an object", false);
    }
    if (id === undefined) return { kind: "notification", method, params };
    if (!isRequestId(id))
      return { kind: "invalid", id: null, reason: "id must be a string or a number", response: false };
    return { kind: "request", id, method, params };
  }
  const response = method === undefined;
  if (Object.hasOwn(message, "result")) {
    if (Object.hasOwn(message, "error"))
      return invalid(id, "a response carries both result and error", response);
    if (!isRequestId(id))
      return { kind: "invalid", id: null, reason: "response id must be a string or a number", response };
    return { kind: "result", id, result: message.result as JsonValue };
  }
  const error = member(message, "error");
  if (isJsonObject(error)) {
    const code = member(error, "code");
    const text = member(error, "message");
    const data = member(error, "data");
    return {
      kind: "error",
      id: isRequestId(id) ? id : null,
      error: {
        code: typeof code === "number" ? code : RPC_ERROR.internalError,
        message: typeof text === "string" ? text : "",
        ...(data === undefined ? {} : { data }),
      },
    };
  }
  return invalid(id, "not a request, notification or response", response);
}

/**
 * An invalid message, with its id when that is a valid one.
 * @param id - The `id` member.
 * @param reason - What is wrong.
 * @param response - Whether it has no `method` member.
 * @returns The classification.
 */
function invalid(id: JsonValue | undefined, reason: string, response: boolean): Classified {
  return { kind: "invalid", id: isRequestId(id) ? id : null, reason, response };
}

/**
 * A key for a request id that keeps its JSON type apart (`n:42` vs `s:42`). An integer beyond
 * ±2^53, which `JSON.parse` rounds, is keyed by its digits as written when they are given, so that
 * `12345678901234567890` and `12345678901234567891` are two requests, not one in use twice.
 *
 * Source: SPEC §3.1 ("the original id in its exact JSON type"; integers beyond ±2^53).
 * @param id - The id as parsed.
 * @param digits - For a number, its JSON text or exact digits (an integer literal), when known.
 * @returns A map key.
 * @example idKey(12345678901234567890, "12345678901234567890") // => "n:12345678901234567890"
 */
export function idKey(id: RequestId, digits?: string): string {
  if (typeof id === "string") return `s:${id}`;
  if (digits !== undefined && !Number.isSafeInteger(id) && INTEGER_TEXT.test(digits)) return `n:${digits}`;
  return `n:${id}`;
}

/** An integer literal of JSON (no fraction, no exponent). */
export const INTEGER_TEXT = /^-?[0-9]+$/;

/**
 * An error response with the given raw id text (kept exactly as the peer wrote it).
 * @param idText - The id as JSON text (`null` when unknown).
 * @param error - The error.
 * @returns The message text (no newline).
 */
export function errorResponseText(idText: string, error: RpcErrorObject): string {
  return `{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify(error)}}`;
}

/**
 * A result response with the given raw id text.
 * @param idText - The id as JSON text.
 * @param result - The result object.
 * @returns The message text.
 */
export function resultResponseText(idText: string, result: JsonValue): string {
  return `{"jsonrpc":"2.0","id":${idText},"result":${JSON.stringify(result)}}`;
}

/**
 * A request or notification text.
 * @param method - The method.
 * @param options - The id (omit for a notification) and params.
 * @returns The message text.
 */
export function requestText(
  method: string,
  options: { readonly id?: RequestId; readonly params?: JsonObject },
): string {
  const id = options.id === undefined ? "" : `,"id":${JSON.stringify(options.id)}`;
  const params = options.params === undefined ? "" : `,"params":${JSON.stringify(options.params)}`;
  return `{"jsonrpc":"2.0"${id},"method":${JSON.stringify(method)}${params}}`;
}
