/**
 * The budget contract (SPEC §2.3): `max_calls` attempts per tool per session. Pure; the counter lives
 * in the session's {@link EngineState}.
 * @module
 */

import { callBudgetKey } from "./call-rules.ts";
import { renderUntrusted } from "./render.ts";
import { type EngineState, NO_OBJECTION } from "./state.ts";
import type { CallInput, ContractResult, RuleSource } from "./types.ts";

/**
 * Evaluates the budget contract. On a request's first evaluation (`input.countAttempt`) the attempt
 * is counted before anything else, whatever the final verdict; the attempt number decides: attempts
 * `1..max_calls` pass, later ones deny. Check and increment are one synchronous step, so parallel
 * requests cannot race past the limit. The re-decision after an approval (`countAttempt: false`) is
 * not counted and not re-checked: its attempt was within the budget when first evaluated (an attempt
 * over budget is denied then, and a deny is never asked about). `max_calls: 0` denies every call.
 *
 * Source: SPEC §2.3.
 * @param input - The call; reads `server`, `tool`, `rules.maxCalls` and `countAttempt`.
 * @param state - The session state; its `budgets` counter is incremented when counting.
 * @returns One `budget_exhausted` deny, or no objection.
 * @throws Never.
 * @example evaluateBudget({ ...input, countAttempt: true }, state).denies.length // 0 for attempt 1 of 2
 */
export function evaluateBudget(input: CallInput, state: EngineState): ContractResult {
  // The key compiled with the rules: no string is made per call.
  const key = callBudgetKey(input);
  const used = state.budgets.get(key) ?? 0;
  const attempt = input.countAttempt ? used + 1 : used;
  if (input.countAttempt) state.budgets.set(key, attempt);
  const limit = input.rules.maxCalls;
  if (limit === undefined) return NO_OBJECTION;
  const overBudget = limit.value === 0 || (input.countAttempt && attempt > limit.value);
  if (!overBudget) return NO_OBJECTION;
  const attempts = limit.value === 1 ? "attempt" : "attempts";
  const message =
    limit.value === 0
      ? `Tool ${renderUntrusted(input.tool)} may not be called (max_calls: 0)`
      : `Tool ${renderUntrusted(input.tool)} used its budget of ${limit.value} ${attempts} this session (max_calls: ${limit.value}${limitOrigin(limit.source)}): every attempt counts, denied and declined ones too`;
  return { denies: [{ code: "budget_exhausted", message, source: limit.source }], asks: [] };
}

/**
 * Where a heuristic limit comes from and how to change it (SPEC §4.4: destructive verbs, and an
 * explicit `destructiveHint: true`, get `max_calls: 2`); nothing for a limit a policy wrote.
 */
function limitOrigin(source: RuleSource): string {
  return source === "heuristic"
    ? " from the destructive-verb heuristic, which gives a tool with a destructive verb in its name (delete, remove, drop, …) or destructiveHint: true this limit; set max_calls for the tool in a policy file to change it"
    : "";
}
