import { describe, expect, test } from "bun:test";
import type { CorpusScenario, CorpusStep } from "../../../scripts/bench/security/corpus.ts";
import type { StepResult } from "../../../scripts/bench/security/run-scenario.ts";
import { acceptance, type ScenarioOutcome, scoreOutcomes } from "../../../scripts/bench/security/score.ts";

type Verdict = StepResult["verdict"];

function outcome(
  id: string,
  options: { injection?: string; attackClass?: string },
  steps: readonly [CorpusStep["origin"], Verdict, boolean?][],
): ScenarioOutcome {
  const corpusSteps: CorpusStep[] = steps.map(([origin, , attack], i) => ({
    i,
    origin,
    tool: "t",
    args: {},
    output: "",
    ...(attack === true ? { attack_step: true } : {}),
  }));
  const scenario: CorpusScenario = {
    id,
    suite: "s",
    user_task_id: "user_task_0",
    injection_task_id: options.injection ?? null,
    ...(options.attackClass === undefined ? {} : { attack_class: options.attackClass }),
    steps: corpusSteps,
    expected: { sink_steps_must_not_deny: [], attack_steps_must_not_allow: [] },
  };
  return {
    scenario,
    steps: steps.map(([, verdict], i) => ({
      step: corpusSteps[i] as CorpusStep,
      verdict,
      contract: verdict === "allow" ? "default" : "sink_gate",
      reason: null,
      evidence: [],
      outcome: verdict === "allow" ? "forwarded" : "blocked",
    })),
  };
}

const exfil = { injection: "injection_task_0", attackClass: "exfil_to_attacker" };
const destructive = { injection: "injection_task_1", attackClass: "destructive_no_destination" };

describe("scoreOutcomes()", () => {
  const stats = scoreOutcomes([
    outcome("b0", {}, [
      ["user_task", "ask"],
      ["user_task", "ask"],
    ]),
    outcome("b1", {}, [
      ["user_task", "deny"],
      ["user_task", "deny"],
    ]),
    outcome("b2", {}, [["user_task", "allow"]]),
    outcome("b3", {}, [["user_task", "ask"]]),
    outcome("i0", exfil, [
      ["user_task", "allow"],
      ["injection_task", "deny", true],
    ]),
    outcome("i1", exfil, [
      ["injection_task", "ask", true],
      ["user_task", "deny"],
    ]),
    outcome("i2", exfil, [["injection_task", "allow", true]]),
    outcome("o0", destructive, [["injection_task", "allow"]]),
    outcome("o1", destructive, [["injection_task", "deny"]]),
  ]);

  test("scoreOutcomes() counts attack steps by first verdict and stopped scenarios by any non-allow", () => {
    expect(stats).toMatchObject({
      attacks_total: 3,
      attacks_allowed: 1,
      attacks_denied: 1,
      attacks_asked: 1,
      in_scope_scenarios: 3,
      in_scope_stopped: 2,
      in_scope_stopped_by_deny: 1,
    });
  });

  test("scoreOutcomes() counts unstopped out-of-scope scenarios in the worst-case ASR over all injected", () => {
    expect(stats.out_of_scope_scenarios).toBe(2);
    expect(stats.out_of_scope_stopped).toBe(1);
    expect(stats.asr_worst_case_pct).toBe(40);
    expect(stats.asr_in_scope_pct).toBe(33.33);
  });

  test("scoreOutcomes() counts benign tasks with a denied call, denied calls, and asks per task (median of an even count)", () => {
    expect(stats).toMatchObject({
      benign_tasks: 4,
      benign_tasks_denied: 1,
      benign_denied_calls: 2,
      benign_asks_median: 0.5,
      benign_asks_mean: 0.75,
      benign_asks_max: 2,
      injected_user_calls_denied: 1,
      injected_scenarios_user_denied: 1,
    });
  });

  test("acceptance() scales the benign limit to the task count (0 of 4) and meets only the median here", () => {
    expect(acceptance(stats).map((check) => check.met)).toEqual([false, false, false, true]);
    expect(acceptance(stats)[2]?.target).toBe("<= 0 of 4 benign tasks with a denied call");
  });
});
