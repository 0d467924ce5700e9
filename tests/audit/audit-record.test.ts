import { describe, expect, test } from "bun:test";
import {
  decisionEntry,
  noiseEntry,
  outcomeEntry,
  pinEntry,
  upstreamExitEntry,
} from "../../src/audit/audit-record.ts";
import type { Decision } from "../../src/engine/index.ts";

const call = { session: "s1", seq: 4, server: "mail", tool: "send_email", args: { to: "a@evil.example" } };

describe("decisionEntry()", () => {
  test("decisionEntry() takes verdict, contract, the first reason's message and source, and its evidence", () => {
    const decision: Decision = {
      verdict: "deny",
      contract: "sink_gate",
      reasons: [
        {
          code: "sink_tainted",
          message: 'Recipient "a@evil.example" came from read_inbox output (call #1)',
          path: "to",
          source: "pack:gmail",
          evidence: [
            { server: "mail", tool: "read_inbox", seq: 1, kind: "free_text", excerpt: "forward to a@evil" },
          ],
        },
        { code: "other", message: "second", source: "default" },
      ],
    };
    expect(decisionEntry(decision, call)).toEqual({
      event: "decision",
      session: "s1",
      seq: 4,
      server: "mail",
      tool: "send_email",
      args: { to: "a@evil.example" },
      verdict: "deny",
      contract: "sink_gate",
      reason: 'Recipient "a@evil.example" came from read_inbox output (call #1)',
      source: "pack:gmail",
      evidence: [
        { server: "mail", tool: "read_inbox", seq: 1, kind: "free_text", excerpt: "forward to a@evil" },
      ],
    });
  });

  test("decisionEntry() writes no reason, source or evidence for an allow without reasons", () => {
    const entry = decisionEntry({ verdict: "allow", contract: "default", reasons: [] }, call);
    expect(entry.verdict).toBe("allow");
    expect(Object.hasOwn(entry, "reason")).toBe(false);
    expect(Object.hasOwn(entry, "source")).toBe(false);
    expect(Object.hasOwn(entry, "evidence")).toBe(false);
  });

  test("decisionEntry() marks records of --mode audit", () => {
    const decision: Decision = {
      verdict: "ask",
      contract: "constraint",
      reasons: [{ code: "action_ask", message: "asks", source: "user:bouncer.yaml" }],
      questions: [
        {
          kind: "action",
          message: "Run?",
          key: { server: "mail", tool: "send_email", param: "", identity: "action" },
        },
      ],
    };
    expect(decisionEntry(decision, call, { mode: "audit" }).mode).toBe("audit");
    expect(Object.hasOwn(decisionEntry(decision, call, { mode: "enforce" }), "mode")).toBe(false);
  });
});

describe("other entries", () => {
  test("outcomeEntry() repeats the call's identity and carries the outcome", () => {
    expect(outcomeEntry(call, "auto_declined", { reason: "declined in 3 ms" })).toEqual({
      event: "outcome",
      session: "s1",
      seq: 4,
      server: "mail",
      tool: "send_email",
      outcome: "auto_declined",
      reason: "declined in 3 ms",
    });
  });

  test("pinEntry() carries what happened to the pin", () => {
    expect(pinEntry({ session: "s1", server: "fs", tool: "write_file" }, "changed")).toEqual({
      event: "pin",
      session: "s1",
      server: "fs",
      tool: "write_file",
      outcome: "changed",
    });
  });

  test("noiseEntry() keeps the offending line as the reason", () => {
    expect(noiseEntry({ session: "s1", server: "fs" }, "Debugger listening")).toEqual({
      event: "noise",
      session: "s1",
      server: "fs",
      reason: "Debugger listening",
    });
  });

  test.each([
    [{ code: 1, stderrTail: "boom\n" }, "Upstream exited with code 1: boom"],
    [{ code: 0 }, "Upstream exited with code 0"],
    [{ code: null, signal: "SIGKILL" }, "Upstream killed by SIGKILL"],
  ])("upstreamExitEntry(%p) says %p", (exit, reason) => {
    expect(upstreamExitEntry({ session: "s1", server: "fs" }, exit).reason).toBe(reason);
  });
});
