/**
 * The decision (SPEC §2): all four contracts evaluated on every call and combined by one table. Pure;
 * the only state is the session's {@link EngineState}.
 * @module
 */

import { rememberedAnswer } from "./answers.ts";
import { evaluateBudget } from "./budget.ts";
import { evaluateConstraints } from "./constraints.ts";
import { errorText } from "./error-text.ts";
import { createArgumentKeys } from "./param-paths.ts";
import { evaluatePinning } from "./pinning.ts";
import { renderUntrusted } from "./render.ts";
import { evaluateSinkGate } from "./sink-gate.ts";
import { type EngineState, NO_OBJECTION, uniqueAsks } from "./state.ts";
import type { CallInput, Contract, ContractResult, Decision, Question, Reason } from "./types.ts";

/** A contract that can object (everything but `default`), in the order that names a deny. */
type Checked = Exclude<Contract, "default">;

interface Outcome {
  readonly contract: Checked;
  readonly result: ContractResult;
}

function internalError(contract: Contract, error: unknown): Reason {
  const detail = errorText(error);
  const message = `Bouncer could not evaluate the ${contract} contract: ${renderUntrusted(detail)}`;
  return { code: "internal_error", message, source: "default" };
}

/** Runs one contract; an exception becomes that contract's deny (STYLE #3: errors deny). */
function guard(contract: Checked, evaluate: () => ContractResult): Outcome {
  try {
    return { contract, result: evaluate() };
  } catch (error) {
    return { contract, result: { denies: [internalError(contract, error)], asks: [] } };
  }
}

/**
 * `defaults.unclassified: ask` for a tool no layer classifies (SPEC §4.2), asked with the sink gate.
 * Its approval key is the tool (identity `unclassified`): a remembered answer covers every later
 * call of the tool, whatever its arguments, and the question says so.
 */
function unclassified(input: CallInput): ContractResult {
  const { rules, server, tool } = input;
  if (rules.exfiltrating !== undefined || rules.unclassified.value !== "ask") return NO_OBJECTION;
  const name = renderUntrusted(tool);
  const reason: Reason = {
    code: "unclassified_tool",
    message: `Tool ${name} is not classified by any policy layer (unclassified: ask)`,
    source: rules.unclassified.source,
  };
  const question: Question = {
    kind: "action",
    // What an answer does, exactly: the approval key is the tool, not these arguments.
    message: `Allow tool ${name} on server ${renderUntrusted(server)}, which no policy classifies? Accept allows this call; with "Remember for this session" on, also every later call of ${name} in this session, whatever its arguments. Decline blocks this call; with Remember on, every later call of ${name} too.`,
    key: { server, tool, param: "", identity: "unclassified", subject: "tool" },
  };
  return { denies: [], asks: [{ reason, question }] };
}

function both(a: ContractResult, b: ContractResult): ContractResult {
  if (b.denies.length === 0 && b.asks.length === 0) return a;
  if (a.denies.length === 0 && a.asks.length === 0) return b;
  return { denies: [...a.denies, ...b.denies], asks: [...a.asks, ...b.asks] };
}

/**
 * The combination table (SPEC §2 intro, STYLE #3), in one place:
 *
 * | any deny (incl. remembered declines) | any ask left | verdict | contract                   |
 * |--------------------------------------|--------------|---------|----------------------------|
 * | yes                                  | –            | deny    | first denying, in order    |
 * | no                                   | yes          | ask     | first asking, in order     |
 * | no                                   | no           | allow   | `default`                  |
 *
 * Approved questions (remembered, or one-time for this request) drop out of the asks.
 */
function combine(outcomes: readonly Outcome[], input: CallInput, state: EngineState): Decision {
  const denies: { contract: Checked; reason: Reason }[] = [];
  const asks: { contract: Checked; reason: Reason; question: Question }[] = [];
  const approved: Reason[] = [];
  for (const { contract, result } of outcomes) {
    for (const reason of result.denies) denies.push({ contract, reason });
    for (const { reason, question } of result.asks) {
      const answer = rememberedAnswer(state, question, input.oneTimeApprovals);
      if (answer === "declined") {
        const message = `${reason.message}; declined earlier in this session`;
        denies.push({ contract, reason: { ...reason, code: "ask_declined", message } });
      } else if (answer === "approved") {
        approved.push({ ...reason, code: "approved", message: `${reason.message}; approved by the human` });
      } else {
        asks.push({ contract, reason, question });
      }
    }
  }
  const [firstDeny, ...moreDenies] = denies;
  if (firstDeny !== undefined) {
    return {
      verdict: "deny",
      contract: firstDeny.contract,
      reasons: [firstDeny.reason, ...moreDenies.map((d) => d.reason)],
    };
  }
  const [firstAsk, ...moreAsks] = uniqueAsks(asks);
  if (firstAsk !== undefined) {
    return {
      verdict: "ask",
      contract: firstAsk.contract,
      reasons: [firstAsk.reason, ...moreAsks.map((a) => a.reason)],
      questions: [firstAsk.question, ...moreAsks.map((a) => a.question)],
    };
  }
  return { verdict: "allow", contract: "default", reasons: approved };
}

/**
 * Decides one `tools/call`: evaluates pinning, budget, constraints and the sink gate — all four,
 * always — and combines them by one table: any deny → deny (contract = the first denying one in the
 * order pinning, budget, constraint, sink_gate); otherwise any ask → one ask with every question still
 * open; otherwise allow (contract `default`). Remembered approvals and this request's one-time
 * approvals drop their questions; remembered declines deny. The budget counts the attempt first, so a
 * request is counted once (when `countAttempt`) whatever the other contracts say. Any exception while
 * deciding denies with code `internal_error`.
 *
 * Source: SPEC §2 (intro), §2.1–2.5; STYLE #1–3.
 * @param input - The call with its rules, pin status, path context and approvals.
 * @param state - The session state (budget counters, remembered answers, taint index); budgets are counted in it.
 * @returns The decision record.
 * @throws Never: errors become a `deny`.
 * @example decide({ ...input, pin: { kind: "unknown" } }, state) // { verdict: "deny", contract: "pinning", … }
 */
export function decide(input: CallInput, state: EngineState): Decision {
  try {
    const budget = guard("budget", () => evaluateBudget(input, state));
    // The argument keys the parameter paths reach, folded once for both contracts that read them.
    const keys = createArgumentKeys();
    const outcomes = [
      guard("pinning", () => evaluatePinning(input)),
      budget,
      guard("constraint", () => evaluateConstraints(input, keys)),
      guard("sink_gate", () => both(evaluateSinkGate(input, state, keys), unclassified(input))),
    ];
    return combine(outcomes, input, state);
  } catch (error) {
    return { verdict: "deny", contract: "default", reasons: [internalError("default", error)] };
  }
}
