/**
 * The report of `bouncer doctor`: one row per server entry, as an aligned table for people (errors
 * and stderr tails below it) or as one JSON document for scripts. Pure.
 *
 * Source: SPEC §5 ("Machine-readable output (`--json`) is one JSON document"), §5.3.
 * @module
 */

import { escapeControls, listCommand, safeName } from "../engine/index.ts";
import { terminalJson } from "../platform/terminal-json.ts";
import type { ServerAnalysis } from "./doctor-analysis.ts";

/** One server entry's result. */
export interface DoctorRow {
  /** The client's name (`Claude Desktop`, ...). */
  readonly client: string;
  readonly file: string;
  /** The entry's label (name, and project for `~/.claude.json`). */
  readonly server: string;
  readonly wrapped: boolean;
  /**
   * `disabled`: its client does not start it (`"disabled": true`, `enabled = false`), nor does doctor;
   * `not-started`: a stdio entry of a project file in the working directory, which doctor starts only
   * when the file is named with `--config`.
   */
  readonly status: "started" | "error" | "skipped" | "disabled" | "not-started";
  /** The error, or why the entry was skipped, is disabled or was not started (masked). */
  readonly detail?: string;
  /** The end of the server's stderr (masked). */
  readonly stderrTail?: string;
  readonly initializeMs?: number;
  readonly tools?: number;
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** The policy's view of the tools (absent when the server did not start). */
  readonly analysis?: ServerAnalysis;
  /** Why the analysis failed (e.g. an invalid `--policy` file). */
  readonly analysisError?: string;
  /** What the server did wrong (a `tools/list` cursor that came back), though it started. */
  readonly defect?: string;
  /**
   * A wrapped entry's tools whose changed or new definitions wait for review in its pin files (held
   * back by Bouncer: `bouncer pins list NAME`); absent when there are none.
   */
  readonly pending?: { readonly server: string; readonly tools: readonly string[] };
  /** Whether the client can answer asks (the elicitation table). */
  readonly clientAsks: string;
}

/**
 * The report as one JSON document: `{ "servers": [ ... ] }`, with `"error"` when the run could not
 * look at any server (no config found) and `"errors"` (one line each) when some configs could not be
 * read, so that `--json` always prints one document and a reader of it alone sees the failure.
 *
 * Source: SPEC §5 ("Machine-readable output (`--json`) is one JSON document"), §5.3.
 * @param rows - The rows.
 * @param options - `error`: the run's error line; `errors`: the error line of each config that could
 *   not be read (each line's `bouncer: ` prefix and line end are dropped; an empty list is left out).
 * @returns JSON text with a final newline.
 */
export function renderDoctorJson(
  rows: readonly DoctorRow[],
  options: { readonly error?: string; readonly errors?: readonly string[] } = {},
): string {
  const line = (text: string): string => text.replace(/^bouncer: /, "").trimEnd();
  const error = options.error === undefined ? undefined : line(options.error);
  const errors = (options.errors ?? []).map(line);
  const document = {
    servers: rows,
    ...(error === undefined ? {} : { error }),
    ...(errors.length === 0 ? {} : { errors }),
  };
  return `${terminalJson(document, 2)}\n`;
}

/**
 * The report as a table, followed by the details of failed and skipped entries, then one note per
 * project file whose servers were not started (the `detail` of its rows, which they share).
 *
 * Source: SPEC §5.3.
 * @param rows - The rows.
 * @returns Aligned text.
 */
export function renderDoctorTable(rows: readonly DoctorRow[]): string {
  if (rows.length === 0) return "No MCP servers in the selected configs\n";
  const header = [
    "SERVER",
    "CLIENT",
    "WRAPPED",
    "STATUS",
    "INIT",
    "TOOLS",
    "PACK",
    "EXFILTRATING",
    "UNCONFINED",
    "ASKS",
  ];
  const cells = rows.map((row) => [
    safeName(row.server),
    row.client,
    row.wrapped ? "yes" : "no",
    row.status,
    row.initializeMs === undefined ? "-" : `${row.initializeMs} ms`,
    row.tools === undefined ? "-" : String(row.tools),
    ...analysisCells(row),
    // Asks come through Bouncer: a skipped entry (remote, not wrapped) never has any.
    row.status === "skipped" || row.status === "disabled" || row.status === "not-started"
      ? "-"
      : row.clientAsks,
  ]);
  const table = [header, ...cells];
  const widths = header.map((_, column) => Math.max(...table.map((line) => (line[column] ?? "").length)));
  let out = table
    .map(
      (line) =>
        `${line
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join("  ")
          .trimEnd()}\n`,
    )
    .join("");
  const notes = new Set<string>();
  for (const row of rows) {
    if (row.status === "not-started") {
      notes.add(escapeControls(row.detail ?? ""));
      continue;
    }
    if (row.defect !== undefined)
      out += `\n${safeName(row.server)} (${safeName(row.file)}): server defect: ${escapeControls(row.defect)}\n`;
    if (row.pending !== undefined) {
      const { server, tools } = row.pending;
      const count = `${tools.length} tool${tools.length === 1 ? "" : "s"}`;
      out += `\n${safeName(row.server)} (${safeName(row.file)}): ${count} changed or new since pinned, held back until reviewed: ${tools.map(safeName).join(", ")}; see ${listCommand(server)}\n`;
    }
    if (row.status === "started" && row.analysisError === undefined) continue;
    const detail = escapeControls(row.analysisError ?? row.detail ?? "");
    out += `\n${safeName(row.server)} (${safeName(row.file)}): ${row.status === "started" ? "policy" : row.status}: ${detail}\n`;
    if (row.stderrTail !== undefined && row.stderrTail !== "") {
      out += row.stderrTail
        .split("\n")
        .map((line) => `  | ${escapeControls(line)}\n`)
        .join("");
    }
  }
  if (notes.size > 0) out += `\n${[...notes].map((note) => `${note}\n`).join("")}`;
  return out;
}

/**
 * The PACK, EXFILTRATING and UNCONFINED cells of a row.
 * @param row - A row.
 * @returns Three cells (`-` when the server did not start, `n/a` when the analysis failed).
 */
function analysisCells(row: DoctorRow): [string, string, string] {
  if (row.analysisError !== undefined) return ["n/a", "n/a", "n/a"];
  const analysis = row.analysis;
  if (analysis === undefined) return ["-", "-", "-"];
  // Tool and argument names come from the upstream: untrusted, rendered safely.
  const exfiltrating = analysis.exfiltrating
    .map((tool) => `${safeName(tool.tool)}(${tool.sinks.map(safeName).join(", ")})`)
    .join(" ");
  return [
    analysis.packs.length === 0 ? "none" : analysis.packs.join(", "),
    exfiltrating === "" ? "none" : exfiltrating,
    analysis.unconfined.length === 0 ? "none" : analysis.unconfined.map(safeName).join(", "),
  ];
}
