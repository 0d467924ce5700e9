import { describe, expect, test } from "bun:test";
import {
  expectedVerdicts,
  measureDecisions,
  measureJitter,
} from "../../../scripts/bench/perf/decision-bench.ts";

describe("measureDecisions", () => {
  test("measureDecisions() times decisions that deny the planted address and ask about the others", async () => {
    const rows = await measureDecisions({
      sizes: [
        ["1KiB", 1024],
        ["300KiB", 300 * 1024],
      ],
      tokenIterations: 20,
      nonTokenIterations: 5,
    });
    expect(rows.map((row) => row.size)).toEqual(["1KiB", "300KiB"]);
    for (const row of rows) {
      expect(row.verdicts).toEqual(expectedVerdicts());
      expect(row.us.token_tainted.n).toBe(20);
      expect(row.us.non_token.n).toBe(5);
      expect(row.baselineUs.n).toBe(40);
    }
    expect(expectedVerdicts()).toEqual({ token_tainted: "deny", token_unproven: "ask", non_token: "ask" });
  });

  test("measureJitter() times the number of samples asked for, calibrated near the duration asked for", () => {
    const jitter = measureJitter(20, 300);
    expect(jitter.n).toBe(300);
    expect(jitter.min).toBeGreaterThan(0);
    expect(jitter.p99).toBeGreaterThanOrEqual(jitter.p50);
  });
});
