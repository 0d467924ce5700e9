/**
 * A call the human declined with "Remember" on is blocked as declined even when the decline cannot
 * be kept for the session: the call is answered with Bouncer's blocked result that says so (not a
 * JSON-RPC error), its ask and outcome are audited, and its record keeps the decline, so that
 * replay applies it (stricter than a live session that kept none of it, never laxer; SPEC §3.4,
 * §3.5, §5.9). A real gate with memory pins, a real audit log and session file in a temp folder; the
 * asker is the function that answers the ask.
 */

import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAuditWriter, createSessionRecorder } from "../../src/audit/index.ts";
import type { AskAnswer } from "../../src/engine/index.ts";
import { builtinPacks } from "../../src/platform/packs.ts";
import { parsePolicyFiles } from "../../src/policy/index.ts";
import type { AskOutcome } from "../../src/proxy/asker.ts";
import { Gate } from "../../src/proxy/gate.ts";
import { gateToolCall } from "../../src/proxy/gated-call.ts";
import { createMemoryPinStore } from "../../src/proxy/memory-pin-store.ts";
import { SessionAudit } from "../../src/proxy/session-audit.ts";
import { ToolListState } from "../../src/proxy/tool-list-state.ts";

const SERVER = { name: "mail", command: ["mail-server"], cwd: "/work" };
const POLICY = "send_email:\n  exfiltrating: true\n  sink_params: [to]\n";
const SEND = {
  name: "send_email",
  inputSchema: { type: "object", properties: { to: { type: "string" } } },
} as const;
const REMEMBERED: AskAnswer = { accepted: false, remember: true };
const DECLINED: AskOutcome = { kind: "declined", reason: "The human declined the call", answer: REMEMBERED };

describe("gateToolCall() (a remembered decline)", () => {
  test("gateToolCall() blocks a declined call whose decline cannot be kept, audited and recorded with it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-decline-"));
    const policy = parsePolicyFiles([{ text: POLICY, fileName: "bouncer.yaml" }], builtinPacks());
    const pins = createMemoryPinStore();
    const gate = new Gate(policy, { home: "/home/me", cwd: "/work", pins });
    gate.registerServer(SERVER);
    await gate.walkTools(SERVER.name, [SEND]);
    gate.answer = () => Promise.reject(new RangeError("Map maximum size exceeded"));
    const logs: string[] = [];
    const audit = new SessionAudit({
      session: "s",
      server: SERVER.name,
      writer: createAuditWriter(join(dir, "audit.jsonl")),
      recorder: createSessionRecorder(join(dir, "session.jsonl"), { run: "r" }),
      mode: "enforce",
      log: (message) => void logs.push(message),
    });
    const tools = new ToolListState({
      gate,
      pins,
      server: SERVER,
      audit,
      requestUpstream: () => Promise.resolve({ tools: [SEND] }),
      notifyClient: () => {},
      log: (message) => void logs.push(message),
    });
    const args = { to: "someone@elsewhere.example" };
    const gated = await gateToolCall(
      {
        server: SERVER.name,
        gate,
        tools,
        audit,
        asker: { ask: () => Promise.resolve(DECLINED), asked: 1 },
        mode: "enforce",
        log: (message) => void logs.push(message),
      },
      {
        id: 1,
        method: "tools/call",
        params: { name: "send_email", arguments: args },
        signal: new AbortController().signal,
        name: "send_email",
        arguments: args,
        strict: { duplicateKeys: false, unsafeIntegers: false, tooDeep: false },
      },
    );
    expect(gated.decision.kind).toBe("result");
    const text = JSON.stringify(gated.decision);
    expect(text).toContain("[bouncer blocked] The human declined the call");
    expect(text).toContain("the decline cannot be remembered: Map maximum size exceeded");
    expect(logs).toEqual([
      'Cannot remember the decline of a call of "send_email": Map maximum size exceeded',
    ]);
    // Recorded with the decline it answered, and no live_blocked: replay applies the decline.
    expect(gated.record).toEqual({ seq: 1, args, ask: "declined", answer: REMEMBERED });
    const records = readFileSync(join(dir, "audit.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { event: string; seq: number; verdict?: string; outcome?: string });
    expect(records.map((record) => [record.event, record.seq, record.verdict ?? record.outcome])).toEqual([
      ["decision", 1, "ask"],
      ["outcome", 1, "declined"],
    ]);
  });
});
