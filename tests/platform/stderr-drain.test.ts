import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { redactTokens } from "../../src/audit/redact.ts";
import { drainStderr, MAX_HELD_CHARS } from "../../src/platform/stderr-drain.ts";

function drain(
  chunks: readonly (string | Uint8Array)[],
  options: { tailBytes?: number; maxLineChars?: number; name?: string } = {},
) {
  const stream = new PassThrough();
  let out = "";
  const handle = drainStderr(stream, {
    name: options.name ?? "fs",
    write: (text) => {
      out += text;
    },
    ...options,
  });
  for (const chunk of chunks) stream.write(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  stream.end();
  return new Promise<{ out: string; tail: string; bytes: number }>((resolve) => {
    stream.on("end", () => resolve({ out, tail: handle.tail(), bytes: handle.bytes() }));
    stream.resume();
  });
}

describe("drainStderr", () => {
  test("drainStderr() prefixes every line with [upstream:<name>] across chunk boundaries", async () => {
    const { out } = await drain(["starting\nhalf a ", "line\nlast without newline"]);
    expect(out).toBe(
      "[upstream:fs] starting\n[upstream:fs] half a line\n[upstream:fs] last without newline\n",
    );
  });

  test("drainStderr() escapes control characters of the name in its prefix (no forged line)", async () => {
    const { out } = await drain(["up\n"], { name: "x\n[bouncer] FAKE" });
    expect(out).toBe("[upstream:x\\u{a}[bouncer] FAKE] up\n");
    expect(out.split("\n")).toHaveLength(2);
  });

  test("drainStderr() wraps a line longer than the cap", async () => {
    const { out } = await drain(["x".repeat(10)], { maxLineChars: 4 });
    expect(out).toBe("[upstream:fs] xxxx\n[upstream:fs] xxxx\n[upstream:fs] xx\n");
  });

  test("drainStderr() keeps a UTF-8 character split between chunks", async () => {
    const bytes = Buffer.from("é\n");
    const { out } = await drain([bytes.subarray(0, 1), bytes.subarray(1)]);
    expect(out).toBe("[upstream:fs] é\n");
  });

  test("drainStderr() keeps only the last bytes as the tail", async () => {
    const { tail, bytes } = await drain(["a".repeat(10_000), "END"], { tailBytes: 8192 });
    expect(bytes).toBe(10_003);
    expect(tail).toHaveLength(8192);
    expect(tail.endsWith("END")).toBe(true);
  });
});

describe("drainStderr() with redact", () => {
  const hide = (text: string): string => text.replaceAll("Tr0ub4dor&3", "[redacted]");

  function drainHiding(chunks: readonly string[], options: { tailBytes?: number } = {}) {
    const stream = new PassThrough();
    let out = "";
    const handle = drainStderr(stream, {
      name: "db",
      write: (text) => (out += text),
      redact: hide,
      ...options,
    });
    for (const chunk of chunks) stream.write(Buffer.from(chunk));
    stream.end();
    return new Promise<{ out: string; tail: string }>((resolve) => {
      stream.on("end", () => resolve({ out, tail: handle.tail() }));
      stream.resume();
    });
  }

  test("drainStderr() hides a secret split across chunks in what it writes and in the tail", async () => {
    const { out, tail } = await drainHiding(["connecting with password Tr0u", "b4dor&3\nfailed", " at last"]);
    expect(out).toBe("[upstream:db] connecting with password [redacted]\n[upstream:db] failed at last\n");
    expect(tail).toBe("connecting with password [redacted]\nfailed at last");
  });

  test("drainStderr() cuts a line too long to hold at a space, so a secret across 64 KiB stays whole", async () => {
    const before = `${"a ".repeat(MAX_HELD_CHARS / 2 - 3)}a`; // 65,531 characters
    // The second chunk takes the held line past 64 KiB in the middle of the secret.
    const chunks = [before, " Tr0ub", `4dor&3 ${"z".repeat(100)}`, "\nnext\n"];
    const { out } = await drainHiding(chunks);
    const text = out.replace(/\n\[upstream:db\] /g, ""); // the 4,096-character wraps undone
    expect(text.includes("Tr0ub")).toBe(false);
    expect(text.includes("4dor&3")).toBe(false);
    expect(text.endsWith(`a [redacted] ${"z".repeat(100)}next\n`)).toBe(true);
  });

  test("drainStderr() writes a held line without a space at 64 KiB, and the rest on its newline", async () => {
    const { out } = await drainHiding(["x".repeat(MAX_HELD_CHARS), "yy", "z\n"]);
    expect(out.replace(/\n\[upstream:db\] /g, "").replace(/\n$/, "")).toBe(
      `[upstream:db] ${"x".repeat(MAX_HELD_CHARS)}yyz`,
    );
  });

  test("drainStderr() hides a secret the tail's start would cut, and keeps the tail within its bytes", async () => {
    const { tail } = await drainHiding([`${"x".repeat(100)}Tr0ub4dor&3${"y".repeat(20)}`], { tailBytes: 25 });
    expect(tail).toBe(`cted]${"y".repeat(20)}`);
    expect(tail).not.toContain("dor&3");
  });
});

describe("drainStderr and a PEM private key written line by line", () => {
  const body = [
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
    "k3yB0dyL1n3Tw0xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
  ];
  const lines = [
    "-----BEGIN PRIVATE KEY-----\n",
    `${body[0]}\n`,
    `${body[1]}\n`,
    "-----END PRIVATE KEY-----\n",
    "after\n",
  ];

  async function drainKey(chunks: readonly string[], tailBytes?: number) {
    const stream = new PassThrough();
    let out = "";
    const handle = drainStderr(stream, {
      name: "k",
      write: (text) => (out += text),
      redact: redactTokens,
      ...(tailBytes === undefined ? {} : { tailBytes }),
    });
    for (const chunk of chunks) {
      stream.write(Buffer.from(chunk));
      // One write at a time, as an upstream printing the key line by line.
      await new Promise((resolve) => setImmediate(resolve));
    }
    stream.end();
    return new Promise<{ out: string; tail: string }>((resolve) => {
      stream.on("end", () => resolve({ out, tail: handle.tail() }));
      stream.resume();
    });
  }

  test("drainStderr() hides every line of the key's body, written one write per line, and writes what follows", async () => {
    const { out, tail } = await drainKey(lines);
    for (const line of body) {
      expect(out).not.toContain(line);
      expect(tail).not.toContain(line);
    }
    expect(out).toContain("[upstream:k] after\n");
    expect(tail).toContain("after");
  });

  test("drainStderr() hides a key's body in a tail that cut off its BEGIN line", async () => {
    const { tail } = await drainKey(lines, 60);
    expect(tail).not.toContain("xxxxxxxxxx");
    expect(tail).toContain("after");
  });

  test("drainStderr() hides the tail of a key still open at the end", async () => {
    const { tail, out } = await drainKey(lines.slice(0, 3), 60);
    expect(tail).not.toContain(body[1]);
    expect(out).not.toContain(body[1]);
  });
});

describe("drainStderr with Bouncer's stderr flow", () => {
  test("drainStderr() stops reading while Bouncer's stderr is full and reads on once it drains", async () => {
    const stream = new PassThrough();
    let full = true;
    const listeners: (() => void)[] = [];
    let out = "";
    drainStderr(stream, {
      name: "fs",
      write: (text) => {
        out += text;
      },
      flow: {
        full: () => full,
        onDrain: (listener) => {
          listeners.push(listener);
          return () => listeners.splice(listeners.indexOf(listener), 1);
        },
      },
    });
    stream.write("first\n");
    await new Promise((resolve) => setImmediate(resolve));
    stream.write("second\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect({ out, paused: stream.isPaused() }).toEqual({ out: "[upstream:fs] first\n", paused: true });
    full = false;
    for (const listener of [...listeners]) listener();
    await new Promise((resolve) => setImmediate(resolve));
    expect(out).toBe("[upstream:fs] first\n[upstream:fs] second\n");
    stream.end();
    await new Promise((resolve) => stream.on("end", resolve));
    expect(listeners).toEqual([]);
  });
});
