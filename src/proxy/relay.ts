/**
 * The relay: JSON-RPC messages between the client's stdio and the upstream's stdio, with ids
 * remapped in both directions, cancellations translated, progress routed by the client's own token,
 * and the interception points of {@link RelayHooks}. No I/O of its own — it is fed complete lines
 * and writes complete messages through the functions it is given — so it also runs without stdio in
 * unit tests (STYLE #24). This is the protocol state machine of `bouncer run`; the gated requests
 * (`initialize`, `tools/list`, `tools/call`) are in `intercept.ts`. Edge.
 *
 * Messages are forwarded as their original text with only the `id` replaced, except Bouncer's own
 * messages, translated cancellations, the `initialize` result (`tools.listChanged` added) and an
 * allowed `tools/call` (re-serialised with exactly the decided arguments).
 *
 * Source: SPEC §3.1, §3.2, §3.3; field cases F03, F07, F19, F20, F22.
 * @module
 */

import type { JsonObject } from "../engine/index.ts";
import { interceptRequest, type PendingClient, type RelayCore } from "./intercept.ts";
import { findIdSpan, scanTopLevel, spliceSpan } from "./json-scan.ts";
import {
  type Classified,
  classify,
  errorResponseText,
  idKey,
  isJsonObject,
  member,
  RPC_ERROR,
  type RpcErrorObject,
  requestText,
} from "./jsonrpc.ts";
import { isKnownMethod } from "./known-methods.ts";
import { Leg } from "./leg.ts";
import type { OversizedLine } from "./line-framer.ts";
import type {
  HooksFactory,
  NoiseReport,
  RelayContext,
  RelayHooks,
  SessionInfo,
  UpstreamFailure,
} from "./relay-hooks.ts";
import {
  internalError,
  outcomeOf,
  oversizedLineId,
  oversizeError,
  parseIdText,
  preview,
  progressTokenKey,
} from "./relay-support.ts";

/** A server-to-client request relayed to the client. */
interface PendingUpstream {
  /** The upstream's id, as it wrote it. */
  readonly idText: string;
  readonly tokenKey: string | undefined;
}

/** Options of {@link Relay}. */
export interface RelayOptions {
  /** Writes one message (no newline) to the client. */
  readonly sendToClient: (text: string) => void;
  /** Writes one message (no newline) to the upstream. */
  readonly sendToUpstream: (text: string) => void;
  /** Builds the interception hooks (gating, or pass-through in tests). */
  readonly createHooks: HooksFactory;
  /** `--unknown-methods` (default `relay`). */
  readonly unknownMethods?: "relay" | "deny";
  /** One diagnostic line to Bouncer's stderr. */
  readonly log?: (message: string) => void;
  /** The frame limit in use, for error messages (default 64 MiB). */
  readonly maxLineBytes?: number;
  /** A hook asked to end the session with an exit status. */
  readonly onEndRequested?: (exitCode: number) => void;
  /** A client request was answered with the upstream failure ("the client has been told"). */
  readonly onFailureReported?: () => void;
}

/**
 * The relay between one client and one upstream.
 *
 * Source: SPEC §3.1.
 * @example
 * const relay = new Relay({ sendToClient, sendToUpstream, createHooks: () => passThroughHooks() });
 * clientFramer = new LineFramer((line) => relay.receiveFromClient(line));
 */
export class Relay implements RelayCore {
  readonly hooks: RelayHooks;
  readonly context: RelayContext;
  readonly upstream: Leg<PendingClient>;
  readonly #client: Leg<PendingUpstream>;
  readonly #options: RelayOptions;
  readonly #pending = new Map<string, PendingClient>();
  /** Progress tokens of open client requests (token key → count). */
  readonly #clientTokens = new Map<string, number>();
  /** Progress tokens of open upstream requests. */
  readonly #upstreamTokens = new Set<string>();
  readonly #session: { clientInitialize?: JsonObject; upstreamInitialize?: JsonObject } = {};
  #failure: RpcErrorObject | undefined;
  readonly #backlog: (() => void | Promise<void>)[] = [];
  #busy = false;

  /**
   * @param options - Output functions, hooks factory and settings.
   */
  constructor(options: RelayOptions) {
    this.#options = options;
    this.upstream = new Leg((text) => this.sendUpstream(text));
    this.#client = new Leg((text) => this.sendClient(text));
    this.context = {
      requestClient: (method, params, opts) => this.#client.request(method, params, opts),
      requestUpstream: (method, params, opts) => this.upstream.request(method, params, opts),
      notifyClient: (method, params) => this.sendClient(requestText(method, { params })),
      notifyUpstream: (method, params) => this.sendUpstream(requestText(method, { params })),
      session: () => this.session(),
      endSession: (exitCode) => this.#options.onEndRequested?.(exitCode),
      log: (message) => this.log(message),
    };
    this.hooks = options.createHooks(this.context);
  }

  /** @returns The handshake so far. */
  session(): SessionInfo {
    const capabilities = member(this.#session.clientInitialize ?? {}, "capabilities");
    return {
      ...this.#session,
      clientElicitation: isJsonObject(capabilities) && isJsonObject(member(capabilities, "elicitation")),
    };
  }

  /** @returns The upstream failure every request is answered with, once the upstream is gone. */
  failure(): RpcErrorObject | undefined {
    return this.#failure;
  }

  /**
   * Records the client's `initialize` params and the upstream's result (for {@link session}).
   * @param which - Which side.
   * @param value - The params or result.
   */
  remember(which: "clientInitialize" | "upstreamInitialize", value: JsonObject): void {
    this.#session[which] = value;
  }

  /**
   * Handles one line from the client.
   *
   * Source: SPEC §3.1 (batches, id-less calls, unknown methods).
   * @param line - A complete line.
   */
  receiveFromClient(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#noise({ side: "client", kind: "not_json", bytes: line.length, preview: preview(line) });
      this.sendClient(
        errorResponseText("null", {
          code: RPC_ERROR.parseError,
          message: "Parse error: the line is not JSON",
        }),
      );
      return;
    }
    if (Array.isArray(value) || !isJsonObject(value)) {
      const batch = Array.isArray(value);
      this.#noise({
        side: "client",
        kind: batch ? "batch" : "invalid",
        bytes: line.length,
        preview: preview(line),
      });
      const message = batch ? "Invalid request: batches are not supported" : "Invalid request: not an object";
      this.sendClient(errorResponseText("null", { code: RPC_ERROR.invalidRequest, message }));
      return;
    }
    const message = classify(value);
    if (message.kind === "request") this.#clientRequest(message, line);
    else if (message.kind === "notification") this.#clientNotification(message, { line, value });
    else if (message.kind === "result" || message.kind === "error") this.#clientResponse(message, line);
    else {
      this.#noise({ side: "client", kind: "invalid", bytes: line.length, preview: preview(line) });
      const idText = message.id === null ? "null" : JSON.stringify(message.id);
      this.sendClient(
        errorResponseText(idText, {
          code: RPC_ERROR.invalidRequest,
          message: `Invalid request: ${message.reason}`,
        }),
      );
    }
  }

  /**
   * Handles one line from the upstream (in order, after earlier lines are fully handled).
   * @param line - A complete line.
   */
  receiveFromUpstream(line: string): void {
    this.#enqueue(() => this.#fromUpstream(line));
  }

  /**
   * A client line over the size limit was discarded: answer its request if its id is known.
   * @param line - The head and tail of the line.
   */
  clientOversize(line: OversizedLine): void {
    this.#noise({ side: "client", kind: "oversize", bytes: line.byteLength, preview: preview(line.head) });
    const { idText } = oversizedLineId(line);
    if (idText === undefined) return;
    const limit = this.#options.maxLineBytes === undefined ? {} : { limitBytes: this.#options.maxLineBytes };
    this.sendClient(errorResponseText(idText, oversizeError(line.byteLength, { side: "client", ...limit })));
  }

  /**
   * An upstream line over the size limit was discarded: the request it answered gets an error, or
   * every pending one when that cannot be known; the relay carries on.
   *
   * Source: SPEC §3.3.
   * @param line - The head and tail of the line.
   */
  upstreamOversize(line: OversizedLine): void {
    this.#enqueue(() => {
      this.#noise({
        side: "upstream",
        kind: "oversize",
        bytes: line.byteLength,
        preview: preview(line.head),
      });
      const limit =
        this.#options.maxLineBytes === undefined ? {} : { limitBytes: this.#options.maxLineBytes };
      const error = oversizeError(line.byteLength, { side: "upstream", ...limit });
      const { idText, hasMethod } = oversizedLineId(line);
      if (hasMethod) {
        if (idText !== undefined)
          this.sendUpstream(errorResponseText(idText, { ...error, code: RPC_ERROR.invalidRequest }));
        return;
      }
      const id = idText === undefined ? undefined : parseIdText(idText);
      if (id !== undefined) {
        const settled = this.upstream.settle(id, { kind: "error", error });
        if (settled.relayed !== undefined) this.answerError(settled.relayed, error);
        if (settled.found) return;
      }
      for (const pending of this.upstream.failAll(error)) this.answerError(pending, error);
    });
  }

  /**
   * The upstream is gone: every pending request gets the error, later ones too.
   *
   * Source: SPEC §3.3 ("Upstream exits"), F07.
   * @param failure - Message and data (exit code, stderr tail).
   * @returns How many client requests were answered with it.
   */
  upstreamGone(failure: UpstreamFailure): Promise<number> {
    return new Promise((resolve) => {
      this.#enqueue(() => {
        const error: RpcErrorObject = {
          code: RPC_ERROR.upstreamFailed,
          message: failure.message,
          data: failure.data,
        };
        this.#failure = error;
        this.#safely("onUpstreamExit", () => this.hooks.onUpstreamExit(failure));
        let told = 0;
        for (const pending of this.upstream.close(error)) if (this.answerError(pending, error)) told++;
        for (const pending of [...this.#pending.values()]) {
          pending.abort.abort();
          if (this.answerError(pending, error)) told++;
        }
        if (told > 0) this.#options.onFailureReported?.();
        resolve(told);
      });
    });
  }

  /**
   * The session ends: Bouncer's own requests fail and decisions in progress are aborted; answers to
   * requests already forwarded are still relayed while the upstream shuts down.
   */
  close(): void {
    const error = { code: RPC_ERROR.internalError, message: "Session ended" };
    this.#client.close(error);
    this.upstream.closeOwn(error);
    for (const pending of this.#pending.values()) if (pending.state !== "forwarded") pending.abort.abort();
  }

  /**
   * Registers a request from the client and routes it.
   * @param message - The classified request.
   * @param line - Its text.
   */
  #clientRequest(message: Classified & { readonly kind: "request" }, line: string): void {
    const top = scanTopLevel(line);
    const span = top?.members.get("id");
    if (top === undefined || span === undefined || top.duplicateKey) {
      const reason = "Invalid request: a top-level key is repeated";
      this.sendClient(
        errorResponseText(JSON.stringify(message.id), { code: RPC_ERROR.invalidRequest, message: reason }),
      );
      return;
    }
    const idText = line.slice(span.start, span.end);
    const key = idKey(message.id);
    if (this.#pending.has(key)) {
      const reason = `Invalid request: id ${idText} is already in use`;
      this.sendClient(errorResponseText(idText, { code: RPC_ERROR.invalidRequest, message: reason }));
      return;
    }
    if (this.#failure !== undefined) {
      this.sendClient(errorResponseText(idText, this.#failure));
      this.#options.onFailureReported?.();
      return;
    }
    if (this.#options.unknownMethods === "deny" && !isKnownMethod(message.method, "request")) {
      this.log(
        `Refused the client's unknown method ${JSON.stringify(message.method)} (--unknown-methods deny)`,
      );
      const error = { code: RPC_ERROR.methodNotFound, message: `Method not found: "${message.method}"` };
      this.sendClient(errorResponseText(idText, error));
      return;
    }
    const tokenKey = progressTokenKey(message.params, "meta");
    const pending: PendingClient = {
      id: message.id,
      key,
      idText,
      method: message.method,
      params: message.params,
      abort: new AbortController(),
      tokenKey,
      state: "held",
    };
    this.#pending.set(key, pending);
    if (tokenKey !== undefined) this.#clientTokens.set(tokenKey, (this.#clientTokens.get(tokenKey) ?? 0) + 1);
    const textFor = (legId: number): string => spliceSpan(line, span, String(legId));
    if (!interceptRequest(this, { pending, line, textFor })) this.forward(pending, textFor);
  }

  /**
   * Relays a client notification (cancellations translated, id-less calls dropped).
   * @param message - The classified notification.
   * @param raw - Its text and parsed value.
   */
  #clientNotification(
    message: Classified & { readonly kind: "notification" },
    raw: { readonly line: string; readonly value: JsonObject },
  ): void {
    const { method, params } = message;
    if (method === "tools/call") {
      this.log("Dropped a tools/call without an id (never forwarded)");
      this.#safely("onDroppedCall", () => this.hooks.onDroppedCall(raw.value));
      return;
    }
    if (this.#failure !== undefined) return;
    if (method === "notifications/cancelled") {
      this.#clientCancel(params);
      return;
    }
    if (method === "notifications/progress") {
      const token = progressTokenKey(params, "direct");
      if (token !== undefined && this.#upstreamTokens.has(token)) this.sendUpstream(raw.line);
      else this.log("Dropped a client progress notification with an unknown token");
      return;
    }
    if (this.#options.unknownMethods === "deny" && !isKnownMethod(method, "notification")) {
      this.log(
        `Dropped the client's unknown notification ${JSON.stringify(method)} (--unknown-methods deny)`,
      );
      return;
    }
    this.sendUpstream(raw.line);
    if (method === "notifications/initialized")
      this.#safely("onInitialized", () => this.hooks.onInitialized());
  }

  /**
   * Translates a client cancel: forwarded at once with the upstream's id, or the held decision is
   * aborted (nothing is forwarded). The request is answered no more.
   *
   * Source: SPEC §3.1, §3.4 ("A client cancel of the gated call withdraws Bouncer's elicitation"), F20.
   * @param params - The notification's params.
   */
  #clientCancel(params: JsonObject): void {
    const requestId = member(params, "requestId");
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const pending = this.#pending.get(idKey(requestId));
    if (pending === undefined) return;
    if (pending.state === "forwarded" && pending.legId !== undefined) {
      this.upstream.table.take(pending.legId);
      this.sendUpstream(
        requestText("notifications/cancelled", { params: { ...params, requestId: pending.legId } }),
      );
    }
    pending.abort.abort();
    this.finish(pending);
  }

  /**
   * Routes a client answer to a server-to-client request (or to Bouncer's own request).
   * @param message - The classified response.
   * @param line - Its text.
   */
  #clientResponse(message: Classified & { readonly kind: "result" | "error" }, line: string): void {
    if (message.id === null) {
      this.log(`The client sent an error without an id: ${preview(line)}`);
      return;
    }
    const settled = this.#client.settle(message.id, outcomeOf(message));
    const relayed = settled.relayed;
    if (relayed === undefined) return;
    if (relayed.tokenKey !== undefined) this.#upstreamTokens.delete(relayed.tokenKey);
    const span = findIdSpan(line);
    if (this.#failure === undefined && span !== undefined)
      this.sendUpstream(spliceSpan(line, span, relayed.idText));
  }

  /**
   * Parses and routes one upstream line (noise reported; a JSON message after a text prefix salvaged).
   * @param text - The line.
   * @returns A promise while a hook records an answer.
   */
  #fromUpstream(text: string): void | Promise<void> {
    let line = text;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const at = line.indexOf('{"jsonrpc"');
      const salvaged = at > 0 ? tryParse(line.slice(at)) : undefined;
      const kind = salvaged === undefined ? "not_json" : "salvaged";
      this.#noise({
        side: "upstream",
        kind,
        bytes: line.length,
        preview: preview(salvaged === undefined ? line : line.slice(0, at)),
      });
      if (salvaged === undefined) return;
      value = salvaged;
      line = line.slice(at);
    }
    if (Array.isArray(value)) {
      this.#noise({ side: "upstream", kind: "batch", bytes: line.length, preview: preview(line) });
      for (const element of value)
        if (isJsonObject(element))
          this.#enqueue(() => this.#upstreamMessage(element, JSON.stringify(element)));
      return;
    }
    if (!isJsonObject(value)) {
      this.#noise({ side: "upstream", kind: "invalid", bytes: line.length, preview: preview(line) });
      return;
    }
    return this.#upstreamMessage(value, line);
  }

  /**
   * Routes one parsed upstream message.
   * @param value - The message.
   * @param line - Its text.
   * @returns A promise while a hook records an answer.
   */
  #upstreamMessage(value: JsonObject, line: string): void | Promise<void> {
    const message = classify(value);
    if (message.kind === "result" || message.kind === "error") return this.#upstreamResponse(message, line);
    if (message.kind === "request") return this.#upstreamRequest(message, line);
    if (message.kind === "notification") return this.#upstreamNotification(message, line);
    this.#noise({ side: "upstream", kind: "invalid", bytes: line.length, preview: preview(line) });
    if (message.id !== null) {
      const error = { code: RPC_ERROR.invalidRequest, message: `Invalid request: ${message.reason}` };
      this.sendUpstream(errorResponseText(JSON.stringify(message.id), error));
    }
  }

  /**
   * Routes an upstream answer: Bouncer's own request settles; a relayed one is recorded by its hook,
   * then reaches the client with its original id. Late answers (cancelled requests) are dropped.
   * @param message - The classified response.
   * @param line - Its text.
   * @returns A promise while a hook records it.
   */
  #upstreamResponse(
    message: Classified & { readonly kind: "result" | "error" },
    line: string,
  ): void | Promise<void> {
    if (message.id === null) {
      this.log(`The upstream sent an error without an id: ${preview(line)}`);
      return;
    }
    const outcome = outcomeOf(message);
    const pending = this.upstream.settle(message.id, outcome).relayed;
    if (pending === undefined || pending.state === "done") return;
    const span = findIdSpan(line);
    const text = span === undefined ? line : spliceSpan(line, span, pending.idText);
    if (pending.method === "initialize") return this.#initializeAnswer(pending, { outcome, text });
    let recording: void | Promise<void>;
    try {
      recording =
        pending.call === undefined
          ? this.hooks.onUpstreamResult(
              {
                id: pending.id,
                method: pending.method,
                params: pending.params,
                signal: pending.abort.signal,
              },
              outcome,
            )
          : this.hooks.onToolResult(pending.call, outcome);
    } catch (error) {
      this.answerError(pending, internalError("cannot record the upstream's answer", error));
      return;
    }
    if (recording === undefined) {
      this.answer(pending, text);
      return;
    }
    return recording.then(
      () => void this.answer(pending, text),
      (error: unknown) =>
        void this.answerError(pending, internalError("cannot record the upstream's answer", error)),
    );
  }

  /**
   * The upstream's `initialize` answer: remembered, shown to the hook, and `tools.listChanged: true`
   * added for the client when the upstream has tools.
   *
   * Source: SPEC §3.2 step 2, F19.
   * @param pending - The client's initialize.
   * @param answer - The outcome and the answer's text with the client's id.
   */
  #initializeAnswer(
    pending: PendingClient,
    answer: { readonly outcome: ReturnType<typeof outcomeOf>; readonly text: string },
  ): void {
    const result = answer.outcome.kind === "result" ? answer.outcome.result : undefined;
    if (!isJsonObject(result)) {
      this.answer(pending, answer.text);
      return;
    }
    this.remember("upstreamInitialize", result);
    this.#safely("onInitializeResult", () => this.hooks.onInitializeResult(result));
    const capabilities = member(result, "capabilities");
    const tools = isJsonObject(capabilities) ? member(capabilities, "tools") : undefined;
    if (!isJsonObject(capabilities) || !isJsonObject(tools)) {
      this.answer(pending, answer.text);
      return;
    }
    const patched = { ...result, capabilities: { ...capabilities, tools: { ...tools, listChanged: true } } };
    this.answer(pending, `{"jsonrpc":"2.0","id":${pending.idText},"result":${JSON.stringify(patched)}}`);
  }

  /**
   * Relays a server-to-client request (sampling, elicitation, roots) with a Bouncer id.
   * @param message - The classified request.
   * @param line - Its text.
   */
  #upstreamRequest(message: Classified & { readonly kind: "request" }, line: string): void {
    const span = findIdSpan(line);
    const idText = span === undefined ? JSON.stringify(message.id) : line.slice(span.start, span.end);
    if (
      span === undefined ||
      (this.#options.unknownMethods === "deny" && !isKnownMethod(message.method, "request"))
    ) {
      this.log(`Refused the upstream's method ${JSON.stringify(message.method)} (--unknown-methods deny)`);
      const error = { code: RPC_ERROR.methodNotFound, message: `Method not found: "${message.method}"` };
      this.sendUpstream(errorResponseText(idText, error));
      return;
    }
    this.#safely("onUpstreamRequest", () =>
      this.hooks.onUpstreamRequest({ method: message.method, params: message.params }),
    );
    const tokenKey = progressTokenKey(message.params, "meta");
    const legId = this.#client.relay({ idText, tokenKey }, idKey(message.id));
    if (tokenKey !== undefined) this.#upstreamTokens.add(tokenKey);
    this.sendClient(spliceSpan(line, span, String(legId)));
  }

  /**
   * Relays an upstream notification (cancellations translated, progress only for open tokens).
   * @param message - The classified notification.
   * @param line - Its text.
   */
  #upstreamNotification(message: Classified & { readonly kind: "notification" }, line: string): void {
    const { method, params } = message;
    if (method === "notifications/cancelled") {
      const requestId = member(params, "requestId");
      if (typeof requestId !== "string" && typeof requestId !== "number") return;
      const legId = this.#client.table.idForOrigin(idKey(requestId));
      if (legId === undefined) return;
      const entry = this.#client.table.take(legId);
      if (entry?.kind === "relay" && entry.value.tokenKey !== undefined)
        this.#upstreamTokens.delete(entry.value.tokenKey);
      this.sendClient(requestText(method, { params: { ...params, requestId: legId } }));
      return;
    }
    if (method === "notifications/progress") {
      const token = progressTokenKey(params, "direct");
      if (token !== undefined && this.#clientTokens.has(token)) this.sendClient(line);
      else this.log("Dropped an upstream progress notification with an unknown token");
      return;
    }
    if (method === "notifications/tools/list_changed") {
      this.#safely("onToolsListChanged", () => this.hooks.onToolsListChanged());
    } else if (this.#options.unknownMethods === "deny" && !isKnownMethod(method, "notification")) {
      this.log(
        `Dropped the upstream's unknown notification ${JSON.stringify(method)} (--unknown-methods deny)`,
      );
      return;
    }
    this.sendClient(line);
  }

  /**
   * Forwards a client request to the upstream with a fresh id (or answers the upstream failure).
   * @param pending - The request.
   * @param textFor - Its text for a given upstream id.
   */
  forward(pending: PendingClient, textFor: (legId: number) => string): void {
    if (pending.state === "done") return;
    if (this.#failure !== undefined) {
      if (this.answerError(pending, this.#failure)) this.#options.onFailureReported?.();
      return;
    }
    const legId = this.upstream.relay(pending, pending.key);
    pending.state = "forwarded";
    pending.legId = legId;
    this.sendUpstream(textFor(legId));
  }

  /**
   * Answers a client request (once; nothing after a cancel).
   * @param pending - The request.
   * @param text - The response text.
   * @returns Whether it was sent.
   */
  answer(pending: PendingClient, text: string): boolean {
    if (pending.state === "done") return false;
    this.finish(pending);
    this.sendClient(text);
    return true;
  }

  /**
   * Answers a client request with an error.
   * @param pending - The request.
   * @param error - The error.
   * @returns Whether it was sent.
   */
  answerError(pending: PendingClient, error: RpcErrorObject): boolean {
    return this.answer(pending, errorResponseText(pending.idText, error));
  }

  /**
   * Marks a client request done and forgets it.
   * @param pending - The request.
   */
  finish(pending: PendingClient): void {
    pending.state = "done";
    if (this.#pending.get(pending.key) === pending) this.#pending.delete(pending.key);
    const token = pending.tokenKey;
    if (token === undefined) return;
    const count = (this.#clientTokens.get(token) ?? 1) - 1;
    if (count <= 0) this.#clientTokens.delete(token);
    else this.#clientTokens.set(token, count);
  }

  /**
   * Writes to the client.
   * @param text - One message.
   */
  sendClient(text: string): void {
    this.#options.sendToClient(text);
  }

  /**
   * Writes to the upstream (nothing once it is gone).
   * @param text - One message.
   */
  sendUpstream(text: string): void {
    if (this.#failure === undefined) this.#options.sendToUpstream(text);
  }

  /**
   * Logs a diagnostic line.
   * @param message - The line.
   */
  log(message: string): void {
    this.#options.log?.(message);
  }

  /**
   * Reports noise to stderr and to the hook.
   * @param noise - What was seen.
   */
  #noise(noise: NoiseReport): void {
    const what = {
      not_json: "a line that is not JSON",
      salvaged: "text before a JSON message",
      oversize: "an over-long line",
      batch: "a batch",
      invalid: "an invalid message",
    }[noise.kind];
    this.log(`The ${noise.side} wrote ${what} (${noise.bytes} characters): ${noise.preview}`);
    this.#safely("onNoise", () => this.hooks.onNoise(noise));
  }

  /**
   * Runs a hook that must not throw; a throw is logged.
   * @param name - The hook, for the log.
   * @param run - The call.
   */
  #safely(name: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.log(`Hook ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Queues upstream work so that messages are handled in order even when a hook records
   * asynchronously.
   * @param task - The work.
   */
  #enqueue(task: () => void | Promise<void>): void {
    this.#backlog.push(task);
    if (!this.#busy) void this.#pump();
  }

  /** Runs queued upstream work in order. Never rejects. */
  async #pump(): Promise<void> {
    this.#busy = true;
    try {
      for (let task = this.#backlog.shift(); task !== undefined; task = this.#backlog.shift()) {
        try {
          const running = task();
          if (running !== undefined) await running;
        } catch (error) {
          this.log(
            `Internal error while relaying an upstream message: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    } finally {
      this.#busy = false;
    }
  }
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
