/**
 * The stand-in hooks of `bouncer run` while the gate is built (SPEC §3.2): `initialize` is relayed
 * at once, every `tools/list` and `tools/call` waits for the real hooks, what happened meanwhile
 * reaches the real hooks first and in order, and a gate that fails or refuses ends the session with
 * nothing forwarded. Driven through a real {@link Relay} with both pipes in memory.
 */

import { describe, expect, test } from "bun:test";
import { deferredHooks } from "../../src/proxy/deferred-hooks.ts";
import { passThroughHooks, type RelayHooks } from "../../src/proxy/relay-hooks.ts";
import { memoryRelay, settle } from "./support/memory-relay.ts";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};
const CALL = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { a: 1 } } };

/** A gate whose building the test finishes (or fails) when it wants, and what it saw. */
function controlledGate(overrides: Partial<RelayHooks> = {}): {
  readonly load: () => Promise<RelayHooks>;
  readonly finish: () => void;
  readonly fail: (error: Error) => void;
  readonly seen: string[];
  readonly started: () => boolean;
} {
  const seen: string[] = [];
  let started = false;
  let finish: () => void = () => {};
  let fail: (error: Error) => void = () => {};
  const built = new Promise<RelayHooks>((resolve, reject) => {
    finish = () =>
      resolve({
        ...passThroughHooks(),
        onInitializeResult: () => void seen.push("initialize result"),
        onInitialized: () => void seen.push("initialized"),
        onNoise: (noise) => void seen.push(`noise ${noise.side}`),
        onToolCall: async (call) => {
          seen.push(`call ${call.name}`);
          return { kind: "forward", arguments: call.arguments };
        },
        ...overrides,
      });
    fail = reject;
  });
  return {
    load: () => {
      started = true;
      return built;
    },
    finish: () => finish(),
    fail: (error) => fail(error),
    seen,
    started: () => started,
  };
}

describe("deferredHooks()", () => {
  test("deferredHooks() relays the client's initialize before the gate is built, and starts building it", async () => {
    const gate = controlledGate();
    const r = memoryRelay((context) => deferredHooks(context, gate.load));
    r.fromClient(INITIALIZE);
    expect(r.lastUpstream()).toMatchObject({ method: "initialize", params: INITIALIZE.params });
    await settle();
    expect(gate.started()).toBe(true);
  });

  test("deferredHooks() holds a tools/call until the gate is built, then the gate decides it", async () => {
    const gate = controlledGate();
    const r = memoryRelay((context) => deferredHooks(context, gate.load));
    r.fromClient(CALL);
    await settle();
    expect(r.toUpstream).toEqual([]);
    gate.finish();
    await settle();
    expect(gate.seen).toEqual(["call echo"]);
    expect(r.lastUpstream()).toMatchObject({ method: "tools/call", params: { name: "echo" } });
  });

  test("deferredHooks() hands what happened meanwhile to the gate in order, before a waiting call", async () => {
    const gate = controlledGate();
    const r = memoryRelay((context) => deferredHooks(context, gate.load));
    r.fromClient(INITIALIZE);
    const upstreamId = r.lastUpstream().id;
    r.fromUpstream({
      jsonrpc: "2.0",
      id: upstreamId,
      result: { protocolVersion: "2025-06-18", capabilities: {} },
    });
    await settle();
    r.fromClient({ jsonrpc: "2.0", method: "notifications/initialized" });
    r.fromUpstream("not json");
    r.fromClient(CALL);
    await settle();
    expect(gate.seen).toEqual([]);
    gate.finish();
    await settle();
    expect(gate.seen).toEqual(["initialize result", "initialized", "noise upstream", "call echo"]);
  });

  test("deferredHooks() hands the gate the client's initialize before a tools/list sent right behind it", async () => {
    const gate = controlledGate({
      onClientInitialize: () => {
        gate.seen.push("initialize");
        return { kind: "forward" };
      },
      whenReady: async () => void gate.seen.push("ready"),
    });
    const r = memoryRelay((context) => deferredHooks(context, gate.load));
    r.fromClient(INITIALIZE);
    r.fromClient({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await settle();
    gate.finish();
    await settle();
    expect(gate.seen.slice(0, 2)).toEqual(["initialize", "ready"]);
  });

  test("deferredHooks() ends the session with 1, no rejection unhandled, when the gate's initialize verdict rejects with a tools/list pipelined behind it", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const gate = controlledGate({
        onClientInitialize: async () => {
          throw new Error("verdict failed");
        },
      });
      const r = memoryRelay((context) => deferredHooks(context, gate.load));
      r.fromClient(INITIALIZE);
      r.fromClient({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      gate.finish();
      await settle();
      await settle();
      await Bun.sleep(20);
      expect(unhandled).toEqual([]);
      expect(r.ended).toEqual([1]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  test("deferredHooks() answers a waiting tools/call with an error and ends the session with 1 when the gate fails", async () => {
    const gate = controlledGate();
    const r = memoryRelay((context) => deferredHooks(context, gate.load));
    r.fromClient(CALL);
    await settle();
    gate.fail(new Error("boom"));
    await settle();
    expect(r.toUpstream).toEqual([]);
    expect(r.lastClient()).toMatchObject({ id: 2, error: { code: -32603 } });
    expect(r.ended).toEqual([1]);
    expect(r.logs.some((line) => line.includes("Cannot start the gate: boom"))).toBe(true);
  });

  test("deferredHooks() ends the session with the gate's status when the gate refuses the session", async () => {
    const refusal = { code: -32001, message: "Cannot write session file", data: {} };
    const gate = controlledGate({
      onClientInitialize: () => ({ kind: "error", error: refusal, exitCode: 1 }),
      onToolCall: async () => ({ kind: "error", error: refusal }),
    });
    const r = memoryRelay((context) => deferredHooks(context, gate.load));
    r.fromClient(INITIALIZE);
    r.fromClient(CALL);
    gate.finish();
    await settle();
    await settle();
    expect(r.ended).toEqual([1]);
    expect(r.toUpstream.map((text) => JSON.parse(text).method)).toEqual(["initialize"]);
    expect(r.lastClient()).toMatchObject({ id: 2, error: { code: -32001 } });
  });

  test("deferredHooks() ends the session with 1 when the gate's own initialize verdict fails", async () => {
    const gate = controlledGate({
      onClientInitialize: () => {
        throw new Error("verdict failed");
      },
    });
    const r = memoryRelay((context) => deferredHooks(context, gate.load));
    r.fromClient(INITIALIZE);
    gate.finish();
    await settle();
    await settle();
    expect(r.ended).toEqual([1]);
    expect(r.logs.some((line) => line.includes("Cannot start the gate: verdict failed"))).toBe(true);
  });

  test("deferredHooks() hands the gate a client answer given meanwhile before a waiting call", async () => {
    const gate = controlledGate({
      onClientAnswer: (request) => void gate.seen.push(`answer ${request.method}`),
    });
    const r = memoryRelay((context) => deferredHooks(context, gate.load));
    r.fromUpstream({ jsonrpc: "2.0", id: "u1", method: "roots/list" });
    await settle();
    r.fromClient({ jsonrpc: "2.0", id: r.lastClient().id, result: { roots: [{ uri: "file:///data" }] } });
    r.fromClient(CALL);
    await settle();
    expect(r.lastUpstream()).toMatchObject({ id: "u1", result: { roots: [{ uri: "file:///data" }] } });
    gate.finish();
    await settle();
    expect(gate.seen).toEqual(["answer roots/list", "call echo"]);
  });

  test("deferredHooks() ends the session with 1 and forwards no waiting call when the gate cannot record a client answer given meanwhile", async () => {
    const flushed: string[] = [];
    const gate = controlledGate({
      onClientAnswer: () => {
        throw new Error("boom");
      },
      onShutdown: async (reason) => void flushed.push(reason),
    });
    const r = memoryRelay((context) => deferredHooks(context, gate.load));
    r.fromUpstream({ jsonrpc: "2.0", id: "u1", method: "roots/list" });
    await settle();
    r.fromClient({ jsonrpc: "2.0", id: r.lastClient().id, result: { roots: [{ uri: "file:///data" }] } });
    r.fromClient(CALL);
    await settle();
    gate.finish();
    await settle();
    expect(r.ended).toEqual([1]);
    expect(r.toUpstream.map((text) => JSON.parse(text).method)).not.toContain("tools/call");
    expect(r.lastClient()).toMatchObject({ id: 2, error: { code: -32603 } });
    expect(
      r.logs.some((line) =>
        line.includes(
          'Cannot start the gate: the client\'s answer to "roots/list" could not be recorded: boom',
        ),
      ),
    ).toBe(true);
    await r.relay.hooks.onShutdown("session_ended");
    expect(flushed).toEqual(["session_ended"]);
  });

  test("deferredHooks() builds the gate at shutdown when something happened that it must record", async () => {
    const gate = controlledGate();
    const flushed: string[] = [];
    const r = memoryRelay((context) =>
      deferredHooks(context, async () => {
        const hooks = await gate.load();
        return { ...hooks, onShutdown: async (reason) => void flushed.push(reason) };
      }),
    );
    r.fromUpstream("not json");
    await settle();
    expect(gate.started()).toBe(false);
    const shutdown = r.relay.hooks.onShutdown("client_closed");
    await settle();
    expect(gate.started()).toBe(true);
    gate.finish();
    await shutdown;
    expect(gate.seen).toEqual(["noise upstream"]);
    expect(flushed).toEqual(["client_closed"]);
  });

  test("deferredHooks() does not start the gate only to shut down", async () => {
    const gate = controlledGate();
    const r = memoryRelay((context) => deferredHooks(context, gate.load));
    await r.relay.hooks.onShutdown("client_closed");
    expect(gate.started()).toBe(false);
  });
});
