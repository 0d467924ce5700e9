/**
 * The performance bench's results: the targets of SPEC §7 judged against the measurements, the JSON
 * written to `dist/bench/perf.json`, and the tables printed for people.
 *
 * Source: SPEC §7 (targets on this machine, 2 cores); issue 6 part 2.
 * @module
 */

import type { CallComparison } from "./call-bench.ts";
import type { DecisionAtSize, DestinationKind } from "./decision-bench.ts";
import type { InitializeComparison } from "./initialize-bench.ts";
import type { RssResult } from "./rss-bench.ts";
import { round } from "./stats.ts";

/** Everything one run measured. */
export interface PerfRun {
  readonly date: string;
  readonly machine: Record<string, unknown>;
  readonly seconds: number;
  readonly calls: readonly CallComparison[];
  readonly initialize: readonly InitializeComparison[];
  readonly decisions: readonly DecisionAtSize[];
  readonly rss: readonly RssResult[];
  /** What was measured how (client, counts), for the record. */
  readonly method: Record<string, unknown>;
}

/** One target of SPEC §7 and whether it was met. */
export interface TargetCheck {
  readonly name: string;
  readonly target: string;
  readonly value: string;
  readonly met: boolean;
}

/** The upstream the per-call targets are judged on (SPEC §7: "on the filesystem server"). */
const TARGET_UPSTREAM = "filesystem";
const TOKEN_KINDS: readonly DestinationKind[] = ["token_tainted", "token_unproven"];

/**
 * The comparison of one upstream at one concurrency.
 * @param run - The run.
 * @param concurrency - 1 or 8.
 * @returns The comparison, if measured.
 */
function callsOf(run: PerfRun, concurrency: number, steady = false): CallComparison | undefined {
  const rows = run.calls.filter(
    (c) => c.upstream === TARGET_UPSTREAM && c.concurrency === concurrency && c.via === "source",
  );
  // The targets are judged on the first (short warm-up) measurement; the steady one is extra.
  return steady ? (rows.length > 1 ? rows[rows.length - 1] : undefined) : rows[0];
}

/**
 * Judges the run against SPEC §7's targets.
 * @param run - The run.
 * @returns One check per target (missing measurements count as missed).
 */
export function checkTargets(run: PerfRun): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const seq = callsOf(run, 1);
  const conc = callsOf(run, 8);
  const ms = (value: number | undefined): string => (value === undefined ? "n/a" : `${round(value, 3)} ms`);
  checks.push({
    name: "added p50 per call (filesystem, sequential)",
    target: "≤ 0.3 ms",
    value: ms(seq?.addedP50Ms),
    met: seq !== undefined && seq.addedP50Ms <= 0.3,
  });
  checks.push({
    name: "added p99 per call (filesystem, sequential)",
    target: "≤ 2 ms",
    value: ms(seq?.addedP99Ms),
    met: seq !== undefined && seq.addedP99Ms <= 2,
  });
  for (const [label, c] of [
    ["sequential", seq],
    ["8 concurrent", conc],
  ] as const) {
    checks.push({
      name: `throughput (filesystem, ${label})`,
      target: "≥ 0.75× direct",
      value: c === undefined ? "n/a" : `${c.throughputRatio}×`,
      met: c !== undefined && c.throughputRatio >= 0.75,
    });
  }
  for (const init of run.initialize.filter((i) => i.upstream === TARGET_UPSTREAM)) {
    checks.push({
      name: `initialize (filesystem, ${init.bouncer})`,
      target: "≤ direct + 60 ms",
      value: `+${init.addedMs} ms`,
      met: init.addedMs <= 60,
    });
  }
  for (const row of run.decisions) {
    const p99 = Math.max(...TOKEN_KINDS.map((kind) => row.us[kind].p99));
    checks.push({
      name: `decision p99, token-shaped, ${row.size}`,
      target: "≤ 50 µs",
      value: `${round(p99, 1)} µs (baseline ${round(row.baselineUs.p99, 1)})`,
      met: p99 <= 50 && verdictsRight(row),
    });
  }
  for (const row of run.decisions) {
    const p99 = row.us.non_token.p99;
    checks.push({
      name: `decision p99, not token-shaped, ${row.size}`,
      target: "≤ 5 ms",
      value: `${round(p99 / 1000, 2)} ms`,
      met: p99 <= 5000 && verdictsRight(row),
    });
  }
  for (const rss of run.rss) {
    if (rss.density === "dense") {
      checks.push({
        name: `peak RSS idle (${rss.bouncer})`,
        target: "≤ 60 MB",
        value: `${rss.idleMb} MB`,
        met: rss.idleMb <= 60,
      });
    }
    checks.push({
      name: `peak RSS after ${rss.outputMiB} MiB of ${rss.density} output (${rss.bouncer})`,
      target: "≤ 100 MB",
      value: `${rss.afterMb} MB`,
      met: rss.afterMb <= 100,
    });
  }
  return checks;
}

/**
 * Whether every destination got the verdict it must get (deny, ask, ask).
 * @param row - One size.
 * @returns True when all are right.
 */
function verdictsRight(row: DecisionAtSize): boolean {
  return (
    row.verdicts.token_tainted === "deny" &&
    row.verdicts.token_unproven === "ask" &&
    row.verdicts.non_token === "ask"
  );
}

/**
 * The JSON of `dist/bench/perf.json`.
 * @param run - The run.
 * @returns The document: headline ratios and differences first, then every measurement.
 */
export function perfJson(run: PerfRun): Record<string, unknown> {
  const seq = callsOf(run, 1);
  const conc = callsOf(run, 8);
  const init = run.initialize.find((i) => i.upstream === TARGET_UPSTREAM && i.bouncer === "source");
  const decision: Record<string, unknown> = {};
  for (const row of run.decisions) {
    decision[row.size] = Object.fromEntries(
      Object.entries(row.us).map(([kind, s]) => [kind, { p50: round(s.p50, 1), p99: round(s.p99, 1) }]),
    );
  }
  const rssOf = (kind: RssResult["bouncer"]): Record<string, number> | null => {
    const rows = run.rss.filter((r) => r.bouncer === kind);
    const dense = rows.find((r) => r.density === "dense");
    const sparse = rows.find((r) => r.density === "sparse");
    if (dense === undefined) return null;
    return {
      idle: dense.idleMb,
      after_64MiB: dense.afterMb,
      ...(sparse === undefined ? {} : { after_64MiB_sparse: sparse.afterMb }),
    };
  };
  const throughputs = [seq, conc].flatMap((c) => (c === undefined ? [] : [c.throughputRatio]));
  const checks = checkTargets(run);
  return {
    date: run.date,
    machine: run.machine,
    seconds: run.seconds,
    method: run.method,
    ratios: {
      throughput: throughputs.length === 0 ? null : Math.min(...throughputs),
      throughput_sequential: seq?.throughputRatio ?? null,
      throughput_concurrent: conc?.throughputRatio ?? null,
      throughput_sequential_steady: callsOf(run, 1, true)?.throughputRatio ?? null,
      throughput_concurrent_steady: callsOf(run, 8, true)?.throughputRatio ?? null,
      initialize: init?.ratio ?? null,
    },
    added_ms: { p50: seq?.addedP50Ms ?? null, p99: seq?.addedP99Ms ?? null },
    initialize_added_ms: init?.addedMs ?? null,
    decision_us: decision,
    decision_baseline_us: Object.fromEntries(
      run.decisions.map((row) => [
        row.size,
        { p50: round(row.baselineUs.p50, 1), p99: round(row.baselineUs.p99, 1) },
      ]),
    ),
    rss_mb: { ...(rssOf("source") ?? {}), binary: rssOf("binary") },
    calls: run.calls.map((c) => ({
      ...c,
      direct: roundSide(c.direct),
      bouncer: roundSide(c.bouncer),
    })),
    initialize: run.initialize,
    decisions: run.decisions.map((row) => ({ ...row, us: decision[row.size] })),
    rss: run.rss,
    targets: checks,
    targets_met: checks.filter((c) => c.met).length,
    targets_total: checks.length,
  };
}

/**
 * Rounds one side's figures for the JSON.
 * @param side - Calls per second and latency summary.
 * @returns The same, rounded.
 */
function roundSide(side: CallComparison["direct"]): Record<string, unknown> {
  const l = side.latencyMs;
  return {
    calls_per_second: round(side.callsPerSecond, 0),
    latency_ms: { p50: round(l.p50), p99: round(l.p99), mean: round(l.mean), max: round(l.max) },
  };
}
