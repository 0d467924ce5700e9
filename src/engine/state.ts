/**
 * The engine's session state (STYLE #5): the one mutable value, owned by the edge (one per client
 * session), changed only through engine functions. Pure.
 * @module
 */

import { createTaintStore, type TaintStore, type TaintStoreOptions } from "./taint-index.ts";
import type { ApprovalKey, ContractResult, Reason } from "./types.ts";

/**
 * A contract's "no objection" (no deny, no ask): one shared value, never changed (its lists are
 * read-only), so that the contracts make no lists for the usual call.
 */
export const NO_OBJECTION: ContractResult = Object.freeze({
  denies: Object.freeze<Reason[]>([]),
  asks: Object.freeze<ContractResult["asks"][number][]>([]),
});

/**
 * Everything a session remembers between calls: budget counters (SPEC §2.3), remembered approvals and
 * declines (SPEC §2.5), and the taint index over untrusted output (SPEC §2.5 "Index, not rescans").
 */
export interface EngineState {
  /** Attempts per tool, keyed by {@link budgetKey}. */
  readonly budgets: Map<string, number>;
  /** Remembered answers, keyed by {@link approvalKeyString}. */
  readonly approvals: Map<string, "approved" | "declined">;
  readonly taint: TaintStore;
}

/** Options of a new session state. */
export type EngineStateOptions = TaintStoreOptions;

/**
 * Creates an empty session state.
 * @param options - Taint store options (window size in bytes; default 8 MiB).
 * @returns A fresh state with no counters, approvals or recorded output.
 */
export function createEngineState(options: EngineStateOptions = {}): EngineState {
  return { budgets: new Map(), approvals: new Map(), taint: createTaintStore(options) };
}

/**
 * The map key of a remembered approval or decline (SPEC §2.5): server, tool, parameter, identity,
 * and the `subject` of a key about the tool itself or a whole site — a destination's key (an
 * argument named `""` holding a definition's hash, a URL with no path) is never one of theirs.
 * @param key - The approval key.
 * @returns A collision-free string (a JSON array whose first element is the server).
 */
export function approvalKeyString(key: ApprovalKey): string {
  const base = [key.server, key.tool, key.param, key.identity];
  return JSON.stringify(key.subject === undefined ? base : [...base, key.subject]);
}

/**
 * The asks of one call with each question once: the first ask per approval key is kept (SPEC §2.5
 * "Ask once per call": identical questions are one question).
 * @param asks - Asks in the order found.
 * @returns The asks whose question key was not seen before, in order.
 */
export function uniqueAsks<T extends { readonly question: { readonly key: ApprovalKey } }>(
  asks: readonly T[],
): T[] {
  const seen = new Set<string>();
  return asks.filter(({ question }) => {
    const key = approvalKeyString(question.key);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The map key of a tool's budget counter (SPEC §2.3: per tool per session).
 * @param server - The upstream name.
 * @param tool - The tool name.
 * @returns A collision-free string.
 */
export function budgetKey(server: string, tool: string): string {
  return JSON.stringify([server, tool]);
}

/** What a session remembers of one server's calls, taken out of the state (see {@link takeServerState}). */
export interface ServerMemory {
  /** Budget counters, as `[budgetKey, attempts]`. */
  readonly budgets: readonly (readonly [string, number])[];
  /** Remembered answers, as `[approvalKeyString, answer]`. */
  readonly approvals: readonly (readonly [string, "approved" | "declined"])[];
}

/**
 * Takes one server's budget counters and remembered answers out of the state, to be put back with
 * {@link restoreServerState} or dropped: replay keeps two `bouncer run` instances of one server
 * apart this way, and starts a restarted one afresh (each process counted its own budgets and
 * remembered its own answers live). The taint index is kept: replay treats all servers of a file as
 * one client session (SPEC §5.9), so output seen by any run still counts (stricter, never milder).
 *
 * Source: SPEC §8 ("Budgets, approvals and in-process taint reset when the client restarts a
 * server"), §5.9.
 * @param state - The session state (changed in place: the server's entries are removed).
 * @param server - The upstream name.
 * @returns The removed entries.
 * @example const memory = takeServerState(state, "mail"); restoreServerState(state, memory);
 */
export function takeServerState(state: EngineState, server: string): ServerMemory {
  // Both maps are keyed by a JSON array whose first element is the server.
  const ofServer = (key: string): boolean => (JSON.parse(key) as unknown[])[0] === server;
  const budgets = [...state.budgets].filter(([key]) => ofServer(key));
  const approvals = [...state.approvals].filter(([key]) => ofServer(key));
  for (const [key] of budgets) state.budgets.delete(key);
  for (const [key] of approvals) state.approvals.delete(key);
  return { budgets, approvals };
}

/**
 * Puts back what {@link takeServerState} took (over any entries of the same keys).
 * @param state - The session state (changed in place).
 * @param memory - The entries.
 */
export function restoreServerState(state: EngineState, memory: ServerMemory): void {
  for (const [key, attempts] of memory.budgets) state.budgets.set(key, attempts);
  for (const [key, answer] of memory.approvals) state.approvals.set(key, answer);
}
