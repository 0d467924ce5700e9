/**
 * The performance bench's tables for people: calls, `initialize`, decisions by session size, peak
 * RSS, and each SPEC §7 target met or missed.
 *
 * Source: SPEC §7; issue 6 part 2.
 * @module
 */

import type { PerfRun, TargetCheck } from "./report.ts";
import { round } from "./stats.ts";

/**
 * Lays out a table: first column left-aligned, the others right-aligned.
 * @param head - Column titles.
 * @param rows - Cells.
 * @returns The lines.
 */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = head.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)];
}

/**
 * A number with fixed decimals.
 * @param value - The number.
 * @param digits - Decimals.
 * @returns Its text.
 */
function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}

/**
 * Renders a run and its target checks.
 * @param run - The run.
 * @param checks - The targets judged.
 * @returns The text, ending in a newline.
 */
export function renderPerf(run: PerfRun, checks: readonly TargetCheck[]): string {
  const out: string[] = [];
  const m = run.machine;
  out.push(
    `Bouncer performance — ${run.date}, ${String(m.cpus)} × ${String(m.cpu)}, ${String(m.os)}, ` +
      `Bun ${String(m.bun)}, load average ${String(m.loadStart)} at start, ${run.seconds} s`,
    "",
    "tools/call, direct vs through bouncer run (raw JSON-RPC line client; latency per call;",
    "relay = a minimal line relay in Bouncer's place, the floor under any stdio proxy here;",
    "via CPU = CPU time of the process in the middle per timed call, all threads, and its JIT",
    "compiler threads among them, from /proc; warm-up = untimed calls per side first: the last",
    "filesystem rows repeat the first ones after a long warm-up, when the JIT has settled)",
  );
  out.push(
    ...table(
      [
        "upstream",
        "via",
        "callers",
        "warm-up",
        "calls",
        "direct/s",
        "via/s",
        "ratio",
        "p50 d/v ms",
        "p99 d/v ms",
        "+p50 ms",
        "+p99 ms",
        "via CPU µs/call (JIT)",
      ],
      run.calls.map((c) => [
        c.upstream,
        c.via === "source" ? "bouncer" : c.via,
        String(c.concurrency),
        String(c.warmupCalls),
        String(c.calls),
        fixed(c.direct.callsPerSecond, 0),
        fixed(c.bouncer.callsPerSecond, 0),
        `${fixed(c.throughputRatio, 2)}×`,
        `${fixed(c.direct.latencyMs.p50, 3)}/${fixed(c.bouncer.latencyMs.p50, 3)}`,
        `${fixed(c.direct.latencyMs.p99, 2)}/${fixed(c.bouncer.latencyMs.p99, 2)}`,
        fixed(c.addedP50Ms, 3),
        fixed(c.addedP99Ms, 2),
        c.viaCpuUsPerCall === undefined
          ? "—"
          : `${fixed(c.viaCpuUsPerCall.total, 0)} (${fixed(c.viaCpuUsPerCall.jit, 0)})`,
      ]),
    ),
    "",
    "initialize answered, spawn included (median)",
    ...table(
      ["upstream", "bouncer", "runs", "direct ms", "bouncer ms", "added ms", "ratio"],
      run.initialize.map((i) => [
        i.upstream,
        i.bouncer,
        String(i.runs),
        fixed(i.directMs, 1),
        fixed(i.bouncerMs, 1),
        fixed(i.addedMs, 1),
        `${fixed(i.ratio, 2)}×`,
      ]),
    ),
    "",
    "decideCall in process, by recorded output (µs p50/p99; verdicts tainted/unproven/non-token;",
    "baseline = a pure computation as long as a decision, timed between decisions)",
    ...table(
      ["recorded", "token tainted", "token unproven", "non-token", "baseline", "verdicts", "record MiB/s"],
      run.decisions.map((row) => [
        row.size,
        `${fixed(row.us.token_tainted.p50, 1)}/${fixed(row.us.token_tainted.p99, 1)}`,
        `${fixed(row.us.token_unproven.p50, 1)}/${fixed(row.us.token_unproven.p99, 1)}`,
        `${fixed(row.us.non_token.p50, 0)}/${fixed(row.us.non_token.p99, 0)}`,
        `${fixed(row.baselineUs.p50, 1)}/${fixed(row.baselineUs.p99, 1)}`,
        `${row.verdicts.token_tainted}/${row.verdicts.token_unproven}/${row.verdicts.non_token}`,
        fixed(row.recordMiBps, 1),
      ]),
    ),
    "",
    "peak RSS of the bouncer process (VmHWM)",
    ...table(
      ["bouncer", "output", "idle MB", "after MB", "output MiB", "pass s"],
      run.rss.map((r) => [
        r.bouncer,
        r.density,
        fixed(r.idleMb, 1),
        fixed(r.afterMb, 1),
        String(r.outputMiB),
        fixed(r.passSeconds, 1),
      ]),
    ),
    "",
    `targets (SPEC §7): ${checks.filter((c) => c.met).length} of ${checks.length} met`,
    ...table(
      ["target", "wanted", "measured", ""],
      checks.map((c) => [c.name, c.target, c.value, c.met ? "met" : "MISSED"]),
    ),
  );
  return `${out.join("\n")}\n`;
}

/**
 * A short line for progress on stderr.
 * @param label - What finished.
 * @param ms - How long it took.
 * @returns The line.
 */
export function progressLine(label: string, ms: number): string {
  return `[bench:perf] ${label} (${round(ms / 1000, 1)} s)\n`;
}
