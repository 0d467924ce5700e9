/**
 * Writes framed messages to a pipe: exactly one `\n` after each message, in order, with back-pressure
 * reported (so the relay can pause the other side instead of buffering without bound) and a broken
 * pipe reported once. While the relay has several requests in flight (the `batch` option), messages
 * written in one turn of the event loop leave together in one write at the end of the turn, instead
 * of one write each (SPEC §7: 8 concurrent callers); a lone message is written at once. Edge.
 *
 * Source: SPEC §3.3 ("exactly one `\n` is written per message", "broken pipe").
 * @module
 */

import type { Writable } from "node:stream";

/** A message this long (UTF-16 code units, newline included) or longer is written on its own. */
export const BATCH_MAX_CHARS = 64 * 1024;

/** Waiting messages are sent before their total would pass this (UTF-16 code units). */
const BATCH_MAX_TOTAL_CHARS = 1024 * 1024;

/** Options of {@link MessageWriter}. */
export interface MessageWriterOptions {
  /** The pipe broke (EPIPE, closed): called once. */
  readonly onError?: (error: Error) => void;
  /** `true` when the pipe's buffer is full, `false` once it drained. */
  readonly onPressure?: (full: boolean) => void;
  /**
   * Asked on each write: true when more messages are likely this turn (several requests in flight),
   * so the message waits for the end of the turn and leaves with the others. Default: never.
   */
  readonly batch?: () => boolean;
  /**
   * Called after each write is handed to the stream, for a stream that can report success for bytes
   * the OS refused (Bun's child stdin, where a small write into a closed pipe "succeeds"): pushes
   * them to the OS now and returns the error it met, or a promise that rejects with it.
   */
  readonly confirm?: () => Error | Promise<unknown> | undefined;
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
  /** Messages waiting for the end of this turn, each with its newline. */
  #queued: string[] = [];
  /** Their total length (UTF-16 code units). */
  #queuedChars = 0;
  /** The index of the first of them (see {@link written}). */
  #queuedFrom = 0;
  /** Messages given to {@link write} so far. */
  #written = 0;
  /** The index of the first message that did not reach the stream's OS end, once one failed. */
  #firstUndelivered: number | undefined;

  /**
   * @param stream - The pipe (Bouncer's stdout, or the upstream's stdin).
   * @param options - Error and back-pressure callbacks.
   */
  constructor(stream: Writable, options: MessageWriterOptions = {}) {
    this.#stream = stream;
    this.#options = options;
    stream.on("error", (error: Error) => this.#fail(error, this.#written));
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
   * How many messages {@link write} was given so far: the next one's index (messages are numbered from
   * 0, ignored ones included).
   */
  get written(): number {
    return this.#written;
  }

  /**
   * Once the pipe broke: the index of the first message that did not reach it (that one and every
   * later one were lost; earlier ones were handed to the OS).
   */
  get firstUndelivered(): number | undefined {
    return this.#firstUndelivered;
  }

  /** Whether the stream still takes messages (not broken, not ended, not destroyed). */
  get open(): boolean {
    return !this.#broken && !this.#stream.destroyed && !this.#stream.writableEnded;
  }

  /**
   * Writes one message followed by one `\n`: at once, or — while `batch` says more are coming, or
   * messages already wait — at the end of this turn with the others, in order. A message of
   * {@link BATCH_MAX_CHARS} or more is never joined with others (the waiting ones leave first). Ignored
   * once the pipe broke.
   * @param text - The message, without a newline.
   */
  write(text: string): void {
    const index = this.#written++;
    if (this.#broken) return;
    const message = `${text}\n`;
    const large = message.length >= BATCH_MAX_CHARS;
    if (this.#queued.length === 0 && (large || this.#options.batch?.() !== true)) {
      this.#send(message, index);
      return;
    }
    if (large || this.#queuedChars + message.length > BATCH_MAX_TOTAL_CHARS) this.sendWaiting();
    if (large) {
      this.#send(message, index);
      return;
    }
    if (this.#queued.length === 0) this.#queuedFrom = index;
    this.#queued.push(message);
    this.#queuedChars += message.length;
    if (this.#queued.length > 1) return;
    this.#inFlight++;
    setImmediate(() => {
      this.#inFlight--;
      this.sendWaiting();
      this.#settle();
    });
  }

  /**
   * Hands the messages waiting for the end of the turn to the stream now, as one write — before the
   * stream is ended by someone else (shutdown), so that none is lost.
   */
  sendWaiting(): void {
    if (this.#queued.length === 0) return;
    const queued = this.#queued;
    this.#queued = [];
    this.#queuedChars = 0;
    this.#send(queued.length === 1 ? (queued[0] as string) : queued.join(""), this.#queuedFrom);
  }

  /**
   * Hands text to the stream (nothing once the pipe broke or the stream ended).
   * @param text - One or more messages, each with its newline.
   * @param first - The index of the first of them.
   */
  #send(text: string, first: number): void {
    if (this.#broken || this.#stream.destroyed || this.#stream.writableEnded) {
      this.#firstUndelivered = Math.min(this.#firstUndelivered ?? first, first);
      return;
    }
    this.#inFlight++;
    let ok: boolean;
    try {
      ok = this.#stream.write(text, (error) => {
        this.#inFlight--;
        if (error) this.#fail(error, first);
        this.#settle();
      });
    } catch (error) {
      this.#inFlight--;
      this.#fail(asError(error), first);
      return;
    }
    const confirmed = this.#options.confirm?.();
    if (confirmed instanceof Error) this.#fail(confirmed, first);
    else confirmed?.catch((error: unknown) => this.#fail(asError(error), first));
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
   * Marks the pipe broken (reported once), and which message was the first lost.
   * @param error - Why.
   * @param first - The index of the first message of the write that failed.
   */
  #fail(error: Error, first: number): void {
    this.#firstUndelivered = Math.min(this.#firstUndelivered ?? first, first);
    if (this.#broken) return;
    this.#broken = true;
    this.#settle();
    this.#options.onError?.(error);
  }
}

/**
 * An error from whatever was thrown or rejected.
 * @param error - The reason.
 * @returns It, or an Error carrying its text.
 */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
