import { describe, expect, test } from "bun:test";
import type { CallComparison } from "../../../scripts/bench/perf/call-bench.ts";
import type { DecisionAtSize } from "../../../scripts/bench/perf/decision-bench.ts";
import { renderPerf } from "../../../scripts/bench/perf/render.ts";
import { checkTargets, type PerfRun, perfJson } from "../../../scripts/bench/perf/report.ts";
import { summarize } from "../../../scripts/bench/perf/stats.ts";

function calls(concurrency: number, ratio: number, added: readonly [number, number]): CallComparison {
  const side = { callsPerSecond: 1000, latencyMs: summarize([1, 2, 3]) };
  return {
    upstream: "filesystem",
    via: "source",
    concurrency,
    calls: 2000,
    direct: side,
    bouncer: side,
    throughputRatio: ratio,
    addedP50Ms: added[0],
    addedP99Ms: added[1],
    warmupCalls: 600,
  };
}

function decisions(tokenP99: number, verdicts: DecisionAtSize["verdicts"]): DecisionAtSize {
  const us = (p99: number) => ({ n: 1, p50: 1, p99, mean: 1, min: 1, max: p99 });
  return {
    size: "64MiB",
    bytes: 64 * 1024 ** 2,
    us: { token_tainted: us(tokenP99), token_unproven: us(1), non_token: us(1000) },
    baselineUs: us(2),
    verdicts,
    recordMiBps: 10,
  };
}

function run(overrides: Partial<PerfRun> = {}): PerfRun {
  return {
    date: "2026-01-01T00:00:00.000Z",
    machine: { cpus: 2, cpu: "test", os: "Linux", bun: "1", loadStart: [0, 0, 0] },
    seconds: 1,
    calls: [calls(1, 0.8, [0.2, 1]), calls(8, 0.9, [0.5, 3])],
    initialize: [
      {
        upstream: "filesystem",
        bouncer: "source",
        runs: 20,
        directMs: 400,
        bouncerMs: 450,
        addedMs: 50,
        ratio: 1.125,
      },
    ],
    decisions: [decisions(20, { token_tainted: "deny", token_unproven: "ask", non_token: "ask" })],
    rss: [{ bouncer: "source", idleMb: 50, afterMb: 90, outputMiB: 64, density: "dense", passSeconds: 1 }],
    method: {},
    ...overrides,
  };
}

describe("checkTargets", () => {
  test("checkTargets() meets every target of a run within SPEC §7", () => {
    const checks = checkTargets(run());
    expect(checks.filter((check) => !check.met)).toEqual([]);
    expect(checks.length).toBe(9);
  });

  test.each([
    [
      "added p50 per call (filesystem, sequential)",
      run({ calls: [calls(1, 0.8, [0.31, 1]), calls(8, 0.9, [0, 0])] }),
    ],
    [
      "throughput (filesystem, 8 concurrent)",
      run({ calls: [calls(1, 0.8, [0.2, 1]), calls(8, 0.74, [0, 0])] }),
    ],
    [
      "decision p99, token-shaped, 64MiB",
      run({ decisions: [decisions(51, { token_tainted: "deny", token_unproven: "ask", non_token: "ask" })] }),
    ],
    [
      "peak RSS after 64 MiB of dense output (source)",
      run({
        rss: [
          { bouncer: "source", idleMb: 50, afterMb: 101, outputMiB: 64, density: "dense", passSeconds: 1 },
        ],
      }),
    ],
  ])("checkTargets() misses %p just past its limit", (name, missed) => {
    const check = checkTargets(missed).find((c) => c.name === name);
    expect(check?.met).toBe(false);
  });

  test("checkTargets() misses a fast decision with a wrong verdict", () => {
    const wrong = run({
      decisions: [decisions(1, { token_tainted: "ask", token_unproven: "ask", non_token: "ask" })],
    });
    expect(checkTargets(wrong).find((c) => c.name === "decision p99, token-shaped, 64MiB")?.met).toBe(false);
  });

  test("checkTargets() judges the calls through Bouncer, not the minimal relay's", () => {
    const relayOnly = run({ calls: [{ ...calls(1, 0.9, [0.1, 1]), via: "relay" }] });
    expect(checkTargets(relayOnly).find((c) => c.name === "throughput (filesystem, sequential)")?.met).toBe(
      false,
    );
  });

  test("checkTargets() judges the short warm-up measurement; the steady one is reported beside it", () => {
    const steady = (concurrency: number, ratio: number) => ({
      ...calls(concurrency, ratio, [0.1, 1]),
      warmupCalls: 20_000,
    });
    const both = run({
      calls: [calls(1, 0.7, [0.2, 1]), calls(8, 0.6, [0.5, 3]), steady(1, 0.8), steady(8, 0.85)],
    });
    const throughput = checkTargets(both).filter((c) => c.name.startsWith("throughput"));
    expect(throughput.map((c) => [c.value, c.met])).toEqual([
      ["0.7×", false],
      ["0.6×", false],
    ]);
    expect(perfJson(both).ratios).toMatchObject({
      throughput: 0.6,
      throughput_sequential_steady: 0.8,
      throughput_concurrent_steady: 0.85,
    });
    expect(renderPerf(both, checkTargets(both))).toMatch(/filesystem +bouncer +8 +20000 +2000 /);
  });

  test("checkTargets() counts missing call measurements as missed", () => {
    expect(
      checkTargets(run({ calls: [] }))
        .filter((c) => c.name.startsWith("throughput"))
        .map((c) => c.met),
    ).toEqual([false, false]);
  });
});

describe("perfJson", () => {
  test("perfJson() carries the headline ratios, differences and sizes the issue names", () => {
    const json = perfJson(run());
    expect(json.ratios).toEqual({
      throughput: 0.8,
      throughput_sequential: 0.8,
      throughput_concurrent: 0.9,
      throughput_sequential_steady: null,
      throughput_concurrent_steady: null,
      initialize: 1.125,
    });
    expect(json.added_ms).toEqual({ p50: 0.2, p99: 1 });
    expect(json.initialize_added_ms).toBe(50);
    expect(json.decision_us).toEqual({
      "64MiB": {
        token_tainted: { p50: 1, p99: 20 },
        token_unproven: { p50: 1, p99: 1 },
        non_token: { p50: 1, p99: 1000 },
      },
    });
    expect(json.rss_mb).toEqual({ idle: 50, after_64MiB: 90, binary: null });
  });

  test("renderPerf() marks each target met or MISSED", () => {
    const text = renderPerf(
      run({ calls: [calls(1, 0.5, [0.2, 1])] }),
      checkTargets(run({ calls: [calls(1, 0.5, [0.2, 1])] })),
    );
    expect(text).toContain("throughput (filesystem, sequential)");
    expect(text).toMatch(/throughput \(filesystem, sequential\)\s+≥ 0\.75× direct\s+0\.5×\s+MISSED/);
  });
});
