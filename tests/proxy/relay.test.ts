import { describe, expect, test } from "bun:test";
import { redactTokens } from "../../src/audit/redact.ts";
import { environmentHider } from "../../src/audit/redact-env.ts";
import type { JsonValue } from "../../src/engine/index.ts";
import type { NoiseReport, RelayContext } from "../../src/proxy/relay-hooks.ts";
import { deadline } from "./support/harness.ts";
import { memoryRelay, settle } from "./support/memory-relay.ts";

const ping = (id: unknown): unknown => ({ jsonrpc: "2.0", id, method: "ping" });

describe("Relay ids", () => {
  test("Relay remaps client ids to Bouncer ids and restores each with its exact JSON type", () => {
    const r = memoryRelay();
    const clientIds = ["0", '"42"', "42", '"x y"', "1.0", '""'];
    for (const id of clientIds) r.fromClient(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    const upstreamIds = r.toUpstream.map((text) => (JSON.parse(text) as { id: JsonValue }).id);
    expect(upstreamIds.every((id) => typeof id === "number" && Number.isInteger(id))).toBe(true);
    expect(new Set(upstreamIds).size).toBe(clientIds.length);
    for (const id of [...upstreamIds].reverse()) r.fromUpstream({ jsonrpc: "2.0", id, result: {} });
    expect(r.toClient).toEqual(
      [...clientIds].reverse().map((id) => `{"jsonrpc":"2.0","id":${id},"result":{}}`),
    );
  });

  test("Relay keeps every other byte of a relayed answer (big integers, key order, spacing)", () => {
    const r = memoryRelay();
    r.fromClient(ping(5));
    const upstreamId = r.lastUpstream().id;
    r.fromUpstream(
      `{"result": {"n": 12345678901234567890, "z": 1, "a": 2},  "jsonrpc":"2.0","id":${upstreamId}}`,
    );
    expect(r.toClient).toEqual([
      '{"result": {"n": 12345678901234567890, "z": 1, "a": 2},  "jsonrpc":"2.0","id":5}',
    ]);
  });

  test("Relay answers a request whose id is already in flight with -32600 and id null, naming the id, and forwards nothing", () => {
    const r = memoryRelay();
    r.fromClient(ping(1));
    r.fromClient(ping(1));
    r.fromClient('{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}');
    expect(r.toUpstream).toHaveLength(1);
    expect(r.toClient.map((text) => JSON.parse(text))).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid request: id 1 is already in use" },
      },
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid request: a top-level key is repeated" },
      },
    ]);
    r.fromUpstream({ jsonrpc: "2.0", id: r.lastUpstream().id, result: {} });
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  });

  test("Relay keeps two integer ids beyond 2^53 that round to one double apart: both forwarded, each answered with its own digits", () => {
    const r = memoryRelay();
    r.fromClient('{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}');
    r.fromClient('{"jsonrpc":"2.0","id":12345678901234567891,"method":"ping"}');
    expect(r.toClient).toEqual([]);
    const upstreamIds = r.toUpstream.map((text) => (JSON.parse(text) as { id: number }).id);
    expect(upstreamIds).toHaveLength(2);
    r.fromUpstream({ jsonrpc: "2.0", id: upstreamIds[1], result: {} });
    r.fromUpstream({ jsonrpc: "2.0", id: upstreamIds[0], result: {} });
    expect(r.toClient).toEqual([
      '{"jsonrpc":"2.0","id":12345678901234567891,"result":{}}',
      '{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}',
    ]);
    // The same digits twice are one id in use.
    r.fromClient('{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}');
    r.fromClient('{"jsonrpc":"2.0","id": 12345678901234567890 ,"method":"ping"}');
    expect(r.lastClient()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid request: id 12345678901234567890 is already in use" },
    });
  });

  test("Relay cancels the request whose integer id beyond 2^53 the cancel names digit for digit, not its rounded neighbour", () => {
    const r = memoryRelay();
    r.fromClient(
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"resources/read","params":{"uri":"x://1"}}',
    );
    r.fromClient(
      '{"jsonrpc":"2.0","id":12345678901234567891,"method":"resources/read","params":{"uri":"x://2"}}',
    );
    const [first, second] = r.toUpstream.map((text) => (JSON.parse(text) as { id: number }).id);
    r.fromClient(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567891}}',
    );
    expect(r.lastUpstream()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: second },
    });
    r.fromUpstream({ jsonrpc: "2.0", id: first, result: { contents: [] } });
    r.fromUpstream({ jsonrpc: "2.0", id: second, result: { contents: [] } });
    expect(r.toClient).toEqual(['{"jsonrpc":"2.0","id":12345678901234567890,"result":{"contents":[]}}']);
  });

  test("Relay keeps two upstream request ids beyond 2^53 that round to one double apart, and cancels the one named digit for digit", () => {
    const r = memoryRelay();
    r.fromUpstream('{"jsonrpc":"2.0","id":12345678901234567890,"method":"roots/list"}');
    r.fromUpstream('{"jsonrpc":"2.0","id":12345678901234567891,"method":"roots/list"}');
    const [first, second] = r.toClient.map((text) => (JSON.parse(text) as { id: number }).id);
    expect(first).not.toBe(second);
    r.fromUpstream(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567890}}',
    );
    expect(r.lastClient()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: first },
    });
    r.fromClient({ jsonrpc: "2.0", id: first, result: { roots: [] } });
    r.fromClient({ jsonrpc: "2.0", id: second, result: { roots: [] } });
    expect(r.toUpstream).toEqual(['{"jsonrpc":"2.0","id":12345678901234567891,"result":{"roots":[]}}']);
  });

  test("Relay answers and cancels a batched upstream request whose id is beyond 2^53 by its digits", () => {
    const r = memoryRelay();
    r.fromUpstream('[{"jsonrpc":"2.0","id":12345678901234567890,"method":"roots/list"}]');
    const relayed = r.lastClient().id;
    r.fromUpstream(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567890}}',
    );
    expect(r.lastClient()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: relayed },
    });
    r.fromUpstream('[{"jsonrpc":"2.0","id":12345678901234567891,"method":"roots/list"}]');
    r.fromClient({ jsonrpc: "2.0", id: r.lastClient().id, result: { roots: [] } });
    expect(r.toUpstream.at(-1)).toBe('{"jsonrpc":"2.0","id":12345678901234567891,"result":{"roots":[]}}');
  });

  test("Relay refuses a request repeating a top-level key, and relays one repeating a nested key as its own bytes", () => {
    const r = memoryRelay();
    r.fromClient('{"jsonrpc":"2.0","id":3,"method":"ping","method":"tools/call"}');
    r.fromClient('{"jsonrpc":"2.0","id":4,"method":"ping","\\u0069d":5}');
    expect(r.toUpstream).toEqual([]);
    expect(r.toClient.map((text) => JSON.parse(text))).toMatchObject([
      { id: 3, error: { code: -32600, message: "Invalid request: a top-level key is repeated" } },
      { id: 5, error: { code: -32600, message: "Invalid request: a top-level key is repeated" } },
    ]);
    r.fromClient('{"jsonrpc":"2.0","id":6,"method":"ping","params":{"a":1,"a":2}}');
    const upstreamId = r.lastUpstream().id;
    expect(r.toUpstream).toEqual([
      `{"jsonrpc":"2.0","id":${upstreamId},"method":"ping","params":{"a":1,"a":2}}`,
    ]);
  });

  test("Relay restores the id written first, second or last, whatever the member order", () => {
    const r = memoryRelay();
    const texts = [
      '{"id":"first","jsonrpc":"2.0","method":"ping"}',
      '{"jsonrpc":"2.0","id":2,"method":"ping"}',
      '{"method":"ping","params":{"id":"nested"},"jsonrpc":"2.0","id":-3}',
      '{"method":"ping","id":"middle","jsonrpc":"2.0"}',
    ];
    for (const text of texts) r.fromClient(text);
    for (const sent of r.toUpstream) {
      r.fromUpstream({ jsonrpc: "2.0", id: (JSON.parse(sent) as { id: number }).id, result: {} });
    }
    expect(r.toClient.map((text) => (JSON.parse(text) as { id: unknown }).id)).toEqual([
      "first",
      2,
      -3,
      "middle",
    ]);
    expect(r.toUpstream.map((text) => (JSON.parse(text) as { params?: unknown }).params)).toEqual([
      undefined,
      undefined,
      { id: "nested" },
      undefined,
    ]);
  });

  test('Relay drops an answer whose id it never sent ("1" is not 1)', () => {
    const r = memoryRelay();
    r.fromClient(ping(7));
    const upstreamId = r.lastUpstream().id as number;
    r.fromUpstream({ jsonrpc: "2.0", id: String(upstreamId), result: {} });
    r.fromUpstream({ jsonrpc: "2.0", id: upstreamId + 100, result: {} });
    expect(r.toClient).toEqual([]);
  });

  test("Relay never mistakes an upstream request for Bouncer's own, when both use id 1", async () => {
    let context: RelayContext | undefined;
    const r = memoryRelay((ctx) => {
      context = ctx;
      return {};
    });
    const own = context?.requestUpstream("tools/list", {});
    const ownId = r.lastUpstream().id;
    expect(ownId).toBe(1);
    r.fromUpstream({ jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params: { messages: [] } });
    const relayed = r.lastClient();
    expect(relayed.method).toBe("sampling/createMessage");
    const clientOwn = context?.requestClient("elicitation/create", { message: "[bouncer] ok?" });
    const clientOwnId = r.lastClient().id;
    expect(clientOwnId).not.toBe(relayed.id);
    r.fromClient({
      jsonrpc: "2.0",
      id: relayed.id,
      result: { role: "assistant", content: { type: "text", text: "hi" } },
    });
    expect(r.lastUpstream()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { role: "assistant", content: { type: "text", text: "hi" } },
    });
    r.fromClient({ jsonrpc: "2.0", id: clientOwnId, result: { action: "accept" } });
    r.fromUpstream({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
    expect(await own).toEqual({ tools: [] });
    expect(await clientOwn).toEqual({ action: "accept" });
  });
});

describe("Relay answers and notifications that repeat a key", () => {
  test("Relay turns a client answer that repeats a key into an error for the upstream, never its bytes", () => {
    const r = memoryRelay();
    r.fromUpstream({ jsonrpc: "2.0", id: 8, method: "roots/list" });
    const clientId = JSON.stringify(r.lastClient().id);
    // A parser keeping the first `method` would read a tools/call here.
    r.fromClient(
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"danger"},"method":0,"result":{"roots":[]},"id":${clientId}}`,
    );
    expect(r.toUpstream).toHaveLength(1);
    expect(r.toUpstream[0]).not.toContain("tools/call");
    const sent = r.lastUpstream();
    expect(sent.id).toBe(8);
    expect((sent.error as { code: number }).code).toBe(-32600);
  });

  test("Relay settles Bouncer's own request with an error when the answer repeats a key, even nested", async () => {
    let context: RelayContext | undefined;
    const r = memoryRelay((ctx) => {
      context = ctx;
      return {};
    });
    const asked = context?.requestClient("elicitation/create", { message: "[bouncer] ok?" });
    const id = JSON.stringify(r.lastClient().id);
    r.fromClient(`{"jsonrpc":"2.0","id":${id},"result":{"action":"decline","action":"accept"}}`);
    await expect(asked).rejects.toThrow("repeats a key");
  });

  test("Relay drops a client notification that repeats a key and relays one that does not", () => {
    const r = memoryRelay();
    r.fromClient(
      '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"danger"},"method":"notifications/roots/list_changed"}',
    );
    expect(r.toUpstream).toEqual([]);
    r.fromClient({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
    expect(r.toUpstream).toHaveLength(1);
  });
});

describe("Relay and the client's answers to the upstream's requests", () => {
  test("Relay shows the client's answer to the hooks with the upstream request's method before relaying it", () => {
    // What the hook saw, and how many lines the upstream had received by then (an expect inside
    // the hook would throw into the relay, which answers the upstream with an error instead).
    const seen: [string, unknown, number][] = [];
    const r = memoryRelay(() => ({
      onClientAnswer: (request, outcome) => {
        const shown = outcome.kind === "result" ? outcome.result : outcome.error.code;
        seen.push([request.method, shown, r.toUpstream.length]);
      },
    }));
    r.fromUpstream({ jsonrpc: "2.0", id: 8, method: "roots/list" });
    r.fromClient({ jsonrpc: "2.0", id: r.lastClient().id, result: { roots: [{ uri: "file:///w" }] } });
    r.fromUpstream({ jsonrpc: "2.0", id: 9, method: "sampling/createMessage", params: {} });
    r.fromClient({ jsonrpc: "2.0", id: r.lastClient().id, error: { code: -1, message: "no" } });
    expect(seen).toEqual([
      ["roots/list", { roots: [{ uri: "file:///w" }] }, 0],
      ["sampling/createMessage", -1, 1],
    ]);
    const relayed = r.toUpstream.map((line) => JSON.parse(line));
    expect(relayed).toEqual([
      { jsonrpc: "2.0", id: 8, result: { roots: [{ uri: "file:///w" }] } },
      { jsonrpc: "2.0", id: 9, error: { code: -1, message: "no" } },
    ]);
  });

  test("Relay answers the upstream with an error, not the client's answer, when the hook cannot record it", () => {
    const r = memoryRelay(() => ({
      onClientAnswer: () => {
        throw new Error("gate gone");
      },
    }));
    r.fromUpstream({ jsonrpc: "2.0", id: 8, method: "roots/list" });
    r.fromClient({ jsonrpc: "2.0", id: r.lastClient().id, result: { roots: [{ uri: "file:///w" }] } });
    expect(r.toUpstream).toHaveLength(1);
    expect(r.lastUpstream()).toMatchObject({ id: 8, error: { code: -32603 } });
    expect(r.toUpstream[0]).not.toContain("file:///w");
    expect(r.logs.some((line) => line.includes("gate gone"))).toBe(true);
  });
});

describe("Relay answers that carry both result and error, or neither", () => {
  test("Relay settles Bouncer's own request with an error when the client's answer carries both result and error, and answers the client nothing", async () => {
    let context: RelayContext | undefined;
    const r = memoryRelay((ctx) => {
      context = ctx;
      return {};
    });
    r.fromClient(ping(1));
    const asked = context?.requestClient("elicitation/create", { message: "[bouncer] ok?" });
    const before = r.toClient.length;
    r.fromClient(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"User rejected"},"result":{"action":"accept"}}',
    );
    await expect(deadline(Promise.resolve(asked), 5000, "the ask settled")).rejects.toThrow(
      "The client's answer is invalid: a response carries both result and error",
    );
    expect(r.toClient).toHaveLength(before);
  });

  test("Relay answers the client nothing for an answer-shaped message without result or error, and logs it when it answers nothing pending", () => {
    const r = memoryRelay();
    r.fromClient(ping(1));
    r.fromClient({ jsonrpc: "2.0", id: 1 });
    r.fromClient({ jsonrpc: "2.0", id: 1, error: "no" });
    expect(r.toClient).toEqual([]);
    expect(r.logs.filter((line) => line.startsWith("Dropped an invalid client answer"))).toHaveLength(2);
    r.fromClient({ jsonrpc: "2.0", id: 2, method: 5 });
    expect(r.lastClient()).toMatchObject({ id: 2, error: { code: -32600 } });
  });

  test("Relay gives the upstream an error for its request when the client's answer carries both result and error", () => {
    const r = memoryRelay();
    r.fromUpstream({ jsonrpc: "2.0", id: 8, method: "roots/list" });
    const clientId = r.lastClient().id;
    const before = r.toClient.length;
    r.fromClient({ jsonrpc: "2.0", id: clientId, result: { roots: [] }, error: { code: 1, message: "no" } });
    expect(r.toUpstream).toHaveLength(1);
    expect(r.lastUpstream()).toEqual({
      jsonrpc: "2.0",
      id: 8,
      error: {
        code: -32600,
        message: "The client's answer is invalid: a response carries both result and error",
      },
    });
    expect(r.toClient).toHaveLength(before);
  });

  test("Relay gives the client an error, never the result, when the upstream's answer carries both result and error", async () => {
    const results: unknown[] = [];
    const r = memoryRelay(() => ({ onUpstreamResult: (_request, outcome) => void results.push(outcome) }));
    r.fromClient({ jsonrpc: "2.0", id: "r", method: "resources/read", params: { uri: "x://1" } });
    const upstreamId = r.lastUpstream().id;
    r.fromUpstream({
      jsonrpc: "2.0",
      id: upstreamId,
      result: { contents: [{ uri: "x://1", text: "secret" }] },
      error: { code: -1, message: "failed" },
    });
    await settle();
    const error = {
      code: -32000,
      message: "The upstream's answer is invalid: a response carries both result and error",
    };
    expect(r.toClient).toEqual([JSON.stringify({ jsonrpc: "2.0", id: "r", error })]);
    expect(results).toEqual([{ kind: "error", error }]);
  });

  test("Relay rejects Bouncer's own upstream request when the answer carries both result and error", async () => {
    let context: RelayContext | undefined;
    const r = memoryRelay((ctx) => {
      context = ctx;
      return {};
    });
    const listed = context?.requestUpstream("tools/list", {});
    const id = r.lastUpstream().id;
    r.fromUpstream({ jsonrpc: "2.0", id, result: { tools: [] }, error: { code: -1, message: "no" } });
    await expect(deadline(Promise.resolve(listed), 5000, "the list settled")).rejects.toThrow(
      "both result and error",
    );
    expect(r.toUpstream).toHaveLength(1);
  });
});

describe("Relay and near spellings of the gated methods", () => {
  test("Relay refuses a near spelling of tools/call, tools/list or initialize with -32601 and forwards nothing", () => {
    const r = memoryRelay();
    const spellings = [
      "Tools/Call",
      "TOOLS/CALL",
      "tools/call ",
      "tools/call\u0000",
      "tools\u200b/call",
      "ｔｏｏｌｓ／ｌｉｓｔ",
      "Initialize",
    ];
    spellings.forEach((method, index) => {
      r.fromClient({ jsonrpc: "2.0", id: index + 1, method, params: { name: "danger", arguments: {} } });
      expect(r.lastClient()).toMatchObject({ id: index + 1, error: { code: -32601 } });
    });
    r.fromClient({ jsonrpc: "2.0", method: "Tools/Call", params: { name: "danger" } });
    r.fromClient({ jsonrpc: "2.0", method: "Initialize", params: {} });
    expect(r.toUpstream).toEqual([]);
    expect(r.logs.filter((line) => line.includes("without an id"))).toHaveLength(1);
    expect(r.logs.some((line) => line.includes('notification "Initialize": a near spelling'))).toBe(true);
    // Methods Bouncer does not gate are relayed as before.
    r.fromClient({ jsonrpc: "2.0", id: 99, method: "Tools/Whatever" });
    expect(r.toUpstream).toHaveLength(1);
  });
});

describe("Relay cancellation and progress", () => {
  test("Relay translates a client cancel at once and drops the late answer", () => {
    const r = memoryRelay();
    r.fromClient({ jsonrpc: "2.0", id: "r-1", method: "resources/read", params: { uri: "x://1" } });
    const upstreamId = r.lastUpstream().id;
    r.fromClient({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "r-1", reason: "user" },
    });
    expect(r.lastUpstream()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: upstreamId, reason: "user" },
    });
    r.fromUpstream({ jsonrpc: "2.0", id: upstreamId, result: { contents: [] } });
    expect(r.toClient).toEqual([]);
  });

  test("Relay logs an upstream answer to an id it never sent and relays nothing (STYLE #18: counted and logged, not silent)", () => {
    const r = memoryRelay();
    r.fromClient({ jsonrpc: "2.0", id: "r-1", method: "resources/read", params: { uri: "x://1" } });
    const upstreamId = r.lastUpstream().id;
    r.fromUpstream({ jsonrpc: "2.0", id: "r-1", result: { contents: [] } });
    r.fromUpstream({ jsonrpc: "2.0", id: 4242, error: { code: -32603, message: "no such request" } });
    expect(r.toClient).toEqual([]);
    expect(r.logs.filter((line) => line.includes("answer to a request it was not sent"))).toHaveLength(2);
    expect(r.logs.join("\n")).toContain('(id "r-1", ');
    r.fromUpstream({ jsonrpc: "2.0", id: upstreamId, result: { contents: [] } });
    expect(r.toClient).toHaveLength(1);
  });

  test("Relay ignores a cancel naming the client id with the other JSON type", () => {
    const r = memoryRelay();
    r.fromClient({ jsonrpc: "2.0", id: 101, method: "resources/read", params: { uri: "x://1" } });
    r.fromClient({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "101" } });
    expect(r.toUpstream).toHaveLength(1);
  });

  test("Relay translates an upstream cancel of its own request to the client", () => {
    const r = memoryRelay();
    r.fromUpstream({ jsonrpc: "2.0", id: 9, method: "roots/list" });
    const clientId = r.lastClient().id;
    r.fromUpstream({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } });
    expect(r.lastClient()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: clientId },
    });
    r.fromClient({ jsonrpc: "2.0", id: clientId, result: { roots: [] } });
    expect(r.toUpstream).toEqual([]);
  });

  test("Relay relays progress with the client's own token only while its request is open", () => {
    const r = memoryRelay();
    r.fromClient({
      jsonrpc: "2.0",
      id: 3,
      method: "resources/read",
      params: { uri: "x", _meta: { progressToken: "p-1" } },
    });
    const upstreamId = r.lastUpstream().id;
    expect(r.lastUpstream()).toMatchObject({ params: { _meta: { progressToken: "p-1" } } });
    const progress = (token: unknown): string =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: 1, total: 3 },
      });
    r.fromUpstream(progress("p-1"));
    r.fromUpstream(progress("p-2"));
    r.fromUpstream(progress(3));
    expect(r.toClient).toEqual([progress("p-1")]);
    r.fromUpstream({ jsonrpc: "2.0", id: upstreamId, result: {} });
    r.fromUpstream(progress("p-1"));
    expect(r.toClient).toHaveLength(2);
  });
});

describe("Relay message rules", () => {
  test("Relay answers a batch with one -32600 error and forwards nothing", () => {
    const r = memoryRelay();
    r.fromClient([ping(1), ping(2)]);
    expect(r.toUpstream).toEqual([]);
    expect(r.toClient).toHaveLength(1);
    expect(r.lastClient()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  test("Relay drops a tools/call without an id and reports it", () => {
    const dropped: unknown[] = [];
    const r = memoryRelay(() => ({ onDroppedCall: (message) => void dropped.push(message) }));
    r.fromClient({
      jsonrpc: "2.0",
      method: "tools/call",
      params: { name: "send_email", arguments: { to: "x@y.example" } },
    });
    expect(r.toUpstream).toEqual([]);
    expect(r.toClient).toEqual([]);
    expect(dropped).toHaveLength(1);
  });

  test("Relay answers a line that is not JSON with -32700", () => {
    const r = memoryRelay();
    r.fromClient("hello");
    expect(r.lastClient()).toMatchObject({ id: null, error: { code: -32700 } });
    expect(r.toUpstream).toEqual([]);
  });

  test.each([
    ["relay", true],
    ["deny", false],
  ] as const)("Relay with --unknown-methods %s handles methods it does not know", (mode, relayed) => {
    const r = memoryRelay(() => ({}), { unknownMethods: mode });
    r.fromClient({ jsonrpc: "2.0", id: 1, method: "vendor/thing", params: { x: 1 } });
    r.fromClient({ jsonrpc: "2.0", method: "notifications/vendor", params: {} });
    r.fromUpstream({ jsonrpc: "2.0", id: 50, method: "vendor/ask" });
    r.fromUpstream({ jsonrpc: "2.0", method: "notifications/vendor/up" });
    if (relayed) {
      expect(r.toUpstream).toHaveLength(2);
      expect(r.toClient).toHaveLength(2);
    } else {
      expect(r.toClient.map((t) => JSON.parse(t))).toEqual([
        { jsonrpc: "2.0", id: 1, error: { code: -32601, message: 'Method not found: "vendor/thing"' } },
      ]);
      expect(r.toUpstream.map((t) => JSON.parse(t))).toEqual([
        { jsonrpc: "2.0", id: 50, error: { code: -32601, message: 'Method not found: "vendor/ask"' } },
      ]);
    }
  });

  test("Relay passes an upstream error with its original code, message and data", () => {
    const r = memoryRelay();
    r.fromClient({ jsonrpc: "2.0", id: "e", method: "prompts/get", params: { name: "p" } });
    const upstreamId = r.lastUpstream().id;
    r.fromUpstream({
      jsonrpc: "2.0",
      id: upstreamId,
      error: { code: -32602, message: "Unknown prompt p", data: { hint: "x" } },
    });
    expect(r.lastClient()).toEqual({
      jsonrpc: "2.0",
      id: "e",
      error: { code: -32602, message: "Unknown prompt p", data: { hint: "x" } },
    });
  });

  test("Relay reports upstream noise and relays a JSON message glued after a text prefix (F03)", () => {
    const noise: NoiseReport[] = [];
    const r = memoryRelay(() => ({ onNoise: (report) => void noise.push(report) }));
    r.fromUpstream("Azure DevOps MCP Server version : 1.2.3");
    r.fromUpstream('Stdio server started{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}');
    r.fromUpstream("42");
    expect(r.toClient).toEqual(['{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}']);
    expect(noise.map((n) => n.kind)).toEqual(["not_json", "salvaged", "invalid"]);
    expect(noise[1]?.preview).toBe('"Stdio server started"');
  });

  test("Relay answers a call whose answer follows a cut-off copy of itself on one line", () => {
    const noise: NoiseReport[] = [];
    const r = memoryRelay(() => ({ onNoise: (report) => void noise.push(report) }));
    r.fromClient({ jsonrpc: "2.0", id: "c", method: "prompts/get", params: { name: "p" } });
    const id = JSON.stringify(r.lastUpstream().id);
    r.fromUpstream(`{"jsonrpc":"2.0","id":${id},"res{"jsonrpc":"2.0","id":${id},"result":{"messages":[]}}`);
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: "c", result: { messages: [] } });
    expect(noise.map((n) => n.kind)).toEqual(["salvaged"]);
  });

  test("Relay takes an upstream error with id null for the answer of the one request open", () => {
    const r = memoryRelay();
    r.fromClient({ jsonrpc: "2.0", id: "only", method: "prompts/get", params: { name: "p" } });
    r.fromUpstream({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    expect(r.lastClient()).toEqual({
      jsonrpc: "2.0",
      id: "only",
      error: { code: -32700, message: "Parse error" },
    });
    expect(r.logs.some((line) => line.includes("taken as its answer"))).toBe(true);
  });

  test("Relay answers nothing with an upstream error with id null while two requests are open", () => {
    const r = memoryRelay();
    r.fromClient({ jsonrpc: "2.0", id: "a", method: "prompts/get", params: { name: "p" } });
    r.fromClient({ jsonrpc: "2.0", id: "b", method: "prompts/get", params: { name: "q" } });
    r.fromUpstream({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    expect(r.toClient).toEqual([]);
    expect(r.logs.some((line) => line.includes("while 2 requests were open"))).toBe(true);
    const [a] = r.toUpstream.map((text) => (JSON.parse(text) as { id: unknown }).id);
    r.fromUpstream({ jsonrpc: "2.0", id: a, result: { messages: [] } });
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: "a", result: { messages: [] } });
  });

  test("Relay answers each of two calls whose answers the upstream glued on one line, in order", () => {
    const noise: NoiseReport[] = [];
    const r = memoryRelay(() => ({ onNoise: (report) => void noise.push(report) }));
    r.fromClient({ jsonrpc: "2.0", id: "a", method: "prompts/get", params: { name: "p" } });
    r.fromClient({ jsonrpc: "2.0", id: "b", method: "prompts/get", params: { name: "q" } });
    const [a, b] = r.toUpstream.map((text) => JSON.stringify((JSON.parse(text) as { id: unknown }).id));
    r.fromUpstream(
      `{"jsonrpc":"2.0","id":${b},"result":{"messages":[],"description":"{b}"}} {"jsonrpc":"2.0","id":${a},"result":{"messages":[]}}`,
    );
    expect(r.toClient.map((text) => JSON.parse(text))).toEqual([
      { jsonrpc: "2.0", id: "b", result: { messages: [], description: "{b}" } },
      { jsonrpc: "2.0", id: "a", result: { messages: [] } },
    ]);
    expect(noise.map((n) => n.kind)).toEqual(["glued"]);
  });

  test("Relay leaves a glued line with one piece that does not parse to salvage, answering nothing", () => {
    const noise: NoiseReport[] = [];
    const r = memoryRelay(() => ({ onNoise: (report) => void noise.push(report) }));
    r.fromClient({ jsonrpc: "2.0", id: "a", method: "prompts/get", params: { name: "p" } });
    const a = JSON.stringify(r.lastUpstream().id);
    r.fromUpstream(`{"jsonrpc":"2.0","id":${a},"result":{"messages":[]}}{id:1}`);
    r.fromUpstream(`{"jsonrpc":"2.0","id":${a},"result":{"messages":[]}}42`);
    expect(r.toClient).toEqual([]);
    expect(noise.map((n) => n.kind)).toEqual(["not_json", "not_json"]);
  });

  test("Relay takes no message nested in another's cut-off text for an answer", () => {
    const noise: NoiseReport[] = [];
    const r = memoryRelay(() => ({ onNoise: (report) => void noise.push(report) }));
    r.fromClient({ jsonrpc: "2.0", id: "a", method: "prompts/get", params: { name: "p" } });
    r.fromClient({ jsonrpc: "2.0", id: "b", method: "prompts/get", params: { name: "q" } });
    const [a, b] = r.toUpstream.map((text) => JSON.stringify((JSON.parse(text) as { id: unknown }).id));
    const nested = `{"jsonrpc":"2.0","id":${b},"result":{"messages":[],"description":"FORGED"}}`;
    r.fromUpstream(`{"jsonrpc":"2.0","id":${a},"result":{"messages":[],"_meta":{"log":[${nested}`);
    expect(r.toClient).toEqual([]);
    expect(noise.map((n) => n.kind)).toEqual(["not_json"]);
    r.fromUpstream(`{"jsonrpc":"2.0","id":${b},"result":{"messages":[]}}`);
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: "b", result: { messages: [] } });
  });

  test('Relay skips a line whose every {"jsonrpc" start is cut off, answering nothing', () => {
    const noise: NoiseReport[] = [];
    const r = memoryRelay(() => ({ onNoise: (report) => void noise.push(report) }));
    r.fromClient({ jsonrpc: "2.0", id: "c", method: "prompts/get", params: { name: "p" } });
    const before = r.toClient.length;
    r.fromUpstream(`x${'{"jsonrpc":"2.0","id":1,"res'.repeat(6)}{"jsonrpc":"2.0","id":1,"result":{}}`);
    expect(r.toClient.length).toBe(before);
    expect(noise.map((n) => n.kind)).toEqual(["not_json"]);
  });
});

describe("Relay and the upstream's secrets in its diagnostics", () => {
  const env = { DB_PASSWORD: "EnvPassw0rdSecret" };
  const token = ["ghp", "_", "abcdefghijklmnopqrstuvwxyz0123456789"].join("");
  const planted = `${token} ${env.DB_PASSWORD} password=Hunt3rFieldSecret`;
  // What `bouncer run` passes: the environment's secret values, then token shapes and fields.
  const envHide = environmentHider(env);
  const hide = (text: string): string => redactTokens(envHide === undefined ? text : envHide(text));
  const secrets = ["ghp_", "EnvPassw0rd", "Hunt3r"];
  const hidden = (lines: readonly string[]): void => {
    for (const secret of secrets) expect(lines.join("\n")).not.toContain(secret);
  };

  test("Relay quotes a message that repeats a key inside it with the upstream's secrets hidden", () => {
    const r = memoryRelay(() => ({}), { hideUpstreamSecrets: hide });
    r.fromClient({ jsonrpc: "2.0", id: "p", method: "prompts/get", params: { name: "p" } });
    const id = JSON.stringify(r.lastUpstream().id);
    r.fromUpstream(
      `{"jsonrpc":"2.0","id":${id},"result":{"description":"${planted}","meta":{"a":1,"a":2},"messages":[]}}`,
    );
    const lines = r.logs.filter((line) => line.includes("repeats a key inside it"));
    expect(lines).toHaveLength(1);
    hidden(lines);
    expect(lines[0]).toContain("[redacted] [redacted] password=[redacted]");
  });

  test.each([
    ["no request is open", 0, "while 0 requests were open"],
    ["one request is open", 1, "taken as its answer"],
  ])(
    "Relay quotes an error without an id with the upstream's secrets hidden when %s",
    (_name, open, said) => {
      const r = memoryRelay(() => ({}), { hideUpstreamSecrets: hide });
      for (let n = 0; n < open; n += 1)
        r.fromClient({ jsonrpc: "2.0", id: n, method: "prompts/get", params: { name: "p" } });
      r.fromUpstream({ jsonrpc: "2.0", id: null, error: { code: -32000, message: `boom ${planted}` } });
      const lines = r.logs.filter((line) => line.includes("without an id"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(said);
      hidden(lines);
    },
  );

  test("Relay hides the upstream's secrets in a noise preview before it cuts it, on stderr and for the hook", () => {
    const noise: NoiseReport[] = [];
    const r = memoryRelay(() => ({ onNoise: (report) => void noise.push(report) }), {
      hideUpstreamSecrets: hide,
    });
    const url = "postgres://admin:Hunt3rSecretLongValueABCDEFGHIJKLMNOPQRSTUVWXYZ@db.example/x";
    r.fromUpstream(`${"x".repeat(150)} ${url}`);
    r.fromUpstream(`${"x".repeat(190)} ${token}`);
    r.fromUpstream(`${"x".repeat(180)} ${planted}`);
    hidden(r.logs);
    hidden(noise.map((report) => report.preview));
    expect(noise[0]?.preview).toContain("postgres://admin:[redacted]@db.example/x");
    // The client's noise is quoted as written (its own text).
    r.fromClient("password=ClientTypedThis");
    expect(r.logs.at(-1)).toContain("password=ClientTypedThis");
  });

  test("Relay hides the body of a PEM private key the upstream writes on stdout line by line, up to its END line", () => {
    const noise: NoiseReport[] = [];
    const r = memoryRelay(() => ({ onNoise: (report) => void noise.push(report) }), {
      hideUpstreamSecrets: hide,
    });
    const body = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BKcwggSjAgEAAoIBAQC7KeyBodyLine2"];
    r.fromUpstream(["-----BEGIN", "PRIVATE KEY-----"].join(" "));
    for (const line of body) r.fromUpstream(line);
    r.fromUpstream(["-----END", "PRIVATE KEY-----"].join(" "));
    r.fromUpstream("listening on port 8080");
    for (const line of body)
      expect([...r.logs, ...noise.map((report) => report.preview)].join("\n")).not.toContain(line);
    expect(noise.map((report) => report.preview)).toEqual([
      '"[redacted]"',
      '"[redacted]"',
      '"[redacted]"',
      '"[redacted]"',
      '"listening on port 8080"',
    ]);
  });
});

describe("Relay upstream failure", () => {
  test("Relay.upstreamGone() answers every pending request and every later one with -32000 (F07)", async () => {
    const told: number[] = [];
    const r = memoryRelay(() => ({}), { onFailureReported: () => void told.push(1) });
    r.fromClient({ jsonrpc: "2.0", id: 7, method: "resources/read", params: { uri: "x" } });
    const failure = {
      message: 'Upstream "fs" exited (code 1)',
      data: { exitCode: 1, signal: null, stderrTail: "boom" },
    };
    expect(await r.relay.upstreamGone(failure)).toBe(1);
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32000, ...failure } });
    r.fromClient(ping(8));
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: 8, error: { code: -32000, ...failure } });
    expect(r.toUpstream).toHaveLength(1);
    expect(told).toHaveLength(2);
  });

  test("Relay.upstreamOversize() fails only the request a too-long answer names, and lives on", async () => {
    const r = memoryRelay();
    r.fromClient(ping("a"));
    r.fromClient(ping("b"));
    const [idA, idB] = r.toUpstream.map((t) => (JSON.parse(t) as { id: number }).id);
    r.relay.upstreamOversize({
      byteLength: 70_000_000,
      head: '{"result":{"content":[{"type":"text","text":"xxx',
      tail: `xx"}]},"jsonrpc":"2.0","id":${idA}}`,
    });
    await settle();
    expect(r.lastClient()).toMatchObject({ id: "a", error: { code: -32000 } });
    r.fromUpstream({ jsonrpc: "2.0", id: idB, result: {} });
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: "b", result: {} });
  });

  test("Relay.upstreamOversize() answers an over-long upstream request upstream, though its method comes after its params, and fails no client request", async () => {
    const r = memoryRelay();
    r.fromClient(ping("a"));
    const idA = r.lastUpstream().id;
    r.relay.upstreamOversize({
      byteLength: 70_000_000,
      head: '{"jsonrpc":"2.0","params":{"messages":[{"text":"xxx',
      tail: `xx"}]},"method":"sampling/createMessage","id":${idA}}`,
    });
    await settle();
    expect(r.toClient).toEqual([]);
    expect(r.lastUpstream()).toMatchObject({ id: idA, error: { code: -32600 } });
  });

  test("Relay.upstreamOversize() fails every pending request when the id cannot be known", async () => {
    const r = memoryRelay();
    r.fromClient(ping(1));
    r.fromClient(ping(2));
    r.relay.upstreamOversize({ byteLength: 70_000_000, head: '{"result":{"t":"', tail: 'xxxx"}}' });
    await settle();
    expect(r.toClient.map((t) => (JSON.parse(t) as { id: number }).id).sort()).toEqual([1, 2]);
    r.fromClient(ping(3));
    expect(r.toUpstream).toHaveLength(3);
  });
});

describe("Relay over-long client lines", () => {
  const big = (head: string, tail: string) => ({ byteLength: 70_000_000, head, tail });

  test("Relay.clientOversize() settles Bouncer's own request an over-long answer names as an error, answers the client nothing, and counts no later answer", async () => {
    let context: RelayContext | undefined;
    const r = memoryRelay((ctx) => {
      context = ctx;
      return {};
    });
    r.fromClient(ping(1));
    const asked = context?.requestClient("elicitation/create", { message: "[bouncer] ok?" });
    const askId = r.lastClient().id;
    expect(askId).toBe(1);
    const before = r.toClient.length;
    r.relay.clientOversize(big('{"jsonrpc":"2.0","id":1,"result":{"action":"decline","pad":"zzz', 'zzz"}}'));
    await expect(deadline(Promise.resolve(asked), 5000, "the ask settled")).rejects.toThrow(
      "The client's answer is too large: 70000000 bytes exceed the 64 MiB limit",
    );
    r.fromClient({ jsonrpc: "2.0", id: 1, result: { action: "accept" } });
    expect(r.toClient).toHaveLength(before);
    // The client's own request 1 is still pending, and gets its real answer.
    r.fromUpstream({ jsonrpc: "2.0", id: 1, result: {} });
    expect(r.lastClient()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  });

  test("Relay.clientOversize() answers the upstream's request an over-long client answer names with an error upstream", () => {
    const r = memoryRelay();
    r.fromUpstream({ jsonrpc: "2.0", id: 8, method: "roots/list" });
    const clientId = r.lastClient().id;
    const before = r.toClient.length;
    r.relay.clientOversize(
      big(`{"result":{"roots":[{"uri":"file:///xx`, `xx"}]},"jsonrpc":"2.0","id":${clientId}}`),
    );
    expect(r.lastUpstream()).toMatchObject({ id: 8, error: { code: -32600 } });
    expect(r.toClient).toHaveLength(before);
  });

  test("Relay.clientOversize() drops and logs an over-long answer that answers nothing pending", () => {
    const r = memoryRelay();
    r.fromClient(ping(4));
    r.relay.clientOversize(big('{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"xx', 'xx"}}'));
    expect(r.toClient).toEqual([]);
    expect(r.logs.some((line) => line.includes("Dropped an over-long client answer"))).toBe(true);
  });

  test("Relay.clientOversize() both settles Bouncer's request and answers the client for a line that cannot be told", async () => {
    let context: RelayContext | undefined;
    const r = memoryRelay((ctx) => {
      context = ctx;
      return {};
    });
    const asked = context?.requestClient("elicitation/create", { message: "[bouncer] ok?" });
    r.relay.clientOversize(big('{"pad":"zz', 'zz","id":1}'));
    await expect(deadline(Promise.resolve(asked), 5000, "the ask settled")).rejects.toThrow("too large");
    expect(r.lastClient()).toMatchObject({ id: 1, error: { code: -32600 } });
  });

  test("Relay.clientOversize() answers an over-long request with -32600 and its id, or null when the id is pending", () => {
    const r = memoryRelay();
    r.relay.clientOversize(big('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"x":"zz', 'zz"}}'));
    expect(r.lastClient()).toMatchObject({ id: 5, error: { code: -32600 } });
    r.fromClient(ping(6));
    r.relay.clientOversize(big('{"jsonrpc":"2.0","params":{"x":"zz', 'zz"},"method":"ping","id":6}'));
    expect(r.lastClient()).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe("Relay after the upstream's input ended", () => {
  test("Relay answers a request it can no longer forward with the upstream's exit once that is reported, writing nothing upstream", async () => {
    let open = true;
    const r = memoryRelay(() => ({}), { upstreamOpen: () => open, failureWaitMs: 60_000 });
    r.fromClient(ping(1));
    expect(r.toUpstream).toHaveLength(1);
    open = false;
    r.fromClient(ping(2));
    await settle();
    expect(r.toClient).toHaveLength(0);
    const failure = {
      message: 'Upstream "fs" exited (code 3)',
      data: { exitCode: 3, signal: null, stderrTail: "fatal" },
    };
    await r.relay.upstreamGone(failure);
    expect(r.toUpstream).toHaveLength(1);
    const answers = r.toClient.map((text) => JSON.parse(text) as { id: number; error: { message: string } });
    expect(answers.find((answer) => answer.id === 2)?.error.message).toBe('Upstream "fs" exited (code 3)');
  });

  test("Relay answers such a request with a bare error when no exit is reported in time", async () => {
    const r = memoryRelay(() => ({}), { upstreamOpen: () => false, failureWaitMs: 1 });
    r.fromClient(ping(2));
    const deadline = Date.now() + 10_000;
    while (r.toClient.length === 0 && Date.now() < deadline) await Bun.sleep(5);
    expect(r.toUpstream).toHaveLength(0);
    expect(r.lastClient()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32603, message: "Session ended before the request could be forwarded" },
    });
  });
});

describe("Relay and an answer that cannot be recorded", () => {
  test("Relay answers a tools/call whose result cannot be recorded with -32603, never with the result", () => {
    const r = memoryRelay(() => ({
      onToolResult: () => {
        throw new RangeError("Cannot record untrusted output: the taint index holds 8 entries, its limit");
      },
    }));
    r.fromClient({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "read", arguments: {} } });
    return settle().then(() => {
      const id = r.lastUpstream().id;
      r.fromUpstream({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "secret plan" }] } });
      expect(r.lastClient()).toEqual({
        jsonrpc: "2.0",
        id: 5,
        error: {
          code: -32603,
          message:
            "Bouncer internal error: cannot record the upstream's answer: Cannot record untrusted output: the taint index holds 8 entries, its limit",
        },
      });
      expect(r.toClient.some((text) => text.includes("secret plan"))).toBe(false);
    });
  });
});
