import { describe, expect, test } from "bun:test";
import { PassThrough, Writable } from "node:stream";
import { BATCH_MAX_CHARS, MessageWriter } from "../../src/proxy/message-writer.ts";

describe("MessageWriter", () => {
  test("MessageWriter writes exactly one newline after each message, in order", async () => {
    const stream = new PassThrough();
    let written = "";
    stream.on("data", (chunk: Buffer) => {
      written += chunk.toString("utf8");
    });
    const writer = new MessageWriter(stream);
    writer.write('{"a":1}');
    writer.write('{"b":"x\\ny"}');
    await writer.flush();
    expect(written).toBe('{"a":1}\n{"b":"x\\ny"}\n');
  });

  test("MessageWriter reports back-pressure and its release", async () => {
    const stream = new PassThrough({ highWaterMark: 8 });
    const pressure: boolean[] = [];
    const writer = new MessageWriter(stream, { onPressure: (full) => void pressure.push(full) });
    writer.write("x".repeat(64));
    expect(pressure).toEqual([true]);
    stream.resume();
    await writer.flush();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(pressure).toEqual([true, false]);
  });

  test("MessageWriter reports a broken pipe once and ignores later writes", async () => {
    const errors: string[] = [];
    const stream = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    const writer = new MessageWriter(stream, { onError: (error) => void errors.push(error.message) });
    writer.write("{}");
    await writer.flush();
    writer.write("{}");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(errors).toEqual(["write EPIPE"]);
    expect(writer.broken).toBe(true);
  });

  /** A stream that keeps each write it is handed as one chunk. */
  function chunkStream(): { readonly stream: Writable; readonly chunks: string[] } {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString("utf8"));
        callback();
      },
    });
    return { stream, chunks };
  }

  test("MessageWriter hands each message to the stream at once when batch says no", () => {
    const { stream, chunks } = chunkStream();
    const writer = new MessageWriter(stream, { batch: () => false });
    writer.write("1");
    writer.write("2");
    expect(chunks).toEqual(["1\n", "2\n"]);
  });

  test("MessageWriter sends the messages of one turn as one write while batch says yes, in order", async () => {
    const { stream, chunks } = chunkStream();
    const writer = new MessageWriter(stream, { batch: () => true });
    writer.write('{"a":1}');
    writer.write('{"b":2}');
    writer.write('{"c":3}');
    expect(chunks).toEqual([]);
    await writer.flush();
    expect(chunks).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n']);
    writer.write('{"d":4}');
    await writer.flush();
    expect(chunks).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n', '{"d":4}\n']);
  });

  test("MessageWriter keeps the order when batching stops while messages wait", async () => {
    const { stream, chunks } = chunkStream();
    let batching = true;
    const writer = new MessageWriter(stream, { batch: () => batching });
    writer.write("first");
    batching = false;
    writer.write("second");
    await writer.flush();
    writer.write("third");
    expect(chunks.join("")).toBe("first\nsecond\nthird\n");
    expect(chunks).toHaveLength(2);
  });

  test("MessageWriter drops waiting messages once the pipe broke, and every later one", async () => {
    const errors: string[] = [];
    const { stream, chunks } = chunkStream();
    const writer = new MessageWriter(stream, {
      batch: () => true,
      onError: (e) => void errors.push(e.message),
    });
    writer.write("a");
    // The pipe breaks while "a" waits for the end of the turn.
    stream.destroy(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    await new Promise((resolve) => setImmediate(resolve));
    await writer.flush();
    writer.write("b");
    await writer.flush();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect({ chunks, errors, broken: writer.broken, first: writer.firstUndelivered }).toEqual({
      chunks: [],
      errors: ["write EPIPE"],
      broken: true,
      first: 0,
    });
  });

  test("MessageWriter breaks when confirm() finds a write refused that the stream reported written, and names the first message lost", async () => {
    const errors: string[] = [];
    const { stream, chunks } = chunkStream();
    let refused = false;
    const writer = new MessageWriter(stream, {
      onError: (e) => void errors.push(e.message),
      confirm: () =>
        refused ? Object.assign(new Error("EPIPE: broken pipe, write"), { code: "EPIPE" }) : undefined,
    });
    writer.write("delivered");
    expect(writer.firstUndelivered).toBeUndefined();
    refused = true;
    writer.write("lost");
    writer.write("after");
    await writer.flush();
    expect({ errors, broken: writer.broken, open: writer.open, written: writer.written }).toEqual({
      errors: ["EPIPE: broken pipe, write"],
      broken: true,
      open: false,
      written: 3,
    });
    expect(writer.firstUndelivered).toBe(1);
    expect(chunks).toEqual(["delivered\n", "lost\n"]);
  });

  test("MessageWriter names the first message of a batched write whose confirm() promise rejects", async () => {
    const { stream } = chunkStream();
    let calls = 0;
    const writer = new MessageWriter(stream, {
      batch: () => true,
      confirm: () => (++calls === 2 ? Promise.reject(new Error("EPIPE")) : undefined),
    });
    writer.write("a");
    await writer.flush();
    writer.write("b");
    writer.write("c");
    await writer.flush();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect({ broken: writer.broken, first: writer.firstUndelivered }).toEqual({ broken: true, first: 1 });
  });

  test("MessageWriter.sendWaiting() hands the waiting messages over at once, before the stream is ended", async () => {
    const { stream, chunks } = chunkStream();
    const writer = new MessageWriter(stream, { batch: () => true });
    writer.write("a");
    writer.write("b");
    writer.sendWaiting();
    stream.end();
    await writer.flush();
    expect(chunks).toEqual(["a\nb\n"]);
  });

  test("MessageWriter never joins a large message with others, and keeps the order", async () => {
    const { stream, chunks } = chunkStream();
    const writer = new MessageWriter(stream, { batch: () => true });
    const large = "x".repeat(BATCH_MAX_CHARS);
    writer.write("small1");
    writer.write(large);
    writer.write("small2");
    await writer.flush();
    expect(chunks).toEqual(["small1\n", `${large}\n`, "small2\n"]);
  });

  test("MessageWriter sends what waits before the turn's total would pass 1 MiB, in order", async () => {
    const { stream, chunks } = chunkStream();
    const writer = new MessageWriter(stream, { batch: () => true });
    const messages = Array.from(
      { length: 40 },
      (_, i) => `${String(i).padStart(2, "0")}${"y".repeat(60_000)}`,
    );
    for (const message of messages) writer.write(message);
    await writer.flush();
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((chunk) => chunk.length <= 1024 * 1024)).toBe(true);
    expect(chunks.join("")).toBe(messages.map((message) => `${message}\n`).join(""));
  });
});
