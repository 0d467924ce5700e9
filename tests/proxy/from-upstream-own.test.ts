import { describe, expect, test } from "bun:test";
import {
  MAX_OPEN_UPSTREAM_REQUEST_CHARS,
  MAX_OPEN_UPSTREAM_REQUESTS,
} from "../../src/proxy/from-upstream-own.ts";
import { memoryRelay } from "./support/memory-relay.ts";

/** A sampling request of the upstream's, with a progress token. */
const sampling = (id: unknown): unknown => ({
  jsonrpc: "2.0",
  id,
  method: "sampling/createMessage",
  params: { messages: [], _meta: { progressToken: `token-${String(id).slice(0, 20)}` } },
});

describe("upstreamRequest() and the requests waiting for the client", () => {
  test("upstreamRequest() lets MAX_OPEN_UPSTREAM_REQUESTS requests wait for a client that never answers, and refuses the rest", () => {
    const seen: string[] = [];
    const r = memoryRelay(() => ({ onUpstreamRequest: (request) => void seen.push(request.method) }));
    for (let i = 0; i < MAX_OPEN_UPSTREAM_REQUESTS + 50; i += 1) r.fromUpstream(sampling(i));
    expect(r.toClient).toHaveLength(MAX_OPEN_UPSTREAM_REQUESTS);
    // Refused: never recorded (seen), never relayed, answered with an error of their own id.
    expect(seen).toHaveLength(MAX_OPEN_UPSTREAM_REQUESTS);
    expect(r.relay.client.table.size).toBe(MAX_OPEN_UPSTREAM_REQUESTS);
    expect(r.relay.upstreamTokens.size).toBe(MAX_OPEN_UPSTREAM_REQUESTS);
    expect(r.toUpstream).toHaveLength(50);
    expect(r.lastUpstream()).toEqual({
      jsonrpc: "2.0",
      id: MAX_OPEN_UPSTREAM_REQUESTS + 49,
      error: {
        code: -32603,
        message: `Bouncer refused this request: ${MAX_OPEN_UPSTREAM_REQUESTS} requests of the upstream already wait for the client's answer`,
      },
    });
  });

  test("upstreamRequest() relays again once the client answers one", () => {
    const r = memoryRelay();
    for (let i = 0; i < MAX_OPEN_UPSTREAM_REQUESTS; i += 1) r.fromUpstream(sampling(i));
    r.fromUpstream(sampling("refused"));
    expect(r.lastUpstream().id).toBe("refused");
    const first = JSON.parse(r.toClient[0] ?? "{}") as { id: number };
    r.fromClient({ jsonrpc: "2.0", id: first.id, result: { role: "assistant" } });
    expect(r.lastUpstream()).toEqual({ jsonrpc: "2.0", id: 0, result: { role: "assistant" } });
    r.fromUpstream(sampling("later"));
    expect(r.toClient).toHaveLength(MAX_OPEN_UPSTREAM_REQUESTS + 1);
    expect(r.relay.client.table.size).toBe(MAX_OPEN_UPSTREAM_REQUESTS);
  });

  test("upstreamRequest() keeps at most MAX_OPEN_UPSTREAM_REQUEST_CHARS of long ids waiting", () => {
    const r = memoryRelay();
    const long = (i: number): string => `${i}-${"x".repeat(512 * 1024)}`;
    for (let i = 0; i < 20; i += 1) r.fromUpstream(sampling(long(i)));
    const waiting = r.toClient.length;
    // Each id is held twice (as written and as the cancel key): 1 MiB per request.
    expect(waiting).toBeGreaterThan(0);
    expect(waiting * 2 * long(0).length).toBeLessThanOrEqual(MAX_OPEN_UPSTREAM_REQUEST_CHARS);
    expect(r.toUpstream).toHaveLength(20 - waiting);
    expect(r.relay.client.table.size).toBe(waiting);
    expect(r.lastUpstream().id).toBe(long(19));
  });

  test("upstreamRequest() keeps its bound after the waiting requests end every way one can: answered, answered with an error, answered unusably, cancelled, the session closed", () => {
    const r = memoryRelay();
    /** Sends one more request than may wait; returns the client-leg ids of the relayed ones. */
    const fill = (tag: string): number[] => {
      const before = r.toClient.length;
      for (let i = 0; i <= MAX_OPEN_UPSTREAM_REQUESTS; i += 1) r.fromUpstream(sampling(`${tag}-${i}`));
      const relayed = r.toClient.slice(before).map((line) => (JSON.parse(line) as { id: number }).id);
      expect(relayed).toHaveLength(MAX_OPEN_UPSTREAM_REQUESTS);
      expect(r.lastUpstream()).toMatchObject({
        id: `${tag}-${MAX_OPEN_UPSTREAM_REQUESTS}`,
        error: { code: -32603 },
      });
      expect(r.relay.client.table.counted.entries).toBe(MAX_OPEN_UPSTREAM_REQUESTS);
      return relayed;
    };
    const drained = (): void => {
      expect(r.relay.client.table.size).toBe(0);
      expect(r.relay.client.table.counted).toEqual({ entries: 0, weight: 0 });
    };
    for (const id of fill("answered")) r.fromClient({ jsonrpc: "2.0", id, result: {} });
    drained();
    for (const id of fill("error")) r.fromClient({ jsonrpc: "2.0", id, error: { code: -1, message: "no" } });
    drained();
    for (const id of fill("unusable")) r.fromClient(`{"jsonrpc":"2.0","id":${id},"result":{},"result":{}}`);
    drained();
    fill("cancelled");
    for (let i = 0; i < MAX_OPEN_UPSTREAM_REQUESTS; i += 1) {
      const params = { requestId: `cancelled-${i}`, reason: "gave up" };
      r.fromUpstream({ jsonrpc: "2.0", method: "notifications/cancelled", params });
    }
    drained();
    expect(r.relay.upstreamTokens.size).toBe(0);
    fill("closed");
    r.relay.close();
    drained();
    fill("after");
  });

  test("upstreamRequest() holds as many long ids after earlier ones were answered as before", () => {
    const r = memoryRelay();
    const long = (tag: string, i: number): string => `${tag}${i}-${"x".repeat(512 * 1024)}`;
    const fill = (tag: string): number[] => {
      const before = r.toClient.length;
      for (let i = 0; i < 20; i += 1) r.fromUpstream(sampling(long(tag, i)));
      return r.toClient.slice(before).map((line) => (JSON.parse(line) as { id: number }).id);
    };
    const first = fill("a");
    expect(first.length).toBeGreaterThan(0);
    expect(r.relay.client.table.counted.weight).toBeLessThanOrEqual(MAX_OPEN_UPSTREAM_REQUEST_CHARS);
    for (const id of first) r.fromClient({ jsonrpc: "2.0", id, result: {} });
    expect(r.relay.client.table.counted).toEqual({ entries: 0, weight: 0 });
    expect(fill("b")).toHaveLength(first.length);
  });
});
