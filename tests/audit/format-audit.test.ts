import { expect, test } from "bun:test";
import type { AuditRecord } from "../../src/audit/audit-record.ts";
import { cell, formatAuditSummary, formatAuditTable } from "../../src/audit/format-audit.ts";
import { summarizeAudit } from "../../src/audit/summarize-audit.ts";

const records = [
  {
    ts: "2026-01-01T00:00:00.000Z",
    event: "decision",
    server: "mail",
    tool: "send_email",
    verdict: "deny",
    contract: "sink_gate",
    reason: "tainted",
  },
  {
    ts: "2026-01-01T00:00:01.000Z",
    event: "outcome",
    server: "mail",
    tool: "send_email",
    outcome: "approved",
  },
  { ts: "2026-01-01T00:00:02.000Z", event: "pin", server: "fs", tool: "write_file", outcome: "changed" },
] as AuditRecord[];

test("formatAuditTable() prints a header and one aligned row per record", () => {
  const lines = formatAuditTable(records).split("\n");
  expect(lines).toHaveLength(5);
  expect(lines[0]).toMatch(/^TIME\s+SERVER\s+TOOL\s+VERDICT\s+CONTRACT\s+REASON$/);
  expect(lines[1]).toMatch(/^2026-01-01T00:00:00.000Z {2}mail\s+send_email {2}deny\s+sink_gate {2}tainted$/);
  expect(lines[2]).toContain("approved");
  expect(lines[3]).toContain("pin:changed");
  expect(lines[1]?.indexOf("send_email")).toBe(lines[0]?.indexOf("TOOL"));
  expect(lines[4]).toBe("");
});

test("formatAuditTable() with kept widths lines a row printed alone up with the header printed before it", () => {
  const widths: number[] = [];
  const wide = { ...records[0], server: "a-much-longer-server-name" } as AuditRecord;
  const head = formatAuditTable([wide], { widths }).split("\n");
  const next = formatAuditTable([records[0] as AuditRecord], { header: false, widths }).split("\n");
  expect(next[0]?.indexOf("send_email")).toBe(head[0]?.indexOf("TOOL"));
  expect(formatAuditTable([records[0] as AuditRecord], { header: false }).indexOf("send_email")).toBeLessThan(
    head[0]?.indexOf("TOOL") ?? 0,
  );
});

test("formatAuditTable() marks a --mode audit verdict as not enforced: would deny, would ask", () => {
  const audit = [
    { ...records[0], mode: "audit" },
    { ...records[0], verdict: "ask", mode: "audit" },
    { ...records[0], verdict: "allow", mode: "audit" },
  ] as AuditRecord[];
  const lines = formatAuditTable(audit, { header: false }).split("\n");
  expect(lines[0]).toContain("  would deny  ");
  expect(lines[1]).toContain("  would ask  ");
  expect(lines[2]).toMatch(/ {2}allow {2}/);
});

// A million: the spread limit lies between 500,000 and a million arguments here. Rendering takes
// seconds on a loaded machine, so the test gets a hang guard of 60 s rather than the default 5 s.
test("formatAuditTable() renders a log of a million records (no spread of the rows)", () => {
  const many = Array.from({ length: 1_000_000 }, () => records[0]) as AuditRecord[];
  expect(formatAuditTable(many, { header: false }).length).toBeGreaterThan(1_000_000);
}, 60_000);

test("formatAuditTable() shows a pin record of --mode audit as what enforce mode would have done", () => {
  const audited = [
    {
      ts: "2026-01-01T00:00:03.000Z",
      event: "pin",
      server: "fs",
      tool: "t",
      outcome: "hidden",
      mode: "audit",
    },
  ] as AuditRecord[];
  expect(formatAuditTable(audited, { header: false })).toContain("would pin:hidden");
  expect(formatAuditTable(records, { header: false })).not.toContain("would pin:");
});

test("formatAuditTable() leaves out the header when asked and prints nothing for no records", () => {
  expect(formatAuditTable(records, { header: false }).split("\n")).toHaveLength(4);
  expect(formatAuditTable([])).toBe("");
});

test("formatAuditTable() escapes terminal control characters from the log", () => {
  const hostile = [
    { ...records[0], reason: "\u001b[2Jgone\u202Eevil\nline", tool: "t\u0007" },
  ] as AuditRecord[];
  const table = formatAuditTable(hostile);
  expect(table).not.toContain("\u001b");
  expect(table).not.toContain("\u202e");
  expect(table).not.toContain("\u0007");
  expect(table).toContain("\\u{1b}[2Jgone\\u{202e}evil\\u{a}line");
  expect(table.split("\n")).toHaveLength(3);
});

test("formatAuditTable() colours verdicts only when colour is on", () => {
  expect(formatAuditTable(records)).not.toContain("\u001b[");
  expect(formatAuditTable(records, { color: true })).toContain("\u001b[31mdeny");
});

test("cell() keeps an already rendered escape as it is and escapes a raw control character", () => {
  expect(cell('"a\\u{200b}b" \u001b[2J', 40)).toBe('"a\\u{200b}b" \\u{1b}[2J');
});

test("cell() cuts long values and renders non-strings as JSON", () => {
  expect(cell("abcdef", 4)).toBe("abc…");
  expect(cell(12, 10)).toBe("12");
  expect(cell(undefined, 10)).toBe("");
});

test("formatAuditSummary() lists the counts by section", () => {
  const text = formatAuditSummary(summarizeAudit(records));
  expect(text).toStartWith(
    "3 records from 2026-01-01T00:00:00.000Z to 2026-01-01T00:00:02.000Z, 1 decision\n",
  );
  expect(text).toContain("By verdict\n  deny  1\n");
  expect(text).toContain("By tool\n  mail/send_email  1\n");
  expect(text).toContain("Ask outcomes\n  approved  1\n");
});
