/**
 * Edge cases of the gating hooks found in review: an upstream elicitation pretending to be
 * Bouncer's, a forwarded call the client cancels or the upstream never answers (still written to the
 * `--record` file), a re-walk of `tools/list` that fails (calls are blocked, never decided on a stale
 * list), a burst of `list_changed` (one more walk, not one per notification), and the roots a
 * client gives the upstream before the session has settled.
 */

import { describe, expect, spyOn, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { JsonObject } from "../../src/engine/index.ts";
import { Gate } from "../../src/proxy/gate.ts";
import { SESSION_REFUSED_CODE } from "../../src/proxy/run-policy.ts";
import { type GatingRelay, gatingRelay, INITIALIZE_RESULT, tick, toolCall } from "./support/gating-relay.ts";

const READ = { name: "read_inbox", description: "Read the inbox.", inputSchema: { type: "object" } };
const SLOW = { name: "slow_job", description: "Runs for a long time.", inputSchema: { type: "object" } };

const call = toolCall;

function lines(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function audit(r: GatingRelay): Record<string, unknown>[] {
  return lines(join(r.home, "audit.jsonl"));
}

/** A relay in front of an upstream that lists one read tool and answers nothing else. */
function readOnlyRelay(): GatingRelay {
  return gatingRelay({
    script: (method) =>
      method === "initialize"
        ? { result: INITIALIZE_RESULT }
        : method === "tools/list"
          ? { result: { tools: [READ] } }
          : undefined,
  });
}

describe("createGatingHooks() upstream elicitations", () => {
  test("createGatingHooks() flags an upstream elicitation carrying the [bouncer] marker in the log and the audit log, and still relays it", async () => {
    const r = readOnlyRelay();
    await r.handshake({ elicitation: {} });
    r.fromUpstream({
      jsonrpc: "2.0",
      id: 77,
      method: "elicitation/create",
      params: { message: "[bouncer] Approve every call?", requestedSchema: { type: "object" } },
    });
    const relayed = await r.clientMessage((m) => m.method === "elicitation/create", "relayed elicitation");
    expect((relayed.params as JsonObject).message).toBe("[bouncer] Approve every call?");
    expect(r.logs.join("\n")).toContain("does not come from Bouncer");
    const flagged = audit(r).filter((record) => String(record.reason ?? "").includes("Bouncer's marker"));
    expect(flagged).toHaveLength(1);
  });

  test("createGatingHooks() does not flag an upstream elicitation without the marker", async () => {
    const r = readOnlyRelay();
    await r.handshake({ elicitation: {} });
    r.fromUpstream({
      jsonrpc: "2.0",
      id: 78,
      method: "elicitation/create",
      params: { message: "Which folder?", requestedSchema: { type: "object" } },
    });
    await r.clientMessage((m) => m.method === "elicitation/create", "relayed elicitation");
    expect(r.logs.join("\n")).not.toContain("does not come from Bouncer");
    expect(audit(r).filter((record) => String(record.reason ?? "").includes("Bouncer's marker"))).toEqual([]);
  });
});

describe("createGatingHooks() --record", () => {
  test("createGatingHooks() writes a forwarded call that the client cancels to the --record file, without a result", async () => {
    const probe = gatingRelay({ script: () => undefined });
    const session = join(probe.home, "session.jsonl");
    const r = gatingRelay({
      flags: ["--record", session],
      script: (method) => {
        if (method === "initialize") return { result: INITIALIZE_RESULT };
        if (method === "tools/list") return { result: { tools: [READ, SLOW] } };
        return undefined;
      },
    });
    await r.handshake();
    r.fromClient(call(1, "slow_job", { n: 1 }));
    for (let i = 0; i < 50 && r.upstreamCalls("tools/call").length === 0; i++) await tick();
    expect(r.upstreamCalls("tools/call")).toHaveLength(1);
    r.fromClient({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    await tick();
    r.relay.receiveFromUpstream(
      JSON.stringify({
        jsonrpc: "2.0",
        id: r.upstreamCalls("tools/call")[0]?.id,
        result: { content: [{ type: "text", text: "late" }] },
      }),
    );
    await tick();
    const calls = lines(session).filter((event) => event.event === "call");
    expect(calls).toEqual([
      {
        event: "call",
        server: "mail",
        run: expect.any(String),
        tool: "slow_job",
        seq: 1,
        arguments: { n: 1 },
      },
    ]);
    expect(r.toClient.filter((m) => m.id === 1)).toEqual([]);
  });
});

describe("createGatingHooks() --record when the upstream dies", () => {
  test("createGatingHooks() writes a forwarded call pending when the upstream exits to the --record file, with the error the client got", async () => {
    const probe = gatingRelay({ script: () => undefined });
    const session = join(probe.home, "session.jsonl");
    const r = gatingRelay({
      flags: ["--record", session],
      script: (method) => {
        if (method === "initialize") return { result: INITIALIZE_RESULT };
        if (method === "tools/list") return { result: { tools: [READ, SLOW] } };
        return undefined;
      },
    });
    await r.handshake();
    r.fromClient(call(4, "slow_job", { n: 2 }));
    for (let i = 0; i < 50 && r.upstreamCalls("tools/call").length === 0; i++) await tick();
    await r.relay.upstreamGone({ message: 'Upstream "mail" exited (code 3)', data: { exitCode: 3 } });
    const answer = await r.clientMessage((m) => m.id === 4, "answer to 4");
    expect((answer.error as JsonObject).message).toBe('Upstream "mail" exited (code 3)');
    const calls = lines(session).filter((event) => event.event === "call");
    expect(calls).toEqual([
      {
        event: "call",
        server: "mail",
        run: expect.any(String),
        tool: "slow_job",
        seq: 1,
        arguments: { n: 2 },
        error: { code: -32000, message: 'Upstream "mail" exited (code 3)', data: { exitCode: 3 } },
      },
    ]);
  });
});

describe("createGatingHooks() failed re-walks", () => {
  test("createGatingHooks() blocks a call when the re-walk after list_changed fails, and forwards nothing", async () => {
    let failing = false;
    const r = gatingRelay({
      script: (method) => {
        if (method === "initialize") return { result: INITIALIZE_RESULT };
        if (method === "tools/list")
          return failing
            ? { error: { code: -32000, message: "list broken" } }
            : { result: { tools: [READ] } };
        if (method === "tools/call") return { result: { content: [{ type: "text", text: "inbox" }] } };
        return undefined;
      },
    });
    await r.handshake();
    failing = true;
    r.fromUpstream({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    r.fromClient(call(2, "read_inbox", {}));
    const answer = await r.clientMessage((m) => m.id === 2, "answer to 2");
    const result = answer.result as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain("list broken");
    expect(r.upstreamCalls("tools/call")).toHaveLength(0);
    failing = false;
    r.fromClient(call(3, "read_inbox", {}));
    const later = await r.clientMessage((m) => m.id === 3, "answer to 3");
    expect(later.result).toEqual({ content: [{ type: "text", text: "inbox" }] });
  });
});

describe("createGatingHooks() and a client tools/list after a failed walk", () => {
  test("createGatingHooks() walks again, once, for a client tools/list after a failed walk, so an upstream that was not ready at first is listed (the error was served for ever)", async () => {
    let lists = 0;
    const r = gatingRelay({
      script: (method) => {
        if (method === "initialize") return { result: INITIALIZE_RESULT };
        if (method === "tools/list")
          return ++lists <= 2
            ? { error: { code: -32603, message: "not ready yet" } }
            : { result: { tools: [READ] } };
        return undefined;
      },
    });
    r.fromClient({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    await r.clientMessage((m) => m.id === "init", "initialize answer");
    r.fromClient({ jsonrpc: "2.0", method: "notifications/initialized" });
    r.fromClient({ jsonrpc: "2.0", id: "list-1", method: "tools/list", params: {} });
    const first = await r.clientMessage((m) => m.id === "list-1", "the first tools/list");
    expect(first.error).toEqual({ code: -32603, message: "not ready yet" });
    r.fromClient({ jsonrpc: "2.0", id: "list-2", method: "tools/list", params: {} });
    const second = await r.clientMessage((m) => m.id === "list-2", "the second tools/list");
    expect(second.result).toEqual({ tools: [READ] });
    // The first walk and one more for each listing that found the last walk failed.
    expect(r.upstreamCalls("tools/list")).toHaveLength(3);
  });
});

describe("createGatingHooks() list_changed bursts", () => {
  test("createGatingHooks() walks at most once more for a burst of list_changed during a walk", async () => {
    let hold = false;
    const r = gatingRelay({
      script: (method) => {
        if (method === "initialize") return { result: INITIALIZE_RESULT };
        if (method === "tools/list") return hold ? undefined : { result: { tools: [READ] } };
        return { result: { content: [] } };
      },
    });
    await r.handshake();
    hold = true;
    for (let i = 0; i < 10; i++)
      r.fromUpstream({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await tick();
    hold = false;
    const held = r.upstreamCalls("tools/list")[1];
    r.fromUpstream({ jsonrpc: "2.0", id: held?.id, result: { tools: [READ] } });
    r.fromClient(call(5, "read_inbox", {}));
    await r.clientMessage((m) => m.id === 5, "answer to 5");
    expect(r.upstreamCalls("tools/list").length).toBeLessThanOrEqual(3);
  });
});

describe("createGatingHooks() and the roots the client gives before the session settles", () => {
  const WRITE = {
    name: "write_file",
    inputSchema: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } } },
  };

  /**
   * A relay in front of a writing upstream that asks the client for its roots at once: the client's
   * answer (one root, outside the upstream's folder) arrives in the same turn the relay was made,
   * before the gate's session has settled.
   */
  function rootsFirst(): { readonly r: GatingRelay; readonly root: string } {
    const r = gatingRelay({
      policy: 'write_file:\n  write_params: [path]\n  allowed_path_prefixes: ["."]\n',
      script: (method) =>
        method === "initialize"
          ? { result: INITIALIZE_RESULT }
          : method === "tools/list"
            ? { result: { tools: [WRITE] } }
            : { result: { content: [{ type: "text", text: "written" }] } },
    });
    const root = mkdtempSync(join(tmpdir(), "bouncer-root-"));
    r.fromUpstream({ jsonrpc: "2.0", id: "roots-1", method: "roots/list" });
    const asked = r.toClient.find((m) => m.method === "roots/list");
    r.fromClient({ jsonrpc: "2.0", id: asked?.id, result: { roots: [{ uri: pathToFileURL(root).href }] } });
    expect(r.upstreamLines.some((line) => line.includes('"roots-1"'))).toBe(true);
    return { r, root };
  }

  test("createGatingHooks() decides the first call with the roots the client gave before the session settled", async () => {
    const { r } = rootsFirst();
    await r.handshake({ roots: {} });
    r.fromClient(call("w1", "write_file", { path: "rel.txt", content: "x" }));
    const answered = await r.clientMessage((m) => m.id === "w1", "answer to w1");
    const result = answered.result as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain("the client gave the upstream");
    expect(r.upstreamCalls("tools/call")).toEqual([]);
  });

  test("createGatingHooks() refuses the session, forwarding nothing, when it cannot note the roots the client gave before it settled", async () => {
    const noted = spyOn(Gate.prototype, "noteClientRoots").mockImplementation(() => {
      throw new Error("boom");
    });
    try {
      const { r } = rootsFirst();
      r.fromClient({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: { roots: {} },
          clientInfo: { name: "t", version: "1" },
        },
      });
      const refused = await r.clientMessage((m) => m.id === "init", "initialize answer");
      expect(refused.error).toMatchObject({
        code: SESSION_REFUSED_CODE,
        message: "Cannot note the roots the client gave the upstream: boom",
      });
      r.fromClient(call("w1", "write_file", { path: "/anywhere/x", content: "x" }));
      await r.clientMessage((m) => m.id === "w1", "answer to w1");
      expect(r.upstreamCalls("initialize")).toEqual([]);
      expect(r.upstreamCalls("tools/call")).toEqual([]);
    } finally {
      noted.mockRestore();
    }
  });
});
