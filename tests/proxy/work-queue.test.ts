import { describe, expect, test } from "bun:test";
import { WorkQueue } from "../../src/proxy/work-queue.ts";

/** Resolves once the queue has run everything queued so far (a task queued last says so). */
function drained(queue: WorkQueue): Promise<void> {
  return new Promise((resolve) => queue.push(resolve));
}

describe("WorkQueue", () => {
  test("WorkQueue.push() runs tasks in order, each awaited before the next starts", async () => {
    const queue = new WorkQueue(() => undefined);
    const seen: string[] = [];
    queue.push(async () => {
      seen.push("a start");
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push("a end");
    });
    queue.push(() => void seen.push("b"));
    queue.push(async () => void seen.push("c"));
    await drained(queue);
    expect(seen).toEqual(["a start", "a end", "b", "c"]);
  });

  test("WorkQueue.push() reports a task that throws or rejects and carries on", async () => {
    const errors: unknown[] = [];
    const queue = new WorkQueue((error) => errors.push(error));
    const seen: number[] = [];
    queue.push(() => {
      throw new Error("sync");
    });
    queue.push(() => void seen.push(1));
    queue.push(() => Promise.reject(new Error("async")));
    queue.push(() => void seen.push(2));
    await drained(queue);
    expect(seen).toEqual([1, 2]);
    expect(errors.map((error) => (error as Error).message)).toEqual(["sync", "async"]);
  });

  test("WorkQueue.push() runs many tasks in the order they were queued, some queued by running tasks, some after the queue drained", async () => {
    const queue = new WorkQueue(() => undefined);
    const pushed: number[] = [];
    const seen: number[] = [];
    const push = (task: (n: number) => void | Promise<void>): void => {
      const n = pushed.length;
      pushed.push(n);
      queue.push(() => task(n));
    };
    const record = (n: number): void => {
      seen.push(n);
      // Every 500th task queues one more while others still wait.
      if (n % 500 === 0) push(record);
    };
    // More tasks than one cut of the list's front holds; every 7th is async.
    for (let i = 0; i < 5000; i += 1) {
      push(
        i % 7 === 0
          ? async (n) => {
              await Promise.resolve();
              record(n);
            }
          : record,
      );
    }
    await drained(queue);
    for (let i = 0; i < 3; i += 1) {
      push(record);
      await drained(queue);
    }
    expect(pushed.length).toBeGreaterThan(5000);
    expect(seen).toEqual(pushed);
  });
});
