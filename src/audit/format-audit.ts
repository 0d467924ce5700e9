/**
 * Renders audit records and summaries for people: a table (time, server, tool, verdict, contract,
 * reason) and a summary listing, every cell from the log treated as untrusted (control and format
 * characters escaped, so a crafted log line cannot drive the terminal), colour only when asked.
 * Pure (text in, text out).
 *
 * Source: SPEC §5 ("people get tables, colour when stdout is a terminal"), §5.6.
 * @module
 */

import pc from "picocolors";
// A deep import on purpose (STYLE #9 otherwise): the audit table needs no engine but this.
import { escapeControls } from "../engine/render.ts";
import type { AuditRecord } from "./audit-record.ts";
import { type AuditSummary, type Counts, reportedVerdict } from "./summarize-audit.ts";

/** Options of the formatters. */
export interface FormatOptions {
  /** Colour verdicts and outcomes (stdout is a colour terminal). Default false. */
  readonly color?: boolean;
  /** Print the header row (tables only). Default true; `--follow` prints it once. */
  readonly header?: boolean;
  /**
   * Column widths kept from one table to the next (tables only): each column is at least as wide
   * as here, and the widths used are written back, so that the rows `--follow` prints one by one
   * line up with those before them (a wider cell widens its column from that row on).
   */
  readonly widths?: number[];
}

/** Widest a narrow column may get. */
const MAX_COLUMN = 28;
/** Longest reason shown in the table. */
const MAX_REASON = 120;

const HEADERS = ["TIME", "SERVER", "TOOL", "VERDICT", "CONTRACT", "REASON"] as const;

/**
 * Makes an untrusted string safe to print: control (Cc), format (Cf), line and paragraph separator
 * characters become `\u{…}`, and the text is cut to `max` characters with `…`.
 * @param value - A value read from the log (any type).
 * @param max - The longest result, in characters.
 * @returns A printable single-line string (`""` for absent values).
 */
export function cell(value: unknown, max: number): string {
  if (value === undefined || value === null) return "";
  const raw = typeof value === "string" ? value : JSON.stringify(value);
  const safe = escapeControls(raw);
  const chars = Array.from(safe);
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : safe;
}

/**
 * The verdict column: the verdict of a decision, the outcome of an ask, `pin:<what>` for a pin
 * record (`would pin:<what>` for one of `--mode audit`), and the event name otherwise.
 * @param record - A record.
 * @returns The column's raw text.
 */
function verdictOf(record: AuditRecord): unknown {
  const own = (key: keyof AuditRecord): unknown => (Object.hasOwn(record, key) ? record[key] : undefined);
  const event = own("event");
  if (event === "decision") return reportedVerdict(cell(own("verdict"), MAX_COLUMN), own("mode"));
  if (event === "outcome") return own("outcome");
  // A pin record of `--mode audit` is what enforce mode would have done (the client saw the list).
  if (event === "pin")
    return `${own("mode") === "audit" ? "would " : ""}pin:${cell(own("outcome"), MAX_COLUMN)}`;
  return event;
}

/**
 * The verdict word of a cell, without the `would ` of an audit-mode record (for colouring).
 * @param text - The verdict cell.
 * @returns e.g. `deny` for `would deny`.
 */
function bareVerdict(text: string): string {
  return text.startsWith("would ") ? text.slice("would ".length) : text;
}

/**
 * Colours a verdict or outcome: deny-like red, ask-like yellow, allow-like green.
 * @param text - The padded cell.
 * @param word - The bare verdict.
 * @param options - Whether to colour.
 * @returns The cell, coloured or not.
 */
function paint(text: string, word: string, options: FormatOptions): string {
  if (options.color !== true) return text;
  const colors = pc.createColors(true);
  if (word === "deny" || word === "declined" || word.startsWith("auto_") || word === "timeout")
    return colors.red(text);
  if (word === "ask" || word === "cancelled" || word === "no_channel" || word.startsWith("pin:")) {
    return colors.yellow(text);
  }
  if (word === "allow" || word === "approved") return colors.green(text);
  return text;
}

/**
 * Renders records as a table with a header row; columns are as wide as their widest cell (capped),
 * or as `options.widths` when that is wider.
 *
 * Source: SPEC §5.6 (time, server, tool, verdict, contract, reason).
 * @param records - Records to show, oldest first.
 * @param options - Colour; whether to print the header row; widths kept across calls.
 * @returns The table, one line per record, each ending in a newline; `""` for no records.
 */
export function formatAuditTable(records: readonly AuditRecord[], options: FormatOptions = {}): string {
  if (records.length === 0) return "";
  const rows = records.map((record) => {
    const own = (key: keyof AuditRecord): unknown => (Object.hasOwn(record, key) ? record[key] : undefined);
    return [
      cell(own("ts"), MAX_COLUMN),
      cell(own("server"), MAX_COLUMN),
      cell(own("tool"), MAX_COLUMN),
      cell(verdictOf(record), MAX_COLUMN),
      cell(own("contract"), MAX_COLUMN),
      cell(own("reason"), MAX_REASON),
    ];
  });
  // A loop, not `Math.max(...rows)`: a spread of a large log's rows would overflow the call stack.
  const widths = HEADERS.map((header, i) =>
    rows.reduce(
      (widest, row) => Math.max(widest, (row[i] ?? "").length),
      Math.max(header.length, options.widths?.[i] ?? 0),
    ),
  );
  if (options.widths !== undefined) options.widths.splice(0, widths.length, ...widths);
  const line = (row: readonly string[], verdictWord?: string): string =>
    row
      .map((text, i) => {
        const padded = i === row.length - 1 ? text : text.padEnd(widths[i] ?? 0);
        return i === 3 && verdictWord !== undefined ? paint(padded, verdictWord, options) : padded;
      })
      .join("  ")
      .trimEnd();
  const head = options.header === false ? "" : `${line(HEADERS)}\n`;
  return head + rows.map((row) => `${line(row, bareVerdict(row[3] ?? ""))}\n`).join("");
}

/**
 * Renders one count table as an indented block (`  name  count`).
 * @param title - The section title.
 * @param counts - The counts.
 * @returns The section, or `""` when empty.
 */
function section(title: string, counts: Counts): string {
  const entries = Object.entries(counts);
  if (entries.length === 0) return "";
  const keys = entries.map(([key]) => cell(key, 60));
  const width = Math.max(...keys.map((key) => key.length));
  const lines = entries.map(([, count], i) => `  ${(keys[i] ?? "").padEnd(width)}  ${count}`);
  return `${title}\n${lines.join("\n")}\n`;
}

/**
 * Renders a summary for people.
 *
 * Source: SPEC §5.6 (`--summary`).
 * @param summary - The summary.
 * @returns Text ending in a newline.
 */
export function formatAuditSummary(summary: AuditSummary): string {
  const range =
    summary.first === undefined ? "" : ` from ${cell(summary.first, 40)} to ${cell(summary.last, 40)}`;
  const head = `${plural(summary.records, "record")}${range}, ${plural(summary.decisions, "decision")}\n`;
  return [
    head,
    section("By verdict", summary.byVerdict),
    section("By contract", summary.byContract),
    section("By server", summary.byServer),
    section("By tool", summary.byTool),
    section("Ask outcomes", summary.byOutcome),
    section("Records by event", summary.byEvent),
  ]
    .filter((part) => part !== "")
    .join("\n");
}

/**
 * A count with its noun, singular for one.
 * @param count - How many.
 * @param noun - The singular noun.
 * @returns e.g. `1 decision`, `3 decisions`.
 */
function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
