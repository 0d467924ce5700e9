/**
 * The interception points of the relay, as an interface the gating code implements, plus a
 * pass-through implementation. The relay calls these hooks and nothing else decides: a hook may
 * answer a `tools/call` or `tools/list` itself, hold calls until the tool walk is done, record what
 * reaches the model, and send Bouncer's own requests to the client or the upstream through the
 * {@link RelayContext} it is created with. Edge (types and a trivial default).
 *
 * Source: SPEC §3.1 ("Interception points, and nothing else"), §3.2, §3.3.
 * @module
 */

import type { JsonObject, JsonValue } from "../engine/index.ts";
import type { RequestId, RpcErrorObject } from "./jsonrpc.ts";
import type { AbortWhy } from "./relay-support.ts";
import type { StrictJsonReport } from "./strict-json.ts";

/** How a request was answered by its peer. */
export type RpcOutcome = (
  | { readonly kind: "result"; readonly result: JsonValue }
  | { readonly kind: "error"; readonly error: RpcErrorObject }
) & {
  /**
   * For an upstream answer: the message as the upstream wrote it (parsed) — what the client receives,
   * extra members and an error's own shape included (`error` above is its classified reading).
   */
  readonly message?: JsonObject;
  /**
   * For an upstream answer holding integers beyond ±2^53: the message with each of them as the
   * string of its digits (`message` holds them rounded), which a client whose parser keeps every
   * digit shows the model. Recorded too (SPEC §2.5).
   */
  readonly exact?: JsonObject;
};

/**
 * A request or notification of the upstream's own: its method and params as classified (params
 * that are not an object read as `{}`), and the message as the upstream wrote it (parsed), which is
 * what the client receives.
 */
export interface UpstreamMessage {
  readonly method: string;
  readonly params: JsonObject;
  readonly message: JsonObject;
  /** The message with its integers beyond ±2^53 as their digits, when it holds any (see {@link RpcOutcome}). */
  readonly exact?: JsonObject;
}

/** A client request as hooks see it (ids are the client's own). */
export interface ClientRequestInfo {
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject;
  /** Aborted when the client cancels this request (`notifications/cancelled`). */
  readonly signal: AbortSignal;
  /**
   * Why the request was aborted — the client cancelled it, the session ended, the upstream is gone
   * — or undefined while it is not (reading it makes no signal).
   */
  readonly abortedBy?: AbortWhy | undefined;
}

/** A client `tools/call`, parsed, with the strict-JSON report of its text. */
export interface ToolCallRequest extends ClientRequestInfo {
  readonly name: string;
  /** The arguments as parsed (`{}` when absent). */
  readonly arguments: JsonObject;
  /** Duplicate keys at any depth or integers beyond ±2^53 in the message (SPEC §3.1: deny). */
  readonly strict: StrictJsonReport;
  /** The client's `_meta.progressToken`, when given. */
  readonly progressToken?: string | number;
}

/** What to do with a client `tools/call`. */
export type ToolCallDecision =
  /**
   * Forward, re-serialised with exactly these arguments; or, `verbatim`, as the client's own bytes
   * (id spliced): `--mode audit` changes nothing it forwards (SPEC §3.8).
   */
  | { readonly kind: "forward"; readonly arguments: JsonObject; readonly verbatim?: true }
  /** Answer the client with this result (e.g. `isError: true`, `[bouncer blocked] …`). */
  | { readonly kind: "result"; readonly result: JsonObject }
  /** Answer the client with this JSON-RPC error. */
  | { readonly kind: "error"; readonly error: RpcErrorObject };

/** What to do with a client `tools/list`. */
export type ToolsListDecision =
  | { readonly kind: "forward" }
  | { readonly kind: "result"; readonly result: JsonObject }
  | { readonly kind: "error"; readonly error: RpcErrorObject };

/** What to do with the client's `initialize`. */
export type InitializeDecision =
  | { readonly kind: "forward" }
  /** Refuse the session (e.g. an invalid policy): answer with this error, then exit with `exitCode`. */
  | { readonly kind: "error"; readonly error: RpcErrorObject; readonly exitCode: number };

/** Something on a pipe that was not a usable JSON-RPC message. */
export interface NoiseReport {
  readonly side: "client" | "upstream";
  /**
   * `not_json`; `salvaged` (a JSON message after a text prefix, delivered); `glued` (two or more
   * messages on one line, each delivered); `oversize`; `batch`; `invalid`.
   */
  readonly kind: "not_json" | "salvaged" | "glued" | "oversize" | "batch" | "invalid";
  readonly bytes: number;
  /** The first characters, as a JSON string literal (safe to print). */
  readonly preview: string;
}

/** The upstream is gone (or could not be started). */
export interface UpstreamFailure {
  /** E.g. `Upstream "fs" exited (code 1)`. */
  readonly message: string;
  /** Exit code, signal, stderr tail; or the command and PATH searched. */
  readonly data: JsonObject;
}

/** Why the session ends. */
export type ShutdownReason =
  | "client_closed"
  | "broken_pipe"
  | "parent_gone"
  | "signal"
  | "upstream_exit"
  | "session_ended";

/** Options of a request Bouncer sends itself. */
export interface OwnRequestOptions {
  /** Aborting sends `notifications/cancelled` for the request and rejects the promise. */
  readonly signal?: AbortSignal;
}

/** What the client and upstream said in the handshake. */
export interface SessionInfo {
  /** The client's `initialize` params, once received. */
  readonly clientInitialize?: JsonObject;
  /** The upstream's `initialize` result, once received. */
  readonly upstreamInitialize?: JsonObject;
  /** Whether the client declared `capabilities.elicitation`. */
  readonly clientElicitation: boolean;
}

/** What hooks can do: Bouncer's own requests and notifications, and the session's facts. */
export interface RelayContext {
  /**
   * Sends Bouncer's own request to the client (e.g. `elicitation/create`).
   * @returns The result; rejects with `RpcError` on an error answer, or when aborted or the session ends.
   */
  requestClient(method: string, params: JsonObject, options?: OwnRequestOptions): Promise<JsonValue>;
  /** Sends Bouncer's own request to the upstream (e.g. the `tools/list` walk). */
  requestUpstream(method: string, params: JsonObject, options?: OwnRequestOptions): Promise<JsonValue>;
  /** Sends a notification to the client (e.g. `notifications/tools/list_changed`, progress). */
  notifyClient(method: string, params: JsonObject): void;
  /** Sends a notification to the upstream. */
  notifyUpstream(method: string, params: JsonObject): void;
  /** The handshake so far. */
  session(): SessionInfo;
  /** Ends the session after pending output is written, with this exit status. */
  endSession(exitCode: number): void;
  /** Writes one diagnostic line to Bouncer's stderr (never stdout). */
  log(message: string): void;
}

/**
 * The interception points (SPEC §3.1). Every method may be called concurrently for different
 * requests; none may throw for an expected outcome (a throw or rejection is answered as a Bouncer
 * internal error, -32603, and nothing is forwarded).
 */
export interface RelayHooks {
  /** The client's `initialize` request; forwarded unchanged unless refused. */
  onClientInitialize(request: ClientRequestInfo): InitializeDecision | Promise<InitializeDecision>;
  /** The upstream's `initialize` result (before `tools.listChanged` is added for the client). */
  onInitializeResult(result: JsonObject): void;
  /** After `notifications/initialized` was relayed: the walk may start here. */
  onInitialized(): void;
  /** Client `tools/list` and `tools/call` wait for this before their hooks run (re-read per request). */
  whenReady(): Promise<void>;
  /** A client `tools/list`, after {@link whenReady}. */
  onToolsList(request: ClientRequestInfo): Promise<ToolsListDecision>;
  /** A client `tools/call`, after {@link whenReady}: the decision. */
  onToolCall(call: ToolCallRequest): Promise<ToolCallDecision>;
  /** The upstream's answer to a forwarded call, before the client sees it (record it as untrusted). */
  onToolResult(call: ToolCallRequest, outcome: RpcOutcome): void | Promise<void>;
  /** The upstream's answer to any other relayed client request (resources/read, prompts/get, …). */
  onUpstreamResult(request: ClientRequestInfo, outcome: RpcOutcome): void | Promise<void>;
  /** A server-to-client request (sampling, elicitation, roots) about to be relayed; observe only. */
  onUpstreamRequest(request: UpstreamMessage): void;
  /**
   * The client's answer to a relayed server-to-client request (its method as the upstream sent it),
   * before the upstream gets it; observe only. A throw sends the upstream an error in its place.
   */
  onClientAnswer(request: { readonly method: string }, outcome: RpcOutcome): void;
  /**
   * An upstream notification about to be relayed to the client (logging, progress of a forwarded
   * request, task status, list changes, a cancellation, …); observe only. A throw drops it.
   */
  onUpstreamNotification(notification: UpstreamMessage): void;
  /** The upstream sent `notifications/tools/list_changed` (relayed to the client right after). */
  onToolsListChanged(): void;
  /** A client `tools/call` without an id: dropped, never forwarded (audit it). */
  onDroppedCall(message: JsonObject): void;
  /** A line that was not a usable message (audit it as noise). */
  onNoise(noise: NoiseReport): void;
  /** The upstream is gone; every pending request has been or is being answered with an error. */
  onUpstreamExit(failure: UpstreamFailure): void;
  /** The session ends: flush what must be written (the audit log). Bounded by the caller. */
  onShutdown(reason: ShutdownReason): Promise<void>;
}

/** Builds the hooks for one session, given what they may do. */
export type HooksFactory = (context: RelayContext) => RelayHooks;

/**
 * Hooks that relay everything and record nothing: calls are forwarded with their arguments as parsed.
 * For tests of the relay and as the base that gating hooks override. Never used by `bouncer run`
 * on its own (SPEC: never run ungated).
 *
 * Source: SPEC §3.1.
 * @returns The pass-through hooks.
 */
export function passThroughHooks(): RelayHooks {
  return {
    onClientInitialize: () => ({ kind: "forward" }),
    onInitializeResult: () => {},
    onInitialized: () => {},
    whenReady: () => Promise.resolve(),
    onToolsList: () => Promise.resolve({ kind: "forward" }),
    onToolCall: (call) => Promise.resolve({ kind: "forward", arguments: call.arguments }),
    onToolResult: () => {},
    onUpstreamResult: () => {},
    onUpstreamRequest: () => {},
    onClientAnswer: () => {},
    onUpstreamNotification: () => {},
    onToolsListChanged: () => {},
    onDroppedCall: () => {},
    onNoise: () => {},
    onUpstreamExit: () => {},
    onShutdown: () => Promise.resolve(),
  };
}
