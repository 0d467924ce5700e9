/**
 * CPU time a process has used, split by thread kind, from `/proc/PID/task/TID/stat` (Linux only):
 * JavaScriptCore's JIT compiler threads (`JITWorker`) apart from everything else (the main thread,
 * the garbage collector's helpers, I/O). The perf bench reads it around the timed calls to say how
 * much of a proxy's cost per call is its own work and how much the JIT compiling it.
 *
 * Source: SPEC §7 ("profile and fix what misses", issue 6 part 2).
 * @module
 */

import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of `/proc` times (`USER_HZ`: 100 on every mainstream Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time used so far, in milliseconds. */
export interface ProcessCpu {
  /** All threads. */
  readonly totalMs: number;
  /** The JIT compiler threads. */
  readonly jitMs: number;
}

/**
 * utime + stime of one `/proc/…/stat` text, in clock ticks.
 * @param stat - The file's text.
 * @returns The ticks, or NaN when the text is not a stat line.
 */
function ticksOf(stat: string): number {
  // After the name (in parentheses): state is field 3 of stat(5); utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Reads the CPU time of a process: the total from `/proc/PID/stat` (threads that have exited
 * included), the JIT compiler's share from its live threads (a JIT thread that exited between two
 * readings takes its time out of the share, never out of the total).
 * @param pid - The process.
 * @returns Total and JIT time so far, or undefined where `/proc` cannot be read (not Linux, gone).
 */
export function processCpu(pid: number): ProcessCpu | undefined {
  let total: number;
  try {
    total = ticksOf(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
  if (!Number.isFinite(total)) return undefined;
  let jit = 0;
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    // Gone meanwhile: the total stands, the share is unknown (0).
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ticks = ticksOf(stat);
      if (name.startsWith("JIT") && Number.isFinite(ticks)) jit += ticks;
    } catch {
      // That thread exited between the listing and the read.
    }
  }
  return { totalMs: (total * 1000) / TICKS_PER_SECOND, jitMs: (jit * 1000) / TICKS_PER_SECOND };
}

/**
 * The CPU used between two readings.
 * @param before - The first reading.
 * @param after - The second.
 * @returns The difference, or undefined when either is missing.
 */
export function cpuSince(
  before: ProcessCpu | undefined,
  after: ProcessCpu | undefined,
): ProcessCpu | undefined {
  if (before === undefined || after === undefined) return undefined;
  return { totalMs: after.totalMs - before.totalMs, jitMs: after.jitMs - before.jitMs };
}
