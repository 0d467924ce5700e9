/**
 * Replays a recorded session through the gate (SPEC §5.9): no upstream, no client, no timers, no ask
 * limits. All servers of the file form one client session; the first `tools` event of a server pins
 * it (in memory), later ones are re-walks; each call is decided (an instance's calls in their live
 * `seq` order, see `replay-order.ts`), its ask answered from the file (or
 * `--ask`), and the output of every call that was forwarded is recorded as untrusted, as is each
 * `output` and `instructions` event where it stands. A walk or a decision that fails is a deny with
 * live's reason, never a crash of the replay. Edge (no I/O: the command reads the file and prints
 * the rows).
 *
 * Source: SPEC §5.9, §7 (the security bench replays the same way).
 * @module
 */

import type { LiveBlocked } from "../audit/index.ts";
import type {
  AskAnswer,
  Contract,
  Decision,
  Evidence,
  PathResolver,
  RuleSource,
  Verdict,
} from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import type { Gate } from "./gate.ts";
import { ambiguousJsonDeny, proxyDeny } from "./proxy-denies.ts";
import { decisionOrder } from "./replay-order.ts";
import { ReplayRuns } from "./replay-runs.ts";
import type { CallEvent, SessionEvent, ToolsEvent } from "./replay-session.ts";

/** One replayed call: the engine's first verdict and what became of the call. */
export interface ReplayRow {
  readonly seq: number;
  readonly server: string;
  readonly tool: string;
  /** The engine's verdict before any ask was answered. */
  readonly verdict: Verdict;
  readonly contract: Contract;
  /** The deciding reason's message, or null for an allow without reasons. */
  readonly reason: string | null;
  /** The deciding reason's policy source, or null for an allow without reasons. */
  readonly source: RuleSource | null;
  /** Where the value was seen before, when the deciding reason says. */
  readonly evidence?: readonly Evidence[];
  /** `forwarded` (allowed, or asked and approved) or `blocked`. */
  readonly outcome: "forwarded" | "blocked";
  /**
   * Why the live proxy blocked the call for a reason replay cannot reproduce (the file's
   * `live_blocked`): the call is blocked whatever the verdict, with no recorded answer applied.
   */
  readonly liveBlocked?: LiveBlocked;
  /** The line of the session file. */
  readonly line: number;
}

/** Counts of first verdicts (SPEC §5.9 summary line). */
export interface ReplaySummary {
  readonly calls: number;
  readonly allow: number;
  readonly deny: number;
  readonly ask: number;
}

/** Options of {@link replaySession}. */
export interface ReplayOptions {
  /** How to answer an ask the file does not answer (`--ask`, default `deny`). */
  readonly ask?: "deny" | "allow";
  /** Called with each row as soon as it is decided (for streaming output). */
  readonly onRow?: (row: ReplayRow) => void;
  /**
   * The path walk (SPEC §2.4) for the servers the file has a `server` event of: their paths resolve
   * as the live session's did (`bouncer replay` walks the file system as it is now). Other servers,
   * and every server when absent, resolve lexically (SPEC §5.9).
   */
  readonly resolvePath?: PathResolver;
}

/**
 * The answer to an ask of a replayed call, applied as the live asker applied it: the recorded `ask`
 * with its `remember` and URL `scope` (a file without `remember` remembers, as before the field), or
 * `--ask`, remembered.
 *
 * Source: SPEC §5.9 ("approvals and declines are remembered as in a live session"), §2.5.
 * @param event - The call.
 * @param options - The default ask answer.
 * @returns The answer.
 */
function recordedAnswer(event: CallEvent, options: ReplayOptions): AskAnswer {
  if (event.ask === undefined) return { accepted: options.ask === "allow", remember: true };
  return {
    accepted: event.ask === "approved",
    remember: event.remember ?? true,
    ...(event.scope === undefined ? {} : { scope: event.scope }),
  };
}

/**
 * Walks a `tools` event as the live proxy walks a `tools/list` answer (`tool-list-state.ts`): through
 * the gate, which refuses a definition nested deeper than 1,000 levels (so the list the client is
 * shown can always be written). A failure is the server's failed walk, in live's words; so is a
 * walk that failed live (`error` in place of `tools`), not walked again.
 *
 * Source: SPEC §2.2 ("calls wait for it"), §5.9 (replay decides as live).
 * @param gate - The session's gate.
 * @param event - The tools event.
 * @returns Why the walk failed, or undefined when it did not.
 */
async function walkAsLive(gate: Gate, event: ToolsEvent): Promise<string | undefined> {
  if (event.error !== undefined) return `Cannot walk the upstream's tools: ${event.error}`;
  try {
    await gate.walkTools(event.server, event.tools);
    return undefined;
  } catch (error) {
    return `Cannot walk the upstream's tools: ${errorText(error)}`;
  }
}

/**
 * The first decision on a replayed call, as live takes it (`gated-call.ts`): after a failed walk of
 * its server the call is counted and denied (`walk_failed`), and an error while deciding is a deny
 * (`gate_error`), never a crash of the replay.
 * @param gate - The session's gate.
 * @param event - The call.
 * @param walkFailure - Why the server's last walk failed, if it did.
 * @returns The decision and the call's seq.
 */
async function decideFirst(
  gate: Gate,
  event: CallEvent,
  walkFailure: string | undefined,
): Promise<{ readonly decision: Decision; readonly seq: number }> {
  try {
    const decided = await gate.decideCall(event.server, event.tool, event.arguments);
    if (walkFailure === undefined) return decided;
    const message = `${walkFailure}, so the call cannot be checked`;
    return { decision: proxyDeny({ code: "walk_failed", message }), seq: decided.seq };
  } catch (error) {
    const message = `Bouncer could not decide the call: ${errorText(error)}`;
    return { decision: proxyDeny({ code: "gate_error", message }), seq: gate.seq };
  }
}

/**
 * Replays one call event: decide (a call the live proxy denied for ambiguous JSON is denied again,
 * after its budget slot was counted, as live; one it blocked for a `live_blocked` reason is blocked
 * and answers nothing); on an ask, answer it (remembered or not, for the URL or
 * its site, as the recorded answer says) and decide again with the approval in place; record the
 * output when it was forwarded.
 * @param gate - The session's gate.
 * @param event - The call.
 * @param options - The default ask answer.
 * @returns The row.
 */
async function replayCall(
  gate: Gate,
  event: CallEvent,
  options: ReplayOptions & { readonly walkFailure: string | undefined },
): Promise<ReplayRow> {
  const { server, tool } = event;
  const decided = await decideFirst(gate, event, options.walkFailure);
  // Denied live for ambiguous JSON: the recorded arguments are only one reading of the call.
  const first =
    event.ambiguousJson === undefined
      ? decided
      : { ...decided, decision: ambiguousJsonDeny(event.ambiguousJson) };
  let forwarded = first.decision.verdict === "allow";
  // Blocked live for a reason the file records but replay cannot reproduce: blocked again, and no
  // answer is applied, as none was live (stricter, never laxer).
  if (event.liveBlocked !== undefined) forwarded = false;
  else if (first.decision.verdict === "ask") {
    const answer = recordedAnswer(event, options);
    const answered = await gate.answer(first.decision.questions, answer);
    if (answer.accepted) {
      const again = await gate.decideCall(server, tool, event.arguments, {
        countAttempt: false,
        oneTimeApprovals: answered.oneTimeApprovals,
        seq: first.seq,
      });
      forwarded = again.decision.verdict === "allow";
    }
  }
  if (forwarded && event.result !== undefined) {
    gate.recordResult({ server, tool, seq: first.seq, args: event.arguments }, { result: event.result });
  } else if (forwarded && event.error !== undefined) {
    gate.recordResult({ server, tool, seq: first.seq, args: event.arguments }, { error: event.error });
  }
  const { decision } = first;
  const deciding = decision.reasons[0];
  const evidence = deciding?.evidence;
  return {
    seq: first.seq,
    server,
    tool,
    verdict: decision.verdict,
    contract: decision.contract,
    reason: deciding?.message ?? null,
    source: deciding?.source ?? null,
    ...(evidence !== undefined && evidence.length > 0 ? { evidence } : {}),
    outcome: forwarded ? "forwarded" : "blocked",
    ...(event.liveBlocked === undefined ? {} : { liveBlocked: event.liveBlocked }),
    line: event.line,
  };
}

/**
 * Replays a parsed session file through a fresh gate (one client session), each instance's calls in
 * their live decision order (`seq`, see `decisionOrder`). Each `bouncer run` (its `run` id; in a file
 * without run ids, a server's events from one `server` event to the next) counts its own budgets and
 * remembers its own answers, as live, also while two runs of one server recorded at once (see
 * `ReplayRuns`); output recorded by any run counts for all (one client session). A
 * `tools` event that fails to walk (see `walkAsLive`), or that records a walk that failed live,
 * denies that run's calls until a later one walks, as live (the live proxy re-walks on such a
 * call, and `--record` writes that walk too; replay does not walk a list again).
 *
 * Source: SPEC §5.9.
 * @param events - The session's events in file order.
 * @param gate - A gate with the policy in force and an in-memory pin store, used for nothing else
 *   (built without a `resolvePath`: pass it in the options, for the servers with a `server` event).
 * @param options - The default answer to asks, a per-row callback, the path walk.
 * @returns A row per call and the summary of first verdicts.
 * @example const { summary } = await replaySession(parseSession(text), new Gate(policy, paths));
 */
export async function replaySession(
  events: readonly SessionEvent[],
  gate: Gate,
  options: ReplayOptions = {},
): Promise<{ readonly rows: readonly ReplayRow[]; readonly summary: ReplaySummary }> {
  const rows: ReplayRow[] = [];
  // Each `bouncer run`'s budgets, remembered answers and failed walks, kept apart as live (SPEC §8).
  const runs = new ReplayRuns(gate.state);
  for (const event of decisionOrder(events)) {
    if (event.event === "server") {
      runs.start(event);
      gate.registerServer(
        {
          name: event.server,
          ...(event.command === undefined ? {} : { command: event.command }),
          ...(event.cwd === undefined ? {} : { cwd: event.cwd }),
          ...(event.serverInfo === undefined ? {} : { serverInfo: event.serverInfo }),
        },
        options.resolvePath === undefined ? {} : { resolvePath: options.resolvePath },
      );
    } else if (event.event === "tools") {
      runs.enter(event);
      runs.walked(event, await walkAsLive(gate, event));
    } else if (event.event === "output") {
      // Other upstream text that reached the model, recorded where it arrived (SPEC §2.5).
      gate.recordUntrusted(event.server, event.method, event.value);
    } else if (event.event === "instructions") {
      gate.recordInstructions(event.server, event.instructions);
    } else {
      runs.enter(event);
      const row = await replayCall(gate, event, { ...options, walkFailure: runs.walkFailure(event) });
      rows.push(row);
      options.onRow?.(row);
    }
  }
  const count = (verdict: Verdict): number => rows.filter((row) => row.verdict === verdict).length;
  return {
    rows,
    summary: { calls: rows.length, allow: count("allow"), deny: count("deny"), ask: count("ask") },
  };
}
