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

  test("refuseRequests() drops Bouncer's answers to the upstream's invalid requests, and says how many when it ends", () => {
    const m = memoryRelay();
    const invalid = (id: string): string => `{"jsonrpc":"2.0","id":"${id}","method":"x","params":5}`;
    m.fromUpstream(invalid("before"));
    expect(m.lastUpstream()).toMatchObject({ id: "before", error: { code: -32600 } });
    m.relay.refuseRequests(REFUSAL);
    for (let i = 0; i < 1000; i += 1) m.fromUpstream(invalid(`flood-${i}`));
    m.fromUpstream('{"jsonrpc":"2.0","id":"twice","id":"twice","method":"x"}');
    expect(m.toUpstream).toHaveLength(1);
    m.relay.refuseRequests(undefined);
    expect(m.logs).toContain(
      "Dropped 1001 answer(s) to the upstream's own messages while the upstream was not reading its input",
    );
    m.fromUpstream(invalid("after"));
    expect(m.lastUpstream()).toMatchObject({ id: "after", error: { code: -32600 } });
  });

  test("refuseRequests() drops Bouncer's refusals of the upstream's requests, which reach neither side", () => {
    const m = memoryRelay(() => ({}), { unknownMethods: "deny" });
    m.relay.refuseRequests(REFUSAL);
    m.fromUpstream({ jsonrpc: "2.0", id: 1, method: "made/up" });
    expect(m.toUpstream).toEqual([]);
    expect(m.toClient).toEqual([]);
  });
});
