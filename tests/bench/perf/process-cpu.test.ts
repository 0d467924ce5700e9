import { describe, expect, test } from "bun:test";
import { cpuSince, processCpu } from "../../../scripts/bench/perf/process-cpu.ts";

describe("processCpu()", () => {
  test.skipIf(process.platform !== "linux")("processCpu() counts the CPU this process burns", () => {
    const before = processCpu(process.pid);
    const end = performance.now() + 300;
    let sink = 0;
    while (performance.now() < end) sink = (sink * 31 + 7) | 0;
    const used = cpuSince(before, processCpu(process.pid));
    expect(Number.isInteger(sink)).toBe(true); // the loop ran (and was not optimised away)
    expect(used?.totalMs).toBeGreaterThanOrEqual(200);
    expect(used?.jitMs).toBeGreaterThanOrEqual(0);
    expect((used?.jitMs ?? Infinity) <= (used?.totalMs ?? 0)).toBe(true);
  });

  test("processCpu() of a process that does not exist is undefined, and so is the difference", () => {
    expect(processCpu(2 ** 31 - 2)).toBeUndefined();
    expect(cpuSince(undefined, { totalMs: 1, jitMs: 0 })).toBeUndefined();
    expect(cpuSince({ totalMs: 5, jitMs: 1 }, { totalMs: 9, jitMs: 4 })).toEqual({ totalMs: 4, jitMs: 3 });
  });
});
