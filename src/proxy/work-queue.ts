/**
 * Work run strictly in order, one task at a time: a task that returns a promise is awaited before
 * the next one starts, and a task that fails is reported and the queue carries on. The relay queues
 * the upstream's messages here so that they are handled in order even when a hook records
 * asynchronously. Edge.
 *
 * Source: SPEC §3.1 (answers reach the client in order, each recorded first), §3.3 ("never a hang").
 * @module
 */

/** One piece of queued work. */
export type WorkTask = () => void | Promise<void>;

/**
 * An ordered queue of work.
 *
 * Source: SPEC §3.1, §3.3.
 */
export class WorkQueue {
  readonly #tasks: WorkTask[] = [];
  readonly #onError: (error: unknown) => void;
  #busy = false;

  /**
   * @param onError - Told of a task that threw or rejected (must not throw).
   */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /**
   * Queues a task; it starts now when the queue is idle, else after those queued before it.
   * @param task - The work.
   */
  push(task: WorkTask): void {
    this.#tasks.push(task);
    if (!this.#busy) void this.#pump();
  }

  /** Runs queued work in order. Never rejects. */
  async #pump(): Promise<void> {
    this.#busy = true;
    try {
      for (let task = this.#tasks.shift(); task !== undefined; task = this.#tasks.shift()) {
        try {
          const running = task();
          if (running !== undefined) await running;
        } catch (error) {
          this.#onError(error);
        }
      }
    } finally {
      this.#busy = false;
    }
  }
}
