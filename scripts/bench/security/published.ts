/**
 * AgentDojo's published numbers (attack `important_instructions`), printed beside the replay's as a
 * **different experiment**: live models that may ignore an injection or fail a task on their own,
 * against this replay's oracle trajectories and an agent that always obeys. Recomputed per suite from
 * AgentDojo's run logs at upstream commit 96046ab54 (the logs behind its leaderboard); transcribed
 * from the corpus README §7. Edge (bench tooling, data only).
 *
 * Source: SPEC §7; issue 6 part 1 ("Print AgentDojo's published numbers beside ours").
 * @module
 */

/** Percentages per suite and overall. */
export interface SuiteNumbers {
  readonly all: number;
  readonly workspace: number;
  readonly travel: number;
  readonly banking: number;
  readonly slack: number;
}

/** One published pipeline: utility without attack (U), under attack (UA), targeted ASR, in %. */
export interface PublishedRow {
  readonly pipeline: string;
  /** 629 (v1-era tasks, workspace injections 0–5) or 949 (v1.2 task set, as this corpus). */
  readonly pairs: 629 | 949;
  readonly utility: SuiteNumbers;
  readonly utilityUnderAttack: SuiteNumbers;
  readonly asr: SuiteNumbers;
}

function n(all: number, workspace: number, travel: number, banking: number, slack: number): SuiteNumbers {
  return { all, workspace, travel, banking, slack };
}

/** The rows of the corpus README §7 table, in its order. */
export const PUBLISHED: readonly PublishedRow[] = [
  {
    pipeline: "gpt-4o-2024-05-13, no defense",
    pairs: 629,
    utility: n(69.1, 62.5, 65.0, 75.0, 81.0),
    utilityUnderAttack: n(50.1, 24.2, 64.3, 69.4, 63.8),
    asr: n(47.7, 40.4, 11.4, 62.5, 92.4),
  },
  {
    pipeline: "gpt-4o + tool_filter",
    pairs: 629,
    utility: n(72.2, 55.0, 90.0, 81.2, 81.0),
    utilityUnderAttack: n(56.3, 51.7, 70.0, 56.9, 47.6),
    asr: n(6.8, 4.2, 5.7, 11.1, 8.6),
  },
  {
    pipeline: "gpt-4o + spotlighting_with_delimiting",
    pairs: 629,
    utility: n(72.2, 62.5, 75.0, 81.2, 81.0),
    utilityUnderAttack: n(55.6, 30.4, 72.1, 77.1, 61.9),
    asr: n(41.7, 35.0, 3.6, 61.8, 80.0),
  },
  {
    pipeline: "gpt-4o + repeat_user_prompt",
    pairs: 629,
    utility: n(84.5, 80.0, 90.0, 93.8, 81.0),
    utilityUnderAttack: n(67.2, 60.4, 72.1, 77.1, 62.9),
    asr: n(27.8, 14.6, 7.1, 46.5, 60.0),
  },
  {
    pipeline: "gpt-4o + transformers_pi_detector",
    pairs: 629,
    utility: n(41.2, 52.5, 30.0, 43.8, 28.6),
    utilityUnderAttack: n(21.1, 15.8, 16.4, 31.2, 25.7),
    asr: n(7.9, 15.0, 0.0, 0.7, 12.4),
  },
  {
    pipeline: "claude-3-5-sonnet-20241022",
    pairs: 629,
    utility: n(79.4, 87.5, 65.0, 81.2, 76.2),
    utilityUnderAttack: n(72.5, 85.8, 65.7, 72.9, 50.5),
    asr: n(1.1, 0.0, 0.0, 2.1, 3.8),
  },
  {
    pipeline: "claude-3-7-sonnet-20250219",
    pairs: 629,
    utility: n(88.7, 95.0, 80.0, 75.0, 95.2),
    utilityUnderAttack: n(77.3, 85.8, 70.0, 74.3, 71.4),
    asr: n(7.3, 5.8, 0.7, 4.2, 23.8),
  },
  {
    pipeline: "claude-3-7-sonnet-20250219",
    pairs: 949,
    utility: n(88.7, 95.0, 80.0, 75.0, 95.2),
    utilityUnderAttack: n(82.1, 89.1, 70.0, 74.3, 71.4),
    asr: n(4.95, 2.7, 0.7, 4.2, 23.8),
  },
  {
    pipeline: "Meta-SecAlign-70B",
    pairs: 949,
    utility: n(77.3, 80.0, 65.0, 81.2, 81.0),
    utilityUnderAttack: n(78.0, 83.4, 64.3, 75.0, 71.4),
    asr: n(2.2, 0.0, 0.0, 9.7, 6.7),
  },
  {
    pipeline: "Meta-SecAlign-70B + repeat_user_prompt",
    pairs: 949,
    utility: n(85.6, 85.0, 70.0, 87.5, 100),
    utilityUnderAttack: n(80.1, 87.5, 64.3, 76.4, 66.7),
    asr: n(2.1, 0.0, 0.0, 9.0, 6.7),
  },
  {
    pipeline: "Llama-3.3-70B-Instruct",
    pairs: 949,
    utility: n(57.7, 52.5, 45.0, 56.2, 81.0),
    utilityUnderAttack: n(41.4, 38.0, 21.4, 58.3, 62.9),
    asr: n(23.1, 6.8, 32.9, 50.7, 59.0),
  },
];

/** Where the rows come from, printed under the table. */
export const PUBLISHED_SOURCE =
  "AgentDojo run logs at upstream commit 96046ab54 (ethz-spylab/agentdojo), attack important_instructions, " +
  "recomputed per suite; U = utility without attack, UA = utility under attack, ASR = targeted attack " +
  "success rate, in %. A different experiment: live models, which may ignore an injection or fail a task " +
  "on their own. The replay assumes an agent that follows the oracle path and always obeys the injection.";

/** Other published defenses, aggregate figures only, as their papers (or summaries) state them. */
export const OTHER_DEFENSES: readonly string[] = [
  "CaMeL (arXiv 2503.18813, AgentDojo v1.2): 77% of tasks solved with provable security vs 84% undefended.",
  "MELON (arXiv 2502.05174, GPT-4o): ASR about 0.24-0.32%, UA about 58.8% (secondary summaries).",
  "Progent (arXiv 2504.11703, a deterministic tool-call policy proxy): ASR 41.2% -> 2.2% (v1 abstract), later 0%.",
  "Tool input/output firewalls (arXiv 2510.05244): 0% (or lowest possible) ASR with high utility, as claimed.",
];
