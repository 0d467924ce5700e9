/**
 * What `bouncer run` does while the upstream does not read its input: the client's input is read on
 * (so that its end is seen, SPEC §3.3: a client that fills the pipe and closes its stdin is not left
 * waiting), the messages for the upstream wait in its pipe's buffer up to a limit, and past it new
 * client requests are refused at once (and Bouncer's own answers to the upstream's messages dropped,
 * `RelayCore.replyUpstream`) until the upstream has read its backlog. Only when the client
 * does not read its answers either is the client's input paused (nothing can move, and nothing grows).
 * Edge.
 *
 * Source: SPEC §3.3 ("never a hang"; stdin EOF ends the session).
 * @module
 */

import { RPC_ERROR, type RpcErrorObject } from "./jsonrpc.ts";

/** Characters written to an upstream whose input is full before new client requests are refused. */
export const BACKLOG_LIMIT_CHARS = 16 * 1024 * 1024;

/** Options of {@link UpstreamBacklog}. */
export interface UpstreamBacklogOptions {
  /** Starts (an error) or stops (undefined) refusing new client requests (`RelayCore.refuseRequests`). */
  readonly refuse: (error: RpcErrorObject | undefined) => void;
  /** Pauses (true) or resumes (false) reading the client's input. */
  readonly pauseClient: (paused: boolean) => void;
  /** A diagnostic line. */
  readonly log: (message: string) => void;
  /** The limit (default {@link BACKLOG_LIMIT_CHARS}). */
  readonly limitChars?: number;
}

/**
 * The backlog of messages for the upstream, and the client's input flow.
 *
 * Source: SPEC §3.3.
 */
export class UpstreamBacklog {
  readonly #options: UpstreamBacklogOptions;
  readonly #limit: number;
  /** Whether the upstream's input pipe is full. */
  #upstreamFull = false;
  /** Whether the client's output pipe is full. */
  #clientFull = false;
  /** Characters written to the upstream since its input became full. */
  #chars = 0;
  #refusing = false;
  #paused = false;

  /**
   * @param options - What to call, and the limit.
   */
  constructor(options: UpstreamBacklogOptions) {
    this.#options = options;
    this.#limit = options.limitChars ?? BACKLOG_LIMIT_CHARS;
  }

  /**
   * Counts a message written to the upstream; past the limit while its input is full, new client
   * requests are refused.
   * @param text - The message.
   */
  written(text: string): void {
    if (!this.#upstreamFull || this.#refusing) return;
    this.#chars += text.length;
    if (this.#chars <= this.#limit) return;
    this.#refusing = true;
    const mib = Math.round(this.#limit / (1024 * 1024));
    const message = `The upstream is not reading its input (over ${mib} MiB waiting): the request was not forwarded`;
    this.#options.log(`${message}; new requests are refused until it reads`);
    this.#options.refuse({ code: RPC_ERROR.upstreamFailed, message });
    this.#flow();
  }

  /**
   * The upstream's input pipe filled (true) or drained (false): a drain ends the refusal.
   * @param full - Its state.
   */
  upstreamPressure(full: boolean): void {
    this.#upstreamFull = full;
    if (full) return;
    this.#chars = 0;
    if (!this.#refusing) return;
    this.#refusing = false;
    this.#options.log("The upstream reads its input again: requests are forwarded");
    this.#options.refuse(undefined);
    this.#flow();
  }

  /**
   * The client's output pipe filled (true) or drained (false).
   * @param full - Its state.
   */
  clientPressure(full: boolean): void {
    this.#clientFull = full;
    this.#flow();
  }

  /** Pauses the client's input only while neither side reads what Bouncer has for it. */
  #flow(): void {
    const paused = this.#clientFull && this.#refusing;
    if (paused === this.#paused) return;
    this.#paused = paused;
    this.#options.pauseClient(paused);
  }
}
