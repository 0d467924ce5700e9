/**
 * The state of one relay session and the operations both directions share: the two outgoing legs
 * (ids), the client requests not answered yet, open progress tokens, the handshake, the upstream
 * failure, and the ordered queue of upstream work (run by `work-queue.ts`). `from-client.ts`,
 * `from-upstream.ts` and `intercept.ts` operate on it; {@link Relay} (relay.ts) is its public face;
 * the records it keeps and its options are declared in `relay-types.ts`. Edge.
 *
 * Source: SPEC §3.1, §3.3.
 * @module
 */

import type { JsonObject } from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import { privateKeyLines } from "../platform/private-key-lines.ts";
import { heldChars } from "./from-upstream-own.ts";
import {
  errorResponseText,
  isJsonObject,
  member,
  RPC_ERROR,
  type RpcErrorObject,
  requestText,
} from "./jsonrpc.ts";
import { Leg } from "./leg.ts";
import type { NoiseReport, RelayContext, RelayHooks, SessionInfo } from "./relay-hooks.ts";
import { hiddenPreview } from "./relay-support.ts";
import type { PendingClient, PendingUpstream, RelayOptions } from "./relay-types.ts";
import { WorkQueue, type WorkTask } from "./work-queue.ts";

/**
 * Noise as it is seen: the report without its preview, and the text the preview is made from (the
 * line, an over-long line's head, a salvaged line's prefix), whole: {@link RelayCore.noise} hides
 * the upstream's secrets in it before it cuts it.
 */
export type NoiseSeen = Omit<NoiseReport, "preview"> & { readonly text: string };

/** What noise kinds are called in logs. */
const NOISE_NAMES: Readonly<Record<NoiseReport["kind"], string>> = {
  not_json: "a line that is not JSON",
  salvaged: "text before a JSON message",
  glued: "several messages on one line",
  oversize: "an over-long line",
  batch: "a batch",
  invalid: "an invalid message",
};

/**
 * One relay session's state and shared operations.
 *
 * Source: SPEC §3.1.
 */
export class RelayCore {
  readonly options: RelayOptions;
  readonly hooks: RelayHooks;
  readonly context: RelayContext;
  /** Bouncer → upstream: relayed client requests and Bouncer's own requests. */
  readonly upstream: Leg<PendingClient>;
  /** Bouncer → client: relayed upstream requests and Bouncer's own requests. */
  readonly client: Leg<PendingUpstream>;
  /** Client requests not answered yet, by `idKey`. */
  readonly pending = new Map<string, PendingClient>();
  /** Progress tokens of client requests forwarded and not answered yet (token key → count). */
  readonly clientTokens = new Map<string, number>();
  /** Progress tokens of open upstream requests. */
  readonly upstreamTokens = new Set<string>();
  readonly #session: { clientInitialize?: JsonObject; upstreamInitialize?: JsonObject } = {};
  #failure: RpcErrorObject | undefined;
  #refusal: RpcErrorObject | undefined;
  /** Client notifications dropped while refusing. */
  droppedWhileRefusing = 0;
  readonly #work = new WorkQueue((error) => {
    const detail = errorText(error);
    this.log(`Internal error while relaying an upstream message: ${detail}`);
  });
  /** Bouncer's answers to the upstream's own messages dropped while refusing. */
  #repliesDropped = 0;
  /** PEM private keys the upstream writes on stdout line by line, a line of noise each. */
  readonly #upstreamKeys = privateKeyLines();

  /**
   * @param options - Output functions, hooks factory and settings.
   */
  constructor(options: RelayOptions) {
    this.options = options;
    this.upstream = new Leg((text) => this.sendUpstream(text));
    // Its relayed entries are weighed as they come and go: the bound on them is checked per request.
    this.client = new Leg((text) => this.sendClient(text), { weigh: heldChars });
    this.context = {
      requestClient: (method, params, opts) => this.client.request(method, params, opts),
      requestUpstream: (method, params, opts) => this.upstream.request(method, params, opts),
      notifyClient: (method, params) => this.sendClient(requestText(method, { params })),
      notifyUpstream: (method, params) => this.sendUpstream(requestText(method, { params })),
      session: () => this.session(),
      endSession: (exitCode) => this.options.onEndRequested?.(exitCode),
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

  /**
   * Records the client's `initialize` params or the upstream's result (for {@link session}).
   * @param which - Which side.
   * @param value - The params or result.
   */
  remember(which: "clientInitialize" | "upstreamInitialize", value: JsonObject): void {
    this.#session[which] = value;
  }

  /** @returns The error every request is answered with once the upstream is gone. */
  failure(): RpcErrorObject | undefined {
    return this.#failure;
  }

  /**
   * Marks the upstream gone (nothing is written to it any more).
   * @param error - The error later requests get.
   */
  fail(error: RpcErrorObject): void {
    this.#failure = error;
  }

  /**
   * @returns The error new client requests get at once while the upstream's input is backed up past
   *   its limit (its notifications other than cancellations are dropped meanwhile), if it is.
   */
  refusal(): RpcErrorObject | undefined {
    return this.#refusal;
  }

  /**
   * Starts refusing new client requests with an error, or stops (the upstream read its backlog):
   * then says how many client notifications, and how many of Bouncer's answers to the upstream's own
   * messages ({@link replyUpstream}), were dropped meanwhile.
   *
   * Source: SPEC §3.3 ("never a hang": the client's input is read on, its end seen), §7 (memory).
   * @param error - The error, or undefined to stop.
   */
  refuseRequests(error: RpcErrorObject | undefined): void {
    this.#refusal = error;
    if (error !== undefined) return;
    const why = "while the upstream was not reading its input";
    if (this.droppedWhileRefusing > 0)
      this.log(`Dropped ${this.droppedWhileRefusing} client notification(s) ${why}`);
    if (this.#repliesDropped > 0)
      this.log(`Dropped ${this.#repliesDropped} answer(s) to the upstream's own messages ${why}`);
    this.droppedWhileRefusing = 0;
    this.#repliesDropped = 0;
  }

  /**
   * Forwards a client request to the upstream with a fresh id (or answers the upstream failure).
   * @param pending - The request.
   * @param textFor - Its text for a given upstream id.
   */
  forward(pending: PendingClient, textFor: (legId: number) => string): void {
    if (pending.state === "done") return;
    if (this.#failure !== undefined) {
      if (this.answerError(pending, this.#failure)) this.options.onFailureReported?.();
      return;
    }
    if (this.options.upstreamOpen?.() === false) {
      this.answerUnforwarded(pending);
      return;
    }
    const legId = this.upstream.relay(pending, pending.key);
    pending.state = "forwarded";
    pending.legId = legId;
    const index = this.options.nextUpstreamMessage?.();
    if (index !== undefined) pending.upstreamMessage = index;
    // Progress on a token counts from here: the upstream never saw a held request (SPEC §3.1).
    const token = pending.tokenKey;
    if (token !== undefined) this.clientTokens.set(token, (this.clientTokens.get(token) ?? 0) + 1);
    this.sendUpstream(textFor(legId));
  }

  /**
   * Answers a request the upstream cannot get (its input closed, usually because it is exiting): its
   * exit, reported in a moment, answers every pending request with the exit code (SPEC §3.3); only if
   * none comes within `failureWaitMs`, a bare error.
   * @param pending - The request.
   */
  answerUnforwarded(pending: PendingClient): void {
    const timer = setTimeout(() => {
      const message = "Session ended before the request could be forwarded";
      this.answerError(pending, this.#failure ?? { code: RPC_ERROR.internalError, message });
    }, this.options.failureWaitMs ?? 2000);
    timer.unref?.();
  }

  /**
   * The upstream's input was found closed: the requests whose messages did not reach it are answered
   * as unforwarded (those written before may still be answered), and Bouncer's own requests to it
   * fail, now and later.
   *
   * Source: SPEC §3.3 ("never a hang"); README Limits (an upstream that closes its stdin).
   * @param firstUndelivered - The index of the first message that did not reach it.
   */
  upstreamInputLost(firstUndelivered: number): void {
    this.upstream.closeOwn({ code: RPC_ERROR.internalError, message: "The upstream's input is closed" });
    for (const pending of this.pending.values()) {
      const index = pending.upstreamMessage;
      if (pending.state !== "forwarded" || index === undefined || index < firstUndelivered) continue;
      if (pending.legId !== undefined) this.upstream.table.take(pending.legId);
      this.answerUnforwarded(pending);
    }
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
    const forwarded = pending.state === "forwarded";
    pending.state = "done";
    if (this.pending.get(pending.key) === pending) this.pending.delete(pending.key);
    const token = pending.tokenKey;
    if (token === undefined || !forwarded) return;
    const count = (this.clientTokens.get(token) ?? 1) - 1;
    if (count <= 0) this.clientTokens.delete(token);
    else this.clientTokens.set(token, count);
  }

  /**
   * Writes to the client.
   * @param text - One message.
   */
  sendClient(text: string): void {
    this.options.sendToClient(text);
  }

  /**
   * Writes to the upstream (nothing once it is gone).
   * @param text - One message.
   */
  sendUpstream(text: string): void {
    if (this.#failure === undefined) this.options.sendToUpstream(text);
  }

  /**
   * Writes Bouncer's answer to one of the upstream's own messages (an error for an invalid or refused
   * request), unless new client requests are refused because the upstream does not read its input
   * ({@link refusal}): then it is dropped and counted, so that an upstream flooding requests it does
   * not read the answers to cannot grow Bouncer. That request of the upstream goes unanswered.
   *
   * Source: SPEC §3.3 (fail closed), §7 (memory).
   * @param text - One message.
   */
  replyUpstream(text: string): void {
    if (this.#refusal === undefined) this.sendUpstream(text);
    else this.#repliesDropped++;
  }

  /**
   * Logs a diagnostic line.
   * @param message - The line.
   */
  log(message: string): void {
    this.options.log?.(message);
  }

  /**
   * A preview of text the upstream wrote, for a diagnostic line: its secrets hidden before it is cut
   * ({@link hiddenPreview}, with the upstream's stderr redaction).
   *
   * Source: SPEC §3.5; review s18 finding B2.
   * @param text - A line or message of the upstream.
   * @returns A printable preview.
   */
  upstreamPreview(text: string): string {
    return hiddenPreview(text, this.options.hideUpstreamSecrets);
  }

  /**
   * Reports noise to stderr and to the hook, its preview made here: the upstream's with its
   * secrets hidden before the preview is cut ({@link hiddenPreview}), the client's as written.
   *
   * Source: SPEC §3.5; review s18 finding B3 (the cut came first and halved a secret); the
   * noise review (a PEM private key's body written on stdout, one line of noise each, was shown).
   * @param seen - What was seen, with the text it is previewed from.
   */
  noise(seen: NoiseSeen): void {
    const { text, ...rest } = seen;
    const hide = seen.side === "upstream" ? this.options.hideUpstreamSecrets : undefined;
    // A key's body after its BEGIN line is a line of noise each: hidden as the stderr drain hides it.
    const shown = hide === undefined ? text : this.#upstreamKeys.hide(text);
    const noise: NoiseReport = { ...rest, preview: hiddenPreview(shown, hide) };
    this.log(
      `The ${noise.side} wrote ${NOISE_NAMES[noise.kind]} (${noise.bytes} characters): ${noise.preview}`,
    );
    this.safely("onNoise", () => this.hooks.onNoise(noise));
  }

  /**
   * Runs a hook that must not throw; a throw is logged.
   * @param name - The hook, for the log.
   * @param run - The call.
   */
  safely(name: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.log(`Hook ${name} failed: ${errorText(error)}`);
    }
  }

  /**
   * Queues upstream work so that messages are handled in order even when a hook records
   * asynchronously (a failure is logged).
   * @param task - The work.
   */
  enqueue(task: WorkTask): void {
    this.#work.push(task);
  }
}
