import { describe, expect, test } from "bun:test";
import { LazyAbort } from "../../src/proxy/relay-support.ts";
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
