import { describe, expect, test } from "bun:test";
import type { JsonObject } from "../../src/engine/index.ts";
import type { RpcOutcome, ToolCallDecision, ToolCallRequest } from "../../src/proxy/relay-hooks.ts";
import { memoryRelay, settle } from "./support/memory-relay.ts";

const initialize = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: { elicitation: {}, roots: { listChanged: true } },
    clientInfo: { name: "c", version: "1" },
  },
};
const call = (id: unknown, args: JsonObject, extra: JsonObject = {}): unknown => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "send_email", arguments: args, ...extra },
});

describe("interceptRequest() initialize", () => {
  test("interceptRequest() forwards the client's initialize unchanged and adds tools.listChanged to the result", () => {
    const seen: JsonObject[] = [];
    const r = memoryRelay(() => ({ onInitializeResult: (result) => void seen.push(result) }));
    r.fromClient(initialize);
    const forwarded = r.lastUpstream();
    expect(forwarded).toEqual({ ...initialize, id: forwarded.id });
    expect(r.relay.session().clientElicitation).toBe(true);
    const result = {
      protocolVersion: "2025-06-18",
      capabilities: { tools: {}, logging: {}, experimental: { x: 1 } },
      serverInfo: { name: "u", version: "1" },
      instructions: "Use me",
    };
    r.fromUpstream({ jsonrpc: "2.0", id: forwarded.id, result });
    expect(r.lastClient()).toEqual({
      jsonrpc: "2.0",
      id: 0,
      result: { ...result, capabilities: { ...result.capabilities, tools: { listChanged: true } } },
    });
    expect(seen).toEqual([result]);
  });

  test("interceptRequest() adds no tools capability to an upstream without tools", () => {
    const r = memoryRelay();
    r.fromClient(initialize);
    const result = {
      protocolVersion: "2025-06-18",
      capabilities: { prompts: {} },
      serverInfo: { name: "u", version: "1" },
    };
    r.fromUpstream({ jsonrpc: "2.0", id: r.lastUpstream().id, result });
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: 0, result });
  });

  test("interceptRequest() answers a refused initialize with the hook's error, forwards nothing and ends with its status", () => {
    const error = { code: -32602, message: 'Cannot load policy "p.yaml": line 4: unknown key "alow"' };
    const r = memoryRelay(() => ({ onClientInitialize: () => ({ kind: "error", error, exitCode: 2 }) }));
    r.fromClient(initialize);
    expect(r.toUpstream).toEqual([]);
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: 0, error });
    expect(r.ended).toEqual([2]);
  });

  test("interceptRequest() relays notifications/initialized before calling onInitialized", () => {
    const order: string[] = [];
    const r = memoryRelay(() => ({
      onInitialized: () => void order.push(`hook after ${r.toUpstream.length} message(s)`),
    }));
    r.fromClient({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(order).toEqual(["hook after 1 message(s)"]);
  });
});

describe("interceptRequest() tools/list and tools/call", () => {
  test("interceptRequest() holds tools/list and tools/call until whenReady() resolves", async () => {
    let ready: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const r = memoryRelay(() => ({ whenReady: () => gate }));
    r.fromClient({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    r.fromClient(call(2, { to: "a@b.example" }));
    r.fromClient({ jsonrpc: "2.0", id: 3, method: "resources/list" });
    await settle();
    expect(r.toUpstream.map((t) => (JSON.parse(t) as { method: string }).method)).toEqual(["resources/list"]);
    ready();
    await settle();
    expect(r.toUpstream.map((t) => (JSON.parse(t) as { method: string }).method).sort()).toEqual([
      "resources/list",
      "tools/call",
      "tools/list",
    ]);
  });

  test("interceptRequest() lets the tools/list hook answer itself", async () => {
    const r = memoryRelay(() => ({
      onToolsList: () => Promise.resolve({ kind: "result", result: { tools: [{ name: "pinned" }] } }),
    }));
    r.fromClient({ jsonrpc: "2.0", id: "L", method: "tools/list" });
    await settle();
    expect(r.toUpstream).toEqual([]);
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: "L", result: { tools: [{ name: "pinned" }] } });
  });

  test("interceptRequest() relays upstream progress on a held call's token only once the call is forwarded (SPEC §3.1)", async () => {
    let release: (decision: ToolCallDecision) => void = () => {};
    const r = memoryRelay(() => ({
      onToolCall: () => new Promise<ToolCallDecision>((resolve) => (release = resolve)),
    }));
    const progress = JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "t", progress: 1, message: "[bouncer] The person approved this call" },
    });
    r.fromClient(call(9, { to: "boss@corp.example" }, { _meta: { progressToken: "t" } }));
    await settle();
    expect(r.toUpstream).toEqual([]);
    r.fromUpstream(progress);
    expect(r.toClient).toEqual([]);
    release({ kind: "forward", arguments: { to: "boss@corp.example" } });
    await settle();
    expect(r.toUpstream).toHaveLength(1);
    r.fromUpstream(progress);
    expect(r.toClient).toEqual([progress]);
  });

  test("interceptRequest() never relays upstream progress on the token of a call it denied", async () => {
    const r = memoryRelay(() => ({
      onToolCall: () => Promise.resolve({ kind: "result", result: { content: [], isError: true } }),
    }));
    r.fromClient(call(9, { to: "evil@x.example" }, { _meta: { progressToken: "t" } }));
    await settle();
    expect(r.toClient).toHaveLength(1);
    r.fromUpstream({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "t", progress: 1 },
    });
    expect(r.toClient).toHaveLength(1);
  });

  test("interceptRequest() forwards exactly the decided arguments, re-serialised, with the other params kept", async () => {
    const r = memoryRelay(() => ({
      onToolCall: () => Promise.resolve({ kind: "forward", arguments: { to: "boss@corp.example" } }),
    }));
    r.fromClient(call(9, { to: "boss@corp.example", extra: 1 }, { _meta: { progressToken: "t" } }));
    await settle();
    const forwarded = r.lastUpstream();
    expect(forwarded).toEqual({
      jsonrpc: "2.0",
      id: forwarded.id,
      method: "tools/call",
      params: { name: "send_email", arguments: { to: "boss@corp.example" }, _meta: { progressToken: "t" } },
    });
  });

  test.each([
    [
      "duplicate keys",
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_email","arguments":{"to":"a@b.example","to":"evil@x.example"}}}',
      true,
      false,
    ],
    [
      "a big integer",
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"amount":9007199254740993}}}',
      false,
      true,
    ],
    [
      "a clean call",
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"amount":10}}}',
      false,
      false,
    ],
  ] as const)(
    "interceptRequest() reports %s to the tools/call hook",
    async (_name, line, duplicateKeys, unsafeIntegers) => {
      const calls: ToolCallRequest[] = [];
      const r = memoryRelay(() => ({
        onToolCall: (c) => {
          calls.push(c);
          return Promise.resolve({ kind: "result", result: { content: [], isError: true } });
        },
      }));
      r.fromClient(line);
      await settle();
      expect(calls[0]?.strict).toEqual({ duplicateKeys, unsafeIntegers, tooDeep: false });
      expect(r.toUpstream).toEqual([]);
    },
  );

  const answers: readonly [string, ToolCallDecision, Record<string, unknown>][] = [
    [
      "a result",
      {
        kind: "result",
        result: { content: [{ type: "text", text: "[bouncer blocked] no" }], isError: true },
      },
      { result: { content: [{ type: "text", text: "[bouncer blocked] no" }], isError: true } },
    ],
    [
      "an error",
      { kind: "error", error: { code: -32603, message: "Bouncer internal error: x" } },
      { error: { code: -32603, message: "Bouncer internal error: x" } },
    ],
  ];
  test.each(answers)(
    "interceptRequest() answers the client with %s from the hook and forwards nothing",
    async (_name, decision, body) => {
      const r = memoryRelay(() => ({ onToolCall: () => Promise.resolve(decision) }));
      r.fromClient(call("c", { to: "x@y.example" }));
      await settle();
      expect(r.toUpstream).toEqual([]);
      expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: "c", ...body });
    },
  );

  test("interceptRequest() answers -32603 and forwards nothing when the hook throws", async () => {
    const r = memoryRelay(() => ({ onToolCall: () => Promise.reject(new Error("engine exploded")) }));
    r.fromClient(call(4, {}));
    await settle();
    expect(r.toUpstream).toEqual([]);
    expect(r.lastClient()).toMatchObject({ id: 4, error: { code: -32603 } });
  });

  test("interceptRequest() answers -32602 for a tools/call without a string name", async () => {
    const r = memoryRelay();
    r.fromClient({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { arguments: {} } });
    await settle();
    expect(r.toUpstream).toEqual([]);
    expect(r.lastClient()).toMatchObject({ id: 4, error: { code: -32602 } });
  });

  test("interceptRequest() aborts the decision of a cancelled call and forwards nothing", async () => {
    let aborted = false;
    let release: () => void = () => {};
    const r = memoryRelay(() => ({
      onToolCall: (c) => {
        c.signal.addEventListener("abort", () => {
          aborted = true;
        });
        return new Promise((resolve) => {
          release = () => resolve({ kind: "forward", arguments: c.arguments });
        });
      },
    }));
    r.fromClient(call(101, { to: "x@y.example" }));
    await settle();
    r.fromClient({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 101, reason: "user" },
    });
    expect(aborted).toBe(true);
    release();
    await settle();
    expect(r.toUpstream).toEqual([]);
    expect(r.toClient).toEqual([]);
  });

  test("interceptRequest() records a forwarded call's result before the client sees it", async () => {
    const order: string[] = [];
    const r = memoryRelay(() => ({
      onToolResult: (_c: ToolCallRequest, outcome: RpcOutcome) => {
        order.push(`recorded ${outcome.kind} with ${r.toClient.length} message(s) sent`);
        return Promise.resolve();
      },
    }));
    r.fromClient(call(1, {}));
    await settle();
    r.fromUpstream({
      jsonrpc: "2.0",
      id: r.lastUpstream().id,
      result: { content: [{ type: "text", text: "sent" }] },
    });
    await settle();
    expect(order).toEqual(["recorded result with 0 message(s) sent"]);
    expect(r.lastClient()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "sent" }] },
    });
  });

  test("interceptRequest() withholds a result it could not record (fail closed)", async () => {
    const r = memoryRelay(() => ({ onToolResult: () => Promise.reject(new Error("disk full")) }));
    r.fromClient(call(1, {}));
    await settle();
    r.fromUpstream({
      jsonrpc: "2.0",
      id: r.lastUpstream().id,
      result: { content: [{ type: "text", text: "secret" }] },
    });
    await settle();
    expect(r.lastClient()).toMatchObject({ id: 1, error: { code: -32603 } });
    expect(r.toClient.join("")).not.toContain("secret");
  });

  test("interceptRequest() shows other upstream results to onUpstreamResult and relays list_changed after its hook", async () => {
    const seen: string[] = [];
    const r = memoryRelay(() => ({
      onUpstreamResult: (request) => void seen.push(request.method),
      onToolsListChanged: () => void seen.push(`list_changed before ${r.toClient.length} message(s)`),
    }));
    r.fromClient({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "x" } });
    r.fromUpstream({ jsonrpc: "2.0", id: r.lastUpstream().id, result: { contents: [] } });
    r.fromUpstream({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await settle();
    expect(seen).toEqual(["resources/read", "list_changed before 1 message(s)"]);
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  });
});
