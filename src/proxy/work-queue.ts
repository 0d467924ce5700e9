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

/** Run tasks the list may hold at its front before they are cut off (while others still wait). */
const COMPACT_AFTER = 1024;

/**
 * An ordered queue of work.
 *
 * Source: SPEC §3.1, §3.3.
 */
export class WorkQueue {
  /** Queued tasks from {@link WorkQueue.#head} on (the ones before it have run): no `shift()` per task. */
  #tasks: (WorkTask | undefined)[] = [];
  #head = 0;
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

  /**
   * Takes the oldest queued task off the queue.
   * @returns The task, or undefined when none waits (the list is emptied then).
   */
  #take(): WorkTask | undefined {
    const task = this.#tasks[this.#head];
    if (task === undefined) {
      if (this.#head > 0) {
        this.#tasks.length = 0;
        this.#head = 0;
      }
      return undefined;
    }
    this.#tasks[this.#head] = undefined;
    this.#head += 1;
    if (this.#head >= COMPACT_AFTER && this.#head * 2 >= this.#tasks.length) {
      this.#tasks = this.#tasks.slice(this.#head);
      this.#head = 0;
    }
    return task;
  }

  /** Runs queued work in order. Never rejects. */
  async #pump(): Promise<void> {
    this.#busy = true;
    try {
      for (let task = this.#take(); task !== undefined; task = this.#take()) {
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
