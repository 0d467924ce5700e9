/**
 * The audit summary: counts of decisions by verdict, contract, server and tool, plus ask outcomes and
 * record types — what `bouncer audit --summary` prints and `bouncer serve` exposes as `audit_summary`.
 * Pure (works on records already read).
 *
 * Source: SPEC §5.4 (`audit_summary`: counts by verdict, contract, server and tool), §5.6.
 * @module
 */

import type { AuditRecord } from "./audit-record.ts";

/** A count table: key → number, most frequent first. Null-prototype (keys come from the log). */
export type Counts = Readonly<Record<string, number>>;

/** What {@link summarizeAudit} returns. Contains no arguments, reasons or evidence. */
export interface AuditSummary {
  /** Every record read. */
  readonly records: number;
  /** `decision` records (one per decided call). */
  readonly decisions: number;
  /** Timestamp of the first and last record, when there are records. */
  readonly first?: string;
  readonly last?: string;
  /**
   * Decisions by verdict (`allow`, `deny`, `ask`; under `--mode audit` `would deny` and `would ask`,
   * since those calls were forwarded).
   */
  readonly byVerdict: Counts;
  /** Decisions by contract (`pinning`, `budget`, `constraint`, `sink_gate`, `default`). */
  readonly byContract: Counts;
  /** Decisions by server. */
  readonly byServer: Counts;
  /**
   * Decisions by tool, keyed `server/tool` (tools of different servers may share a name; a server
   * name holding `/` is quoted: `"a/b"/c`).
   */
  readonly byTool: Counts;
  /** `outcome` records by outcome (`approved`, `declined`, …). */
  readonly byOutcome: Counts;
  /** Records by `event`. */
  readonly byEvent: Counts;
}

/**
 * Reads a string field of a record that came from a file (any type may stand there).
 * @param record - The record.
 * @param key - The field.
 * @returns The string, or `"?"` when absent or not a string.
 */
function text(record: AuditRecord, key: keyof AuditRecord): string {
  const value: unknown = Object.hasOwn(record, key) ? record[key] : undefined;
  return typeof value === "string" ? value : "?";
}

/**
 * A decision's verdict as `audit` reports it: under `--mode audit` (SPEC §3.8) a deny or ask was
 * only logged and the call forwarded, so it reads `would deny` / `would ask`.
 *
 * Source: SPEC §3.8.
 * @param verdict - The record's verdict (as text).
 * @param mode - The record's `mode` field.
 * @returns The verdict, or `would ` and the verdict.
 */
export function reportedVerdict(verdict: string, mode: unknown): string {
  return mode === "audit" && verdict !== "allow" ? `would ${verdict}` : verdict;
}

/**
 * The `server/tool` key of a decision, unambiguous: a server name holding `/` (or starting with a
 * quote) is written as a JSON string, so `a/b` + `c` and `a` + `b/c` stay apart.
 * @param server - The server name.
 * @param tool - The tool name.
 * @returns e.g. `mail/send_email`, `"a/b"/c`.
 */
function toolKey(server: string, tool: string): string {
  return `${/[/"]/.test(server) ? JSON.stringify(server) : server}/${tool}`;
}

/**
 * Adds one to a key of a counting map.
 * @param counts - The map.
 * @param key - The key.
 */
function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/**
 * Turns a counting map into a null-prototype object, most frequent first, then by key.
 * @param counts - The map.
 * @returns The table.
 */
function toCounts(counts: Map<string, number>): Counts {
  const out: Record<string, number> = Object.create(null);
  const sorted = [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, count] of sorted) out[key] = count;
  return out;
}

/**
 * Summarises audit records: decisions by verdict, contract, server and `server/tool`, ask outcomes,
 * record types, and the time range.
 *
 * Source: SPEC §5.4, §5.6.
 * @param records - Records as read by `readAuditLog` (oldest first).
 * @returns The summary.
 */
export function summarizeAudit(records: readonly AuditRecord[]): AuditSummary {
  const byVerdict = new Map<string, number>();
  const byContract = new Map<string, number>();
  const byServer = new Map<string, number>();
  const byTool = new Map<string, number>();
  const byOutcome = new Map<string, number>();
  const byEvent = new Map<string, number>();
  let decisions = 0;
  for (const record of records) {
    const event = text(record, "event");
    bump(byEvent, event);
    if (event === "outcome") bump(byOutcome, text(record, "outcome"));
    if (event !== "decision") continue;
    decisions++;
    bump(byVerdict, reportedVerdict(text(record, "verdict"), text(record, "mode")));
    bump(byContract, text(record, "contract"));
    bump(byServer, text(record, "server"));
    bump(byTool, toolKey(text(record, "server"), text(record, "tool")));
  }
  const first = records[0];
  const last = records.at(-1);
  return {
    records: records.length,
    decisions,
    ...(first === undefined ? {} : { first: text(first, "ts") }),
    ...(last === undefined ? {} : { last: text(last, "ts") }),
    byVerdict: toCounts(byVerdict),
    byContract: toCounts(byContract),
    byServer: toCounts(byServer),
    byTool: toCounts(byTool),
    byOutcome: toCounts(byOutcome),
    byEvent: toCounts(byEvent),
  };
}
