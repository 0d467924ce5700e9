/**
 * Decision time against session size, in process: one gate (src/proxy/gate.ts, the proxy's own
 * per-call handler) records synthetic tool output full of distinct destinations — 1 KiB, then on to
 * 1 MiB, 16 MiB and 64 MiB in all — and at each size times `decideCall` of an exfiltrating tool on
 * three destinations: an address planted in the oldest output (token-shaped, tainted: deny, found
 * through the index), an address never seen (token-shaped, unproven: ask), and a multi-word name never
 * seen (not token-shaped: searched in the bounded window, ask). Each verdict is checked, so a fast
 * wrong answer cannot pass for a fast one. Between token-shaped decisions, a pure computation as long
 * as one is timed too: the baseline under their p99, taken at the same moments.
 *
 * Source: SPEC §2.5 ("Index, not rescans": decision cost must not grow with the session), §7; issue 6
 * part 2.
 * @module
 */

import type { JsonObject, ToolDefinition } from "../../../src/engine/index.ts";
import { parsePolicyFiles } from "../../../src/policy/index.ts";
import { Gate } from "../../../src/proxy/gate.ts";
import { round, type Summary, summarize } from "./stats.ts";
import { syntheticAddress, syntheticText } from "./synthetic-output.ts";

/** The sizes measured, in bytes of recorded output. */
export const DECISION_SIZES: readonly (readonly [string, number])[] = [
  ["1KiB", 1024],
  ["1MiB", 1024 ** 2],
  ["16MiB", 16 * 1024 ** 2],
  ["64MiB", 64 * 1024 ** 2],
];

/** The destinations decided at each size. */
export type DestinationKind = "token_tainted" | "token_unproven" | "non_token";

/** Decision times at one size, in microseconds. */
export interface DecisionAtSize {
  readonly size: string;
  readonly bytes: number;
  readonly us: Readonly<Record<DestinationKind, Summary>>;
  /**
   * The same-moment baseline: a pure computation as long as a token-shaped decision (p50), timed
   * between one decision and the next — what the machine alone adds to short samples.
   */
  readonly baselineUs: Summary;
  /** Verdicts seen per destination (expected: deny, ask, ask). */
  readonly verdicts: Readonly<Record<DestinationKind, string>>;
  /** Recording throughput up to this size, MiB/s. */
  readonly recordMiBps: number;
}

const SERVER = "mail";
const POLICY = `send_email:
  exfiltrating: true
  sink_params: [to]
read_inbox: { exfiltrating: false }
`;
const TOOLS: readonly ToolDefinition[] = [
  {
    name: "send_email",
    description: "Send an email.",
    inputSchema: {
      type: "object",
      properties: { to: { type: "string" }, subject: { type: "string" }, body: { type: "string" } },
      required: ["to"],
    },
  },
  { name: "read_inbox", description: "Read the inbox.", inputSchema: { type: "object", properties: {} } },
];
/** Output is recorded in tool results of this size (the last one of a step may be smaller). */
const RESULT_BYTES = 256 * 1024;

/** The destination of each kind, and the verdict it must get. */
const DESTINATIONS: readonly (readonly [DestinationKind, string, string])[] = [
  ["token_tainted", syntheticAddress(0, 0), "deny"],
  ["token_unproven", "nobody.new@fresh-domain.example", "ask"],
  ["non_token", "Quarterly Planning Group Alpha", "ask"],
];

/**
 * Times `decideCall` on one destination; for token-shaped ones, a calibrated pure computation is
 * timed after each decision too, so that both see the same moments of the machine.
 * @param gate - The gate.
 * @param to - The destination.
 * @param options - Timed calls (after twice as many untimed, then a full collection), and whether to
 *   take baseline samples.
 * @returns Microseconds per decision, the baseline samples, and the verdict.
 */
async function timeDecisions(
  gate: Gate,
  to: string,
  options: { readonly iterations: number; readonly baseline: boolean },
): Promise<{ summary: Summary; baseline: number[]; verdict: string }> {
  const args: JsonObject = { to, subject: "Figures", body: "See attached." };
  let verdict = "";
  const decideOnce = async (): Promise<number> => {
    const begin = performance.now();
    const { decision } = await gate.decideCall(SERVER, "send_email", args);
    const us = (performance.now() - begin) * 1000;
    verdict = decision.verdict;
    return us;
  };
  // The JIT keeps tiering up for a few thousand decisions: the steady state is what a session lives in.
  const warm: number[] = [];
  for (let i = 0; i < Math.max(50, options.iterations * 2); i++) warm.push(await decideOnce());
  const rounds = options.baseline ? calibrateSpin(summarize(warm.slice(-200)).p50) : 0;
  // Garbage left by recording is collected first, so that it is not charged to the decisions.
  Bun.gc(true);
  const samples: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < options.iterations; i++) {
    samples.push(await decideOnce());
    if (options.baseline) baseline.push(await timeSpinAsync(rounds));
  }
  return { summary: summarize(samples), baseline, verdict };
}

/**
 * Records output up to each size and times decisions there.
 * @param options - Timed decisions per destination: token-shaped (default 3,000) and not (default 200);
 *   the sizes (default {@link DECISION_SIZES}).
 * @returns One row per size.
 */
export async function measureDecisions(
  options: {
    readonly tokenIterations?: number;
    readonly nonTokenIterations?: number;
    readonly sizes?: readonly (readonly [string, number])[];
  } = {},
): Promise<DecisionAtSize[]> {
  const policy = parsePolicyFiles([{ text: POLICY, fileName: "bench-perf.yaml" }], []);
  const gate = new Gate(policy, { home: "/home/bench", cwd: "/work/bench", pinMode: "tofu" });
  gate.registerServer({ name: SERVER });
  await gate.walkTools(SERVER, TOOLS);
  const rows: DecisionAtSize[] = [];
  let recorded = 0;
  let recordMs = 0;
  let seed = 0;
  for (const [size, bytes] of options.sizes ?? DECISION_SIZES) {
    while (recorded < bytes) {
      const chunk = Math.min(RESULT_BYTES, bytes - recorded);
      const text = syntheticText(chunk, seed);
      const { seq } = await gate.decideCall(SERVER, "read_inbox", {});
      const begin = performance.now();
      gate.recordResult(
        { server: SERVER, tool: "read_inbox", seq, args: {} },
        { result: { content: [{ type: "text", text }] } },
      );
      recordMs += performance.now() - begin;
      recorded += chunk;
      seed++;
    }
    const us: Partial<Record<DestinationKind, Summary>> = {};
    const verdicts: Partial<Record<DestinationKind, string>> = {};
    const baseline: number[] = [];
    for (const [kind, to] of DESTINATIONS) {
      const token = kind !== "non_token";
      const iterations = token ? (options.tokenIterations ?? 3000) : (options.nonTokenIterations ?? 200);
      const timed = await timeDecisions(gate, to, { iterations, baseline: token });
      us[kind] = timed.summary;
      verdicts[kind] = timed.verdict;
      baseline.push(...timed.baseline);
    }
    rows.push({
      size,
      bytes,
      us: us as Record<DestinationKind, Summary>,
      baselineUs: summarize(baseline),
      verdicts: verdicts as Record<DestinationKind, string>,
      recordMiBps: round(recorded / 1024 ** 2 / (recordMs / 1000), 1),
    });
  }
  return rows;
}

/** A sink the jitter loop writes to, so the loop is not optimised away. */
let jitterSink = 0;

/**
 * Runs `rounds` rounds of a fixed integer loop.
 * @param rounds - Loop length.
 */
function spin(rounds: number): void {
  let x = jitterSink;
  for (let i = 0; i < rounds; i++) x = (x * 31 + i) | 0;
  jitterSink = x;
}

/**
 * Times one run of {@link spin}.
 * @param rounds - Loop length.
 * @returns Microseconds.
 */
function timeSpin(rounds: number): number {
  const begin = performance.now();
  spin(rounds);
  return (performance.now() - begin) * 1000;
}

/**
 * Times one run of {@link spin} behind an `await`, as `decideCall` is timed (it awaits the pins).
 * @param rounds - Loop length.
 * @returns Microseconds.
 */
async function timeSpinAsync(rounds: number): Promise<number> {
  const begin = performance.now();
  await Promise.resolve();
  spin(rounds);
  return (performance.now() - begin) * 1000;
}

/**
 * How many rounds of a pure integer loop (no allocation, no I/O) last about `targetUs` here. Timed
 * between decisions, that loop is the baseline under their p99: a virtual machine's timer interrupts
 * and host scheduling show up as tens of microseconds on about 1% of short samples, whatever runs.
 * @param targetUs - The duration wanted (a decision's p50), in µs.
 * @returns The loop length.
 */
export function calibrateSpin(targetUs: number): number {
  let rounds = 1000;
  for (let attempt = 0; attempt < 8; attempt++) {
    const samples: number[] = [];
    for (let i = 0; i < 200; i++) samples.push(timeSpin(rounds));
    const p50 = summarize(samples).p50;
    if (p50 > 0) rounds = Math.max(1, Math.round((rounds * targetUs) / p50));
  }
  return rounds;
}

/**
 * Times a calibrated pure computation, as the decisions are timed.
 * @param targetUs - The duration to calibrate to, in µs.
 * @param iterations - Timed samples (default 3,000).
 * @returns Microseconds per sample.
 */
export function measureJitter(targetUs: number, iterations = 3000): Summary {
  const rounds = calibrateSpin(targetUs);
  return summarize(Array.from({ length: iterations }, () => timeSpin(rounds)));
}

/**
 * The verdict each destination must get.
 * @returns Destination kind → expected verdict.
 */
export function expectedVerdicts(): Readonly<Record<DestinationKind, string>> {
  return Object.fromEntries(DESTINATIONS.map(([kind, , verdict]) => [kind, verdict])) as Record<
    DestinationKind,
    string
  >;
}
