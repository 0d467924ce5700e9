/**
 * Writes framed messages to a pipe: exactly one `\n` after each message, in order, with back-pressure
 * reported (so the relay can pause the other side instead of buffering without bound) and a broken
 * pipe reported once. Edge.
 *
 * Source: SPEC §3.3 ("exactly one `\n` is written per message", "broken pipe").
 * @module
 */

import type { Writable } from "node:stream";

/** Options of {@link MessageWriter}. */
export interface MessageWriterOptions {
  /** The pipe broke (EPIPE, closed): called once. */
  readonly onError?: (error: Error) => void;
  /** `true` when the pipe's buffer is full, `false` once it drained. */
  readonly onPressure?: (full: boolean) => void;
}

/**
 * A newline-framed message writer over a stream.
 *
 * Source: SPEC §3.3.
 */
export class MessageWriter {
  readonly #stream: Writable;
  readonly #options: MessageWriterOptions;
  #inFlight = 0;
  #waiters: (() => void)[] = [];
  #broken = false;
  #full = false;

  /**
   * @param stream - The pipe (Bouncer's stdout, or the upstream's stdin).
   * @param options - Error and back-pressure callbacks.
   */
  constructor(stream: Writable, options: MessageWriterOptions = {}) {
    this.#stream = stream;
    this.#options = options;
    stream.on("error", (error: Error) => this.#fail(error));
    stream.on("drain", () => {
      if (!this.#full) return;
      this.#full = false;
      this.#options.onPressure?.(false);
    });
  }

  /** Whether the pipe broke. */
  get broken(): boolean {
    return this.#broken;
  }

  /**
   * Writes one message followed by one `\n`. Ignored once the pipe broke.
   * @param text - The message, without a newline.
   */
  write(text: string): void {
    if (this.#broken || this.#stream.destroyed || this.#stream.writableEnded) return;
    this.#inFlight++;
    let ok: boolean;
    try {
      ok = this.#stream.write(`${text}\n`, (error) => {
        this.#inFlight--;
        if (error) this.#fail(error);
        this.#settle();
      });
    } catch (error) {
      this.#inFlight--;
      this.#fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (!ok && !this.#full) {
      this.#full = true;
      this.#options.onPressure?.(true);
    }
  }

  /**
   * Resolves once everything written so far has been handed to the OS (or the pipe broke).
   * @returns A promise that never rejects.
   */
  flush(): Promise<void> {
    if (this.#inFlight === 0 || this.#broken) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Wakes flush waiters when nothing is in flight. */
  #settle(): void {
    if ((this.#inFlight > 0 && !this.#broken) || this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Marks the pipe broken (once).
   * @param error - Why.
   */
  #fail(error: Error): void {
    if (this.#broken) return;
    this.#broken = true;
    this.#settle();
    this.#options.onError?.(error);
  }
}
