import { describe, expect, test } from "bun:test";
import { cpuSince, processCpu } from "../../../scripts/bench/perf/process-cpu.ts";

describe("processCpu()", () => {
  test.skipIf(process.platform !== "linux")(
    "processCpu() counts the CPU this process burns",
    () => {
      const before = processCpu(process.pid);
      const giveUp = performance.now() + 20_000;
      let sink = 0;
      let used = cpuSince(before, processCpu(process.pid));
      // Spin until /proc shows 200 ms of CPU (a busy machine may give this process less than the wall time).
      while ((used?.totalMs ?? 0) < 200 && performance.now() < giveUp) {
        for (let i = 0; i < 1_000_000; i++) sink = (sink * 31 + i) | 0;
        used = cpuSince(before, processCpu(process.pid));
      }
      expect(Number.isInteger(sink)).toBe(true);
      expect(used?.totalMs).toBeGreaterThanOrEqual(200);
      // One reading: the JIT threads' share is part of the total.
      const now = processCpu(process.pid);
      expect(now !== undefined && now.jitMs >= 0 && now.jitMs <= now.totalMs).toBe(true);
    },
    30_000,
  );

  test("processCpu() of a process that does not exist is undefined, and so is the difference", () => {
    expect(processCpu(2 ** 31 - 2)).toBeUndefined();
    expect(cpuSince(undefined, { totalMs: 1, jitMs: 0 })).toBeUndefined();
    expect(cpuSince({ totalMs: 5, jitMs: 1 }, { totalMs: 9, jitMs: 4 })).toEqual({ totalMs: 4, jitMs: 3 });
  });
});
