import { describe, expect, test } from "bun:test";
import { PassThrough, Writable } from "node:stream";
import { MessageWriter } from "../../src/proxy/message-writer.ts";

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
});
