import { describe, expect, test } from "bun:test";
import { memoryRelay } from "./support/memory-relay.ts";

const REFUSAL = { code: -32000, message: "The upstream is not reading its input" };

describe("Relay refusing requests while the upstream does not read its input", () => {
  test("refuseRequests() answers new client requests with the error at once and forwards none; a drain forwards again", () => {
    const m = memoryRelay();
    m.relay.refuseRequests(REFUSAL);
    m.fromClient({ jsonrpc: "2.0", id: "a", method: "resources/list", params: {} });
    expect(m.toUpstream).toEqual([]);
    expect(m.lastClient()).toEqual({ jsonrpc: "2.0", id: "a", error: REFUSAL });
    m.relay.refuseRequests(undefined);
    m.fromClient({ jsonrpc: "2.0", id: "b", method: "resources/list", params: {} });
    expect(m.lastUpstream()).toMatchObject({ method: "resources/list" });
  });

  test("refuseRequests() drops client notifications but cancellations, and says how many when it ends", () => {
    const m = memoryRelay();
    m.fromClient({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "file:///a" } });
    const forwarded = m.toUpstream.length;
    m.relay.refuseRequests(REFUSAL);
    m.fromClient({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
    m.fromClient({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
    m.fromClient({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    expect(m.toUpstream.slice(forwarded).map((text) => JSON.parse(text).method)).toEqual([
      "notifications/cancelled",
    ]);
    m.relay.refuseRequests(undefined);
    expect(m.logs).toContain("Dropped 2 client notification(s) while the upstream was not reading its input");
  });
});
