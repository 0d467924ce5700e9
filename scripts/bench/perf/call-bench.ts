/**
 * `tools/call` through Bouncer against the same calls sent directly to the same upstream: sequential
 * calls (one in flight) and 8 concurrent callers, each timed per call. Both sessions stay open for the
 * whole run and are measured in alternating blocks (direct, Bouncer, Bouncer, direct, …), so that a
 * busy neighbour on the machine slows both sides alike.
 *
 * Source: SPEC §7 ("tools/call through Bouncer vs directly"); issue 6 part 2.
 * @module
 */

import type { LineClient } from "./line-client.ts";
import { cpuSince, type ProcessCpu, processCpu } from "./process-cpu.ts";
import { type BouncerLaunch, openSession, type Upstream } from "./session.ts";
import { round, type Summary, summarize } from "./stats.ts";

/** One side's measurement. */
export interface SideResult {
  /** Calls per second over the timed blocks. */
  readonly callsPerSecond: number;
  /** Per-call latency in milliseconds. */
  readonly latencyMs: Summary;
}

/** Direct against Bouncer for one upstream and one concurrency. */
export interface CallComparison {
  readonly upstream: string;
  /** What stood in the middle: Bouncer (`source`, `binary`) or the minimal relay (`relay`). */
  readonly via: BouncerLaunch["kind"];
  readonly concurrency: number;
  readonly calls: number;
  readonly direct: SideResult;
  readonly bouncer: SideResult;
  /** Bouncer's calls per second over direct's. */
  readonly throughputRatio: number;
  /** Bouncer's p50 minus direct's, in ms. */
  readonly addedP50Ms: number;
  /** Bouncer's p99 minus direct's, in ms. */
  readonly addedP99Ms: number;
  /**
   * CPU time of the process in the middle per timed call, in µs, all threads and the JIT compiler's
   * threads among them (Linux only: read from `/proc`).
   */
  readonly viaCpuUsPerCall?: { readonly total: number; readonly jit: number };
  /** Untimed calls per side before the timed ones (both warm-up passes together). */
  readonly warmupCalls: number;
}

/** Options of {@link compareCalls}. */
export interface CallBenchOptions {
  /** Calls per side per concurrency (default 2,000). */
  readonly calls?: number;
  /** Concurrency levels (default 1 and 8). */
  readonly concurrency?: readonly number[];
  /** Untimed calls per side first (default 300). */
  readonly warmup?: number;
  /** Blocks each side's calls are split into (default 8). */
  readonly blocks?: number;
}

/** Latencies and wall time of one block. */
interface Block {
  readonly latencies: number[];
  readonly wallMs: number;
}

/**
 * Runs `count` calls with `concurrency` callers in flight.
 * @param client - The session.
 * @param options - Template, count, concurrency.
 * @returns Per-call latencies and the block's wall time.
 */
async function runBlock(
  client: LineClient,
  options: { readonly template: string; readonly count: number; readonly concurrency: number },
): Promise<Block> {
  const latencies: number[] = [];
  let started = 0;
  const caller = async (): Promise<void> => {
    while (started < options.count) {
      started++;
      const at = performance.now();
      await client.requestText(options.template);
      latencies.push(performance.now() - at);
    }
  };
  const begin = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, caller));
  return { latencies, wallMs: performance.now() - begin };
}

/**
 * Folds blocks into one side's result.
 * @param blocks - The side's blocks.
 * @returns Calls per second and latency summary.
 */
function sideResult(blocks: readonly Block[]): SideResult {
  const latencies = blocks.flatMap((block) => block.latencies);
  const wall = blocks.reduce((total, block) => total + block.wallMs, 0);
  return { callsPerSecond: (latencies.length / wall) * 1000, latencyMs: summarize(latencies) };
}

/**
 * Measures one upstream directly and through Bouncer.
 * @param upstream - The server and its call.
 * @param bouncer - How Bouncer is started.
 * @param options - Call counts, concurrency levels, warm-up, blocks.
 * @returns One comparison per concurrency level.
 * @throws {Error} When a session cannot be opened or its first call fails.
 */
export async function compareCalls(
  upstream: Upstream,
  bouncer: BouncerLaunch,
  options: CallBenchOptions = {},
): Promise<CallComparison[]> {
  const calls = options.calls ?? 2000;
  const blocks = options.blocks ?? 8;
  const perBlock = Math.ceil(calls / blocks);
  const direct = await openSession(upstream, undefined);
  const proxied = await openSession(upstream, bouncer);
  const results: CallComparison[] = [];
  try {
    const warmup = options.warmup ?? 300;
    for (const client of [direct, proxied]) {
      await runBlock(client, { template: upstream.callTemplate, count: warmup, concurrency: 8 });
      await runBlock(client, { template: upstream.callTemplate, count: warmup, concurrency: 1 });
    }
    for (const concurrency of options.concurrency ?? [1, 8]) {
      const sides: { direct: Block[]; bouncer: Block[] } = { direct: [], bouncer: [] };
      let viaCpu: ProcessCpu | undefined = { totalMs: 0, jitMs: 0 };
      for (let block = 0; block < blocks; block++) {
        const order = block % 2 === 0 ? (["direct", "bouncer"] as const) : (["bouncer", "direct"] as const);
        for (const side of order) {
          const client = side === "direct" ? direct : proxied;
          const before = side === "bouncer" ? processCpu(proxied.pid) : undefined;
          sides[side].push(
            await runBlock(client, { template: upstream.callTemplate, count: perBlock, concurrency }),
          );
          if (side === "bouncer") {
            const used = cpuSince(before, processCpu(proxied.pid));
            viaCpu =
              viaCpu === undefined || used === undefined
                ? undefined
                : { totalMs: viaCpu.totalMs + used.totalMs, jitMs: viaCpu.jitMs + used.jitMs };
          }
        }
      }
      const d = sideResult(sides.direct);
      const b = sideResult(sides.bouncer);
      results.push({
        upstream: upstream.name,
        via: bouncer.kind,
        concurrency,
        calls: perBlock * blocks,
        direct: d,
        bouncer: b,
        warmupCalls: warmup * 2,
        throughputRatio: round(b.callsPerSecond / d.callsPerSecond),
        addedP50Ms: round(b.latencyMs.p50 - d.latencyMs.p50),
        addedP99Ms: round(b.latencyMs.p99 - d.latencyMs.p99),
        ...(viaCpu === undefined
          ? {}
          : {
              viaCpuUsPerCall: {
                total: round((viaCpu.totalMs * 1000) / (perBlock * blocks), 1),
                jit: round((viaCpu.jitMs * 1000) / (perBlock * blocks), 1),
              },
            }),
      });
    }
  } finally {
    await Promise.all([direct.close(), proxied.close()]);
  }
  return results;
}
