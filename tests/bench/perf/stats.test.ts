import { describe, expect, test } from "bun:test";
import { median, percentile, round, summarize } from "../../../scripts/bench/perf/stats.ts";

describe("stats", () => {
  test.each([
    [0.5, 50],
    [0.99, 99],
    [1, 100],
    [0.001, 1],
  ])("percentile() of 1..100 at %p is the nearest rank %p", (q, expected) => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, q)).toBe(expected);
  });

  test("percentile() refuses an empty sample", () => {
    expect(() => percentile([], 0.5)).toThrow(RangeError);
  });

  test("summarize() sorts a copy and leaves the sample as it was", () => {
    const sample = [5, 1, 4, 2, 3];
    expect(summarize(sample)).toEqual({ n: 5, p50: 3, p99: 5, mean: 3, min: 1, max: 5 });
    expect(sample).toEqual([5, 1, 4, 2, 3]);
  });

  test.each([
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
  ])("median() of %p is %p", (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  test("round() keeps the given decimals", () => {
    expect(round(1.23456)).toBe(1.235);
    expect(round(1.25, 1)).toBe(1.3);
  });
});
