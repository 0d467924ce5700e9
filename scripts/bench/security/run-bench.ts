/**
 * Runs the security bench over a corpus: per suite, the policy from the corpus's sink
 * classification (validated like a `--policy` file, no packs), then every scenario in its own client
 * session through the shared gate, then the scores per suite and in total. Edge (bench tooling).
 *
 * Source: SPEC §7; issue 6 part 1.
 * @module
 */

import { parsePolicyFiles } from "../../../src/policy/index.ts";
import type { Corpus, CorpusScenario } from "./corpus.ts";
import { type OutputChoice, runScenario, type SuiteSetup } from "./run-scenario.ts";
import { type ScenarioOutcome, type SecurityStats, scoreOutcomes } from "./score.ts";
import { type CommitChoice, type OtherTools, suitePolicyText, suiteTools } from "./suite-policy.ts";

/** The choices a bench run is made under (printed with the results). */
export interface BenchOptions {
  readonly commit?: CommitChoice;
  readonly others?: OtherTools;
  readonly outputs?: OutputChoice;
  /** Trust each suite's directory allowlist (`defaults.trusted_destinations`); default false. */
  readonly directory?: boolean;
  /** `defaults.on_tainted` (default `deny`: not written, the product default). */
  readonly onTainted?: "deny" | "ask";
  /** Tools given `on_tainted: ask` (named on the command line; default none). */
  readonly askOnTainted?: readonly string[];
}

/** A finished run: the scenarios' outcomes, the scores, and the policies used. */
export interface BenchRun {
  readonly options: Required<BenchOptions>;
  readonly outcomes: readonly ScenarioOutcome[];
  readonly total: SecurityStats;
  /** Per suite, in the corpus's suite order. */
  readonly suites: ReadonlyMap<string, SecurityStats>;
  /**
   * The 629-pair task set of AgentDojo's v1-era leaderboard (workspace injection tasks 0–5 only), in
   * total and per suite, for the published rows measured on it.
   */
  readonly v1: { readonly total: SecurityStats; readonly suites: ReadonlyMap<string, SecurityStats> };
  /** Injected scenarios per attack class (corpus README §4). */
  readonly classes: ReadonlyMap<string, SecurityStats>;
  /** Each suite's policy text. */
  readonly policies: ReadonlyMap<string, string>;
}

/**
 * Replays every scenario of a corpus and scores it.
 * @param corpus - The loaded corpus (full or sample).
 * @param options - Commit choice, treatment of other tools, outputs recorded, directory trust,
 * `on_tainted` choices, and a progress callback (scenarios done, scenarios in all).
 * @returns The run.
 * @throws {PolicyError} If a generated suite policy does not validate (a bench bug).
 */
export async function runBench(
  corpus: Corpus,
  options: BenchOptions & { readonly onProgress?: (done: number, total: number) => void } = {},
): Promise<BenchRun> {
  const chosen: Required<BenchOptions> = {
    commit: options.commit ?? "gate",
    others: options.others ?? "heuristics",
    outputs: options.outputs ?? "all",
    directory: options.directory ?? false,
    onTainted: options.onTainted ?? "deny",
    askOnTainted: options.askOnTainted ?? [],
  };
  const setups = new Map<string, SuiteSetup>();
  const policies = new Map<string, string>();
  for (const [name, suite] of Object.entries(corpus.meta.suites)) {
    const text = suitePolicyText(suite, {
      commit: chosen.commit,
      others: chosen.others,
      ...(chosen.directory ? { trusted: suite.directory_allowlist } : {}),
      onTainted: chosen.onTainted,
      askOnTainted: chosen.askOnTainted,
    });
    policies.set(name, text);
    const policy = parsePolicyFiles([{ text, fileName: `agentdojo-${name}.yaml` }], []);
    setups.set(name, { policy, tools: suiteTools(suite) });
  }
  const outcomes: ScenarioOutcome[] = [];
  for (const scenario of corpus.scenarios) {
    const setup = setups.get(scenario.suite);
    if (setup === undefined) continue;
    outcomes.push({ scenario, steps: await runScenario(scenario, setup, { outputs: chosen.outputs }) });
    options.onProgress?.(outcomes.length, corpus.scenarios.length);
  }
  const v1 = outcomes.filter((outcome) => inV1TaskSet(outcome.scenario));
  return {
    options: chosen,
    outcomes,
    total: scoreOutcomes(outcomes),
    suites: perSuite(outcomes, [...setups.keys()]),
    v1: { total: scoreOutcomes(v1), suites: perSuite(v1, [...setups.keys()]) },
    classes: perClass(outcomes),
    policies,
  };
}

function perClass(outcomes: readonly ScenarioOutcome[]): Map<string, SecurityStats> {
  const names = new Set(outcomes.map((outcome) => outcome.scenario.attack_class ?? ""));
  names.delete("");
  const classes = new Map<string, SecurityStats>();
  for (const name of names) {
    classes.set(name, scoreOutcomes(outcomes.filter((outcome) => outcome.scenario.attack_class === name)));
  }
  return classes;
}

function perSuite(
  outcomes: readonly ScenarioOutcome[],
  names: readonly string[],
): Map<string, SecurityStats> {
  const suites = new Map<string, SecurityStats>();
  for (const name of names) {
    const mine = outcomes.filter((outcome) => outcome.scenario.suite === name);
    if (mine.length > 0) suites.set(name, scoreOutcomes(mine));
  }
  return suites;
}

/**
 * Whether a scenario belongs to the v1-era 629-pair task set: every benign task, and every injected
 * pair except workspace injection tasks 6–13 (added in v1.2). Corpus README §1 "Versions".
 * @param scenario - A corpus scenario.
 * @returns True when the published 629-pair numbers cover it.
 */
export function inV1TaskSet(scenario: CorpusScenario): boolean {
  if (scenario.suite !== "workspace" || scenario.injection_task_id === null) return true;
  const index = Number.parseInt(scenario.injection_task_id.replace(/^injection_task_/, ""), 10);
  return Number.isInteger(index) && index <= 5;
}
