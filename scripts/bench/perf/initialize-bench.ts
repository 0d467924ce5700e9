/**
 * Time to answer `initialize`, spawn included: the client starts the server (directly, or `bouncer
 * run` in front of it), sends `initialize` at once and waits for the answer. Direct and proxied
 * starts alternate, one process tree at a time; each is stopped (SIGTERM, which Bouncer passes on to
 * its upstream's process group) and reaped before the next starts.
 *
 * Source: SPEC §3.2 step 1 ("spawn the upstream before anything slow"), §7; issue 6 part 2.
 * @module
 */

import { spawnLineClient } from "./line-client.ts";
import { type BouncerLaunch, commandLine, initialize, type Upstream } from "./session.ts";
import { median, round } from "./stats.ts";

/** Direct against Bouncer for one upstream. */
export interface InitializeComparison {
  readonly upstream: string;
  /** `source` or `binary`. */
  readonly bouncer: BouncerLaunch["kind"];
  readonly runs: number;
  /** Median ms from spawn to the `initialize` answer, direct. */
  readonly directMs: number;
  /** The same through Bouncer. */
  readonly bouncerMs: number;
  /** bouncerMs − directMs. */
  readonly addedMs: number;
  /** bouncerMs / directMs. */
  readonly ratio: number;
}

/**
 * Starts a server, times its `initialize` answer, and stops it.
 * @param command - The command line.
 * @param env - Its environment.
 * @returns Milliseconds from spawn to the answer.
 * @throws {Error} When the answer is an error or the process dies first.
 */
async function timeOne(command: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  const begin = performance.now();
  const client = spawnLineClient(command, { env });
  try {
    await initialize(client);
    return performance.now() - begin;
  } finally {
    await client.close(3000, "SIGTERM");
  }
}

/**
 * Measures `initialize` directly and through Bouncer, alternating.
 * @param upstream - The server.
 * @param bouncer - How Bouncer is started.
 * @param options - Runs per side (default 20).
 * @returns The medians and their difference.
 * @throws {Error} When a start fails.
 */
export async function compareInitialize(
  upstream: Upstream,
  bouncer: BouncerLaunch,
  options: { readonly runs?: number } = {},
): Promise<InitializeComparison> {
  const runs = options.runs ?? 20;
  const direct: number[] = [];
  const proxied: number[] = [];
  // One untimed start of each warms the file cache and Bun's transpiler cache.
  await timeOne(commandLine(upstream, undefined), bouncer.env);
  await timeOne(commandLine(upstream, bouncer), bouncer.env);
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? [false, true] : [true, false];
    for (const proxiedRun of order) {
      const ms = await timeOne(commandLine(upstream, proxiedRun ? bouncer : undefined), bouncer.env);
      (proxiedRun ? proxied : direct).push(ms);
    }
  }
  const directMs = median(direct);
  const bouncerMs = median(proxied);
  return {
    upstream: upstream.name,
    bouncer: bouncer.kind,
    runs,
    directMs: round(directMs, 1),
    bouncerMs: round(bouncerMs, 1),
    addedMs: round(bouncerMs - directMs, 1),
    ratio: round(bouncerMs / directMs),
  };
}
