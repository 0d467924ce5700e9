import { describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { StderrOutput } from "../../src/platform/stderr-output.ts";

/** A stream that takes each write and holds its callback until released (a reader that sleeps). */
function sleepyStream(): { readonly stream: Writable; readonly chunks: string[]; readonly wake: () => void } {
  const chunks: string[] = [];
  let held: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString("utf8"));
      held.push(() => callback());
    },
  });
  const wake = (): void => {
    // Each released callback lets the next buffered write through: release until none is held.
    while (held.length > 0) {
      const waiting = held;
      held = [];
      for (const release of waiting) release();
    }
  };
  return { stream, chunks, wake };
}

describe("StderrOutput", () => {
  test("StderrOutput is full while a write waits, drops what passes its limit, and says how many once drained", async () => {
    const { stream, chunks, wake } = sleepyStream();
    const output = new StderrOutput(stream, { limitChars: 10 });
    const drains: number[] = [];
    output.onDrain(() => drains.push(chunks.length));
    output.write("x".repeat(20));
    expect(output.full()).toBe(true);
    output.write("y".repeat(10));
    output.write("dropped");
    output.write("dropped too");
    wake();
    await new Promise((resolve) => setImmediate(resolve));
    wake();
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual([
      "x".repeat(20),
      "y".repeat(10),
      "[bouncer] 2 diagnostic writes were dropped while stderr was not read\n",
    ]);
    expect(output.full()).toBe(false);
    expect(drains.length).toBeGreaterThan(0);
  });

  test("StderrOutput never reports full after its stream failed, and drops what it is given", () => {
    const stream = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error("EPIPE"));
      },
    });
    const output = new StderrOutput(stream);
    let drained = false;
    output.onDrain(() => {
      drained = true;
    });
    output.write("a");
    stream.emit("error", new Error("EPIPE"));
    output.write("b");
    expect({ full: output.full(), drained }).toEqual({ full: false, drained: true });
  });
});
