/**
 * Replays one corpus scenario through the shared gate exactly as `bouncer replay` does
 * (`replaySession`, SPEC §5.9): a fresh gate (one client session, pins in memory), the suite's tool
 * list as the first `tools` event, then one `call` event per step with the careful human's answer —
 * asks on the user's own steps approved, asks on attack steps declined — and the step's output as
 * the tool's untrusted result. Edge (bench tooling).
 *
 * One addition to `bouncer replay`, from the corpus's harness: with `outputs: "all"` (the default) a
 * blocked step's output is recorded too, right after the step is decided, so that later steps see
 * the same history as the AgentDojo trajectory (which does not change when a call is blocked). With
 * `outputs: "forwarded"` only forwarded calls' outputs are recorded, as in a live session.
 *
 * Source: SPEC §5.9, §7; issue 6 part 1; corpus README §6 "Replay harness".
 * @module
 */

import type { Contract, Evidence, JsonObject, ToolDefinition, Verdict } from "../../../src/engine/index.ts";
import type { Policy } from "../../../src/policy/index.ts";
import { Gate } from "../../../src/proxy/gate.ts";
import { type ReplayRow, replaySession } from "../../../src/proxy/replay.ts";
import type { CallEvent, SessionEvent } from "../../../src/proxy/replay-session.ts";
import type { CorpusScenario, CorpusStep } from "./corpus.ts";

/** Which outputs are recorded as untrusted: every step's, or only forwarded calls'. */
export type OutputChoice = "all" | "forwarded";

/** What the gate did with one step. */
export interface StepResult {
  readonly step: CorpusStep;
  /** The engine's verdict before any ask was answered. */
  readonly verdict: Verdict;
  readonly contract: Contract;
  /** The deciding reason's message, or null for an allow without reasons. */
  readonly reason: string | null;
  /** Where the deciding reason saw the value before (none for an unproven destination). */
  readonly evidence: readonly Evidence[];
  readonly outcome: "forwarded" | "blocked";
}

/** The inputs shared by every scenario of a suite. */
export interface SuiteSetup {
  /** The suite's policy (its file only; no packs). */
  readonly policy: Policy;
  /** The tools its fake server lists. */
  readonly tools: readonly ToolDefinition[];
}

/**
 * The name of a suite's fake upstream (`--upstream-name`). No pack is passed to the gate, so it
 * matches none.
 * @param suite - The suite name.
 * @returns `agentdojo-<suite>`.
 */
export function serverName(suite: string): string {
  return `agentdojo-${suite}`;
}

/**
 * The `tools/call` result a step's output stands for: one text block, `isError` when the tool raised.
 * @param step - A corpus step.
 * @returns The result object.
 */
function stepResult(step: CorpusStep): JsonObject {
  if (step.error !== undefined) return { content: [{ type: "text", text: step.error }], isError: true };
  return { content: [{ type: "text", text: step.output }] };
}

/**
 * The session events of a scenario, in the `bouncer replay` format (SPEC §5.9).
 * @param scenario - The scenario.
 * @param tools - The suite's tool list.
 * @returns A `tools` event, then a `call` per step with its ask answer and result.
 */
export function scenarioEvents(scenario: CorpusScenario, tools: readonly ToolDefinition[]): SessionEvent[] {
  const server = serverName(scenario.suite);
  const events: SessionEvent[] = [{ event: "tools", line: 1, server, tools: tools as ToolsOf }];
  for (const [index, step] of scenario.steps.entries()) {
    const call: CallEvent = {
      event: "call",
      line: index + 2,
      server,
      tool: step.tool,
      arguments: step.args,
      result: stepResult(step),
      ask: step.origin === "user_task" ? "approved" : "declined",
    };
    events.push(call);
  }
  return events;
}

type ToolsOf = Extract<SessionEvent, { event: "tools" }>["tools"];

/**
 * Replays one scenario in a fresh client session.
 * @param scenario - The scenario.
 * @param setup - The suite's policy and tool list.
 * @param options - Which outputs are recorded (default `all`).
 * @returns One result per step, in order.
 */
export async function runScenario(
  scenario: CorpusScenario,
  setup: SuiteSetup,
  options: { readonly outputs?: OutputChoice } = {},
): Promise<StepResult[]> {
  const gate = new Gate(setup.policy, { home: "/home/bench", cwd: "/work/bench", pinMode: "tofu" });
  const events = scenarioEvents(scenario, setup.tools);
  const recordBlocked = (options.outputs ?? "all") === "all";
  const onRow = (row: ReplayRow): void => {
    // replaySession reports each row before it reads the next event, so this lands in order.
    if (!recordBlocked || row.outcome === "forwarded") return;
    const event = events[row.line - 1] as CallEvent;
    const result = event.result ?? {};
    gate.recordResult(
      { server: row.server, tool: row.tool, seq: row.seq, args: event.arguments },
      { result },
    );
  };
  const { rows } = await replaySession(events, gate, { ask: "deny", onRow });
  return rows.map((row, index) => {
    const step = scenario.steps[index] as CorpusStep;
    return {
      step,
      verdict: row.verdict,
      contract: row.contract,
      reason: row.reason,
      evidence: row.evidence ?? [],
      outcome: row.outcome,
    };
  });
}
