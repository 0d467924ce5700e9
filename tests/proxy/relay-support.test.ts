import { describe, expect, test } from "bun:test";
import { redactTokens } from "../../src/audit/redact.ts";
import {
  hiddenPreview,
  LazyAbort,
  type OversizedKind,
  oversizedLineId,
  PREVIEW_CHARS,
  preview,
} from "../../src/proxy/relay-support.ts";
import { memoryRelay, settle } from "./support/memory-relay.ts";

describe("LazyAbort", () => {
  test("LazyAbort gives a live signal that aborts, and listeners hear it", () => {
    const abort = new LazyAbort();
    const { signal } = abort;
    let heard = 0;
    signal.addEventListener("abort", () => heard++);
    expect(signal.aborted).toBe(false);
    abort.abort();
    expect(signal.aborted).toBe(true);
    expect(heard).toBe(1);
    expect(abort.signal).toBe(signal);
  });

  test("LazyAbort aborted before anyone asked for the signal gives an aborted signal", () => {
    const abort = new LazyAbort();
    abort.abort();
    expect(abort.signal.aborted).toBe(true);
  });
});

describe("hiddenPreview()", () => {
  const pad = "x".repeat(150);

  test("hiddenPreview() redacts a URL's password the 200-character cut would halve, before it cuts", () => {
    const line = `${pad} postgres://admin:Hunt3rSecretLongValueABCDEFGHIJKLMNOPQRSTUVWXYZ@db.example/x`;
    const shown = hiddenPreview(line, redactTokens);
    expect(shown).not.toContain("Hunt3r");
    expect(shown).toBe(JSON.stringify(`${pad} postgres://admin:[redacted]@db.example/x`));
  });

  test("hiddenPreview() redacts a token the cut would halve whole, before it cuts", () => {
    const token = ["ghp", "_", "abcdefghijklmnopqrstuvwxyz0123456789"].join("");
    const line = `${"y".repeat(PREVIEW_CHARS - 12)} ${token} ${"z".repeat(300)}`;
    const shown = hiddenPreview(line, redactTokens);
    expect(shown).not.toContain("ghp_");
    expect(shown).toEndWith(' [redacted] …"');
  });

  test("hiddenPreview() without a redaction is the plain preview", () => {
    const line = `${pad} password=hunter2 ${"z".repeat(300)}`;
    expect(hiddenPreview(line, undefined)).toBe(preview(line));
  });
});

describe("oversizedLineId", () => {
  const rows: [head: string, tail: string, idText: string | undefined, kind: OversizedKind][] = [
    ['{"jsonrpc":"2.0","id":1,"result":{"pad":"zz', 'zz"}}', "1", "response"],
    ['{"error":{"message":"zz', 'zz"},"jsonrpc":"2.0","id":"e"}', '"e"', "response"],
    ['{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"x":"zz', 'zz"}}', "2", "request"],
    ['{"jsonrpc":"2.0","params":{"x":"zz', 'zz"},"method":"ping","id":3}', "3", "request"],
    ['{"pad":"zz', 'zz","id":4}', "4", "unknown"],
    ["zzzz", "zzzz", undefined, "unknown"],
  ];
  test.each(rows)("oversizedLineId() reads %p … %p as id %p, a %p line", (head, tail, idText, kind) => {
    const seen = oversizedLineId({ byteLength: 70_000_000, head, tail });
    expect(seen).toEqual(idText === undefined ? { kind } : { idText, kind });
  });
});

describe("Relay cancel signals", () => {
  test("Relay aborts a held tools/call's signal when the client cancels it, whenever the hook looks", async () => {
    const seen: AbortSignal[] = [];
    let release: () => void = () => {};
    const r = memoryRelay(() => ({
      whenReady: () => new Promise<void>((resolve) => (release = resolve)),
      onToolCall: (call) => {
        seen.push(call.signal);
        return Promise.resolve({ kind: "forward", arguments: {} });
      },
    }));
    r.fromClient({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: {} } });
    r.fromClient({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    release();
    await settle();
    expect(seen).toEqual([]);
    expect(r.toUpstream).toEqual([]);

    r.fromClient({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t", arguments: {} } });
    await settle();
    release();
    await settle();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(false);
    const upstreamId = r.lastUpstream().id;
    r.fromClient({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } });
    expect(seen[0]?.aborted).toBe(true);
    expect(r.lastUpstream()).toMatchObject({
      method: "notifications/cancelled",
      params: { requestId: upstreamId },
    });
  });
});
