/**
 * Bouncer's own stderr for `bouncer run`, with its back-pressure told: while a write waits for a
 * reader that does not read (a FIFO whose reader sleeps), the upstream's stderr is not drained (the
 * upstream then blocks in its own write, as it would without Bouncer), and Bouncer's own diagnostics
 * beyond 1 MiB are dropped and counted, the count written once the reader has caught up. So an
 * upstream flooding stderr cannot grow Bouncer's memory. Edge.
 *
 * Source: SPEC §3.3 (stderr drained continuously; no unbounded buffering), STYLE #18.
 * @module
 */

import type { Writable } from "node:stream";

/** Whether stderr is backed up, and when it drains (for the drain of the upstream's stderr). */
export interface StderrFlow {
  /** True while Bouncer's stderr waits for its reader. */
  readonly full: () => boolean;
  /**
   * Registers a listener called each time stderr drains.
   * @returns What removes it.
   */
  readonly onDrain: (listener: () => void) => () => void;
}

/** Characters of diagnostics written while stderr is backed up before the rest is dropped. */
export const STDERR_BACKLOG_CHARS = 1024 * 1024;

/**
 * A stderr writer that knows when it is backed up.
 *
 * Source: SPEC §3.3.
 */
export class StderrOutput implements StderrFlow {
  readonly #stream: Writable;
  readonly #limit: number;
  readonly #listeners = new Set<() => void>();
  #full = false;
  /** Characters written since it filled. */
  #backlog = 0;
  /** Writes dropped since it filled. */
  #dropped = 0;
  /** Set once the stream failed (no reader at all): writes are dropped, nothing waits for it. */
  #broken = false;

  /**
   * @param stream - Bouncer's stderr (`process.stderr`).
   * @param options - The backlog limit (default {@link STDERR_BACKLOG_CHARS}).
   */
  constructor(stream: Writable, options: { readonly limitChars?: number } = {}) {
    this.#stream = stream;
    this.#limit = options.limitChars ?? STDERR_BACKLOG_CHARS;
    stream.on("drain", () => this.#drained());
    stream.on("error", () => {
      this.#broken = true;
      this.#drained();
    });
  }

  /**
   * Writes text; while backed up past the limit, drops it (counted).
   * @param text - What to write.
   */
  readonly write = (text: string): void => {
    if (this.#broken) return;
    if (this.#full) {
      if (this.#backlog + text.length > this.#limit) {
        this.#dropped++;
        return;
      }
      this.#backlog += text.length;
    }
    try {
      if (!this.#stream.write(text)) this.#full = true;
    } catch {
      this.#broken = true;
    }
  };

  /** @returns Whether a write waits for the reader. */
  readonly full = (): boolean => this.#full;

  /**
   * @param listener - Called each time stderr drains.
   * @returns What removes it.
   */
  readonly onDrain = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** The reader caught up: the dropped count is written, and the listeners run. */
  #drained(): void {
    this.#full = false;
    this.#backlog = 0;
    if (this.#dropped > 0) {
      const dropped = this.#dropped;
      this.#dropped = 0;
      this.write(`[bouncer] ${dropped} diagnostic writes were dropped while stderr was not read\n`);
    }
    for (const listener of [...this.#listeners]) listener();
  }
}
