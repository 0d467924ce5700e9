import { expect, test } from "bun:test";
import type { AuditRecord } from "../../src/audit/audit-record.ts";
import { summarizeAudit } from "../../src/audit/summarize-audit.ts";

/** A record with defaults. */
function rec(fields: Partial<Record<keyof AuditRecord, unknown>>): AuditRecord {
  return { ts: "2026-01-01T00:00:00.000Z", event: "decision", ...fields } as AuditRecord;
}

test("summarizeAudit() counts decisions by verdict, contract, server and server/tool, and outcomes", () => {
  const summary = summarizeAudit([
    rec({
      ts: "2026-01-01T00:00:00.000Z",
      server: "mail",
      tool: "send_email",
      verdict: "deny",
      contract: "sink_gate",
    }),
    rec({ server: "mail", tool: "send_email", verdict: "ask", contract: "sink_gate" }),
    rec({ event: "outcome", server: "mail", tool: "send_email", outcome: "approved" }),
    rec({ server: "fs", tool: "read_file", verdict: "allow", contract: "default" }),
    rec({ server: "mail", tool: "read_inbox", verdict: "allow", contract: "default" }),
    rec({ event: "pin", server: "fs", tool: "read_file", outcome: "pinned" }),
    rec({ ts: "2026-01-02T00:00:00.000Z", event: "noise", server: "fs", reason: "x" }),
  ]);
  expect(summary.records).toBe(7);
  expect(summary.decisions).toBe(4);
  expect(summary.first).toBe("2026-01-01T00:00:00.000Z");
  expect(summary.last).toBe("2026-01-02T00:00:00.000Z");
  expect({ ...summary.byVerdict }).toEqual({ allow: 2, deny: 1, ask: 1 });
  expect(Object.keys(summary.byVerdict)).toEqual(["allow", "ask", "deny"]);
  expect({ ...summary.byContract }).toEqual({ sink_gate: 2, default: 2 });
  expect({ ...summary.byServer }).toEqual({ mail: 3, fs: 1 });
  expect({ ...summary.byTool }).toEqual({ "mail/send_email": 2, "fs/read_file": 1, "mail/read_inbox": 1 });
  expect({ ...summary.byOutcome }).toEqual({ approved: 1 });
  expect({ ...summary.byEvent }).toEqual({ decision: 4, outcome: 1, pin: 1, noise: 1 });
});

test("summarizeAudit() counts hostile names as ordinary keys and non-strings as ?", () => {
  const summary = summarizeAudit([
    rec({ server: "__proto__", tool: "constructor", verdict: "toString", contract: 5 }),
    rec({ server: "__proto__", tool: "hasOwnProperty", verdict: ["deny"] }),
  ]);
  expect(Object.hasOwn(summary.byServer, "__proto__")).toBe(true);
  expect(Object.getOwnPropertyDescriptor(summary.byServer, "__proto__")?.value).toBe(2);
  expect(JSON.stringify(summary.byVerdict)).toBe('{"?":1,"toString":1}');
  expect(JSON.stringify(summary.byTool)).toBe('{"__proto__/constructor":1,"__proto__/hasOwnProperty":1}');
  expect(JSON.stringify(summary.byContract)).toBe('{"?":2}');
});

test("summarizeAudit() keeps server/tool keys apart when a name holds a slash", () => {
  const summary = summarizeAudit([
    rec({ server: "a/b", tool: "c", verdict: "allow" }),
    rec({ server: "a", tool: "b/c", verdict: "allow" }),
  ]);
  expect({ ...summary.byTool }).toEqual({ '"a/b"/c': 1, "a/b/c": 1 });
});

test("summarizeAudit() counts --mode audit verdicts apart (the calls were forwarded)", () => {
  const summary = summarizeAudit([
    rec({ verdict: "deny", mode: "audit" }),
    rec({ verdict: "ask", mode: "audit" }),
    rec({ verdict: "allow", mode: "audit" }),
    rec({ verdict: "deny" }),
  ]);
  expect({ ...summary.byVerdict }).toEqual({ "would deny": 1, "would ask": 1, allow: 1, deny: 1 });
});

test("summarizeAudit() of no records has zero counts and no time range", () => {
  const summary = summarizeAudit([]);
  expect(summary.records).toBe(0);
  expect(Object.hasOwn(summary, "first")).toBe(false);
  expect(JSON.stringify(summary.byVerdict)).toBe("{}");
});
