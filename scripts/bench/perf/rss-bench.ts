/**
 * Peak resident memory of the Bouncer process (`VmHWM` in `/proc/<pid>/status`, Linux): once idle
 * after the handshake, and again after 64 MiB of tool output has passed through it — 64 results of
 * 1 MiB of synthetic prose naming distinct destinations (dense or sparse) from the echo fixture's
 * `generate` tool, each recorded as untrusted output on its way to the client. The upstream's memory
 * is not counted.
 *
 * Source: SPEC §7 ("peak RSS"); issue 6 part 2.
 * @module
 */

import { readFileSync } from "node:fs";
import { type BouncerLaunch, openSession, type Upstream } from "./session.ts";
import { round } from "./stats.ts";
import type { Density } from "./synthetic-output.ts";

/** Peak RSS of one Bouncer build, in MB (2^20 bytes). */
export interface RssResult {
  /** `source` or `binary`. */
  readonly bouncer: BouncerLaunch["kind"];
  /** VmHWM after the handshake and one call. */
  readonly idleMb: number;
  /** VmHWM after the output passed through. */
  readonly afterMb: number;
  /** Output passed through, MiB. */
  readonly outputMiB: number;
  /** How densely the output named destinations. */
  readonly density: Density;
  /** Seconds the output took to pass (recording included). */
  readonly passSeconds: number;
}

/**
 * A process's memory figure from `/proc/<pid>/status`.
 * @param pid - The process.
 * @param field - `VmHWM` (peak) or `VmRSS` (now).
 * @returns Megabytes, or NaN where `/proc` is missing.
 */
export function procMemoryMb(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return match === null ? Number.NaN : Number(match[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * Measures Bouncer's peak RSS idle and after `outputMiB` MiB of output.
 * @param echo - The echo fixture (its `generate` tool makes the output).
 * @param bouncer - How Bouncer is started.
 * @param options - MiB of output (default 64), per result (default 1), density (default dense).
 * @returns Idle and after, in MB.
 * @throws {Error} When a call fails.
 */
export async function measureRss(
  echo: Upstream,
  bouncer: BouncerLaunch,
  options: { readonly outputMiB?: number; readonly resultMiB?: number; readonly density?: Density } = {},
): Promise<RssResult> {
  const outputMiB = options.outputMiB ?? 64;
  const density = options.density ?? "dense";
  const resultMiB = options.resultMiB ?? 1;
  const client = await openSession(echo, bouncer);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const idleMb = procMemoryMb(client.pid, "VmHWM");
    const begin = performance.now();
    for (let seed = 0; seed * resultMiB < outputMiB; seed++) {
      const bytes = resultMiB * 1024 * 1024;
      const answer = await client.requestText(
        `{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":"generate","arguments":{"bytes":${bytes},"seed":${seed + 1},"density":"${density}"}}}`,
      );
      if (answer.length < bytes || answer.includes("[bouncer blocked]")) {
        throw new Error(`The generate call ${seed} did not pass: ${answer.slice(0, 300)}`);
      }
    }
    const passSeconds = (performance.now() - begin) / 1000;
    return {
      bouncer: bouncer.kind,
      idleMb: round(idleMb, 1),
      afterMb: round(procMemoryMb(client.pid, "VmHWM"), 1),
      outputMiB,
      density,
      passSeconds: round(passSeconds, 1),
    };
  } finally {
    await client.close(5000, "SIGTERM");
  }
}
