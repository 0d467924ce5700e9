/**
 * Decision time against session size, in process: one gate (src/proxy/gate.ts, the proxy's own
 * per-call handler) records synthetic tool output full of distinct destinations — 1 KiB, then on to
 * 1 MiB, 16 MiB and 64 MiB in all — and at each size times `decideCall` of an exfiltrating tool on
 * three destinations: an address planted in the oldest output (token-shaped, tainted: deny, found
 * through the index), an address never seen (token-shaped, unproven: ask), and a multi-word name never
 * seen (not token-shaped: searched in the bounded window, ask). Each verdict is checked, so a fast
 * wrong answer cannot pass for a fast one.
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
 * Times `decideCall` on one destination.
 * @param gate - The gate.
 * @param to - The destination.
 * @param iterations - Timed calls (after twice as many untimed, then a full collection).
 * @returns Microseconds per decision and the verdict.
 */
async function timeDecisions(
  gate: Gate,
  to: string,
  iterations: number,
): Promise<{ summary: Summary; verdict: string }> {
  const args: JsonObject = { to, subject: "Figures", body: "See attached." };
  let verdict = "";
  // The JIT keeps tiering up for a few thousand decisions: the steady state is what a session lives in.
  for (let i = 0; i < Math.max(50, iterations * 2); i++) await gate.decideCall(SERVER, "send_email", args);
  // Garbage left by recording is collected first, so that it is not charged to the decisions.
  Bun.gc(true);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const begin = performance.now();
    const { decision } = await gate.decideCall(SERVER, "send_email", args);
    samples.push((performance.now() - begin) * 1000);
    verdict = decision.verdict;
  }
  return { summary: summarize(samples), verdict };
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
    for (const [kind, to] of DESTINATIONS) {
      const iterations =
        kind === "non_token" ? (options.nonTokenIterations ?? 200) : (options.tokenIterations ?? 3000);
      const timed = await timeDecisions(gate, to, iterations);
      us[kind] = timed.summary;
      verdicts[kind] = timed.verdict;
    }
    rows.push({
      size,
      bytes,
      us: us as Record<DestinationKind, Summary>,
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
 * The machine's own jitter, measured in the same run as the decisions: a pure computation with no
 * allocation and no I/O, calibrated to last about as long as a decision's p50, timed the same way.
 * Its p99 is the floor under any p99 measured here (a virtual machine's timer interrupts and host
 * scheduling show up as tens of microseconds on about 1% of short samples).
 * @param targetUs - The duration to calibrate to (a decision's p50), in µs.
 * @param iterations - Timed samples (default 3,000).
 * @returns Microseconds per sample.
 */
export function measureJitter(targetUs: number, iterations = 3000): Summary {
  let rounds = 1000;
  for (let attempt = 0; attempt < 8; attempt++) {
    const samples: number[] = [];
    for (let i = 0; i < 200; i++) {
      const begin = performance.now();
      spin(rounds);
      samples.push((performance.now() - begin) * 1000);
    }
    const p50 = summarize(samples).p50;
    if (p50 > 0) rounds = Math.max(1, Math.round((rounds * targetUs) / p50));
  }
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const begin = performance.now();
    spin(rounds);
    samples.push((performance.now() - begin) * 1000);
  }
  return summarize(samples);
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
