/**
 * The engine's session state (STYLE #5): the one mutable value, owned by the edge (one per client
 * session), changed only through engine functions. Pure.
 * @module
 */

import { createTaintStore, type TaintStore, type TaintStoreOptions } from "./taint-index.ts";
import type { ApprovalKey } from "./types.ts";

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
 * The map key of a remembered approval or decline (SPEC §2.5): server, tool, parameter, identity.
 * @param key - The approval key.
 * @returns A collision-free string (a JSON array).
 */
export function approvalKeyString(key: ApprovalKey): string {
  return JSON.stringify([key.server, key.tool, key.param, key.identity]);
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

/**
 * Forgets what a session remembers of one server's calls — its budget counters and its remembered
 * approvals and declines — as a restart of that server does live (a new `bouncer run` process
 * starts with none). The taint index is kept: replay treats all servers of a file as one client
 * session (SPEC §5.9), so output seen before the restart still counts (stricter, never milder).
 *
 * Source: SPEC §8 ("Budgets, approvals and in-process taint reset when the client restarts a
 * server"), §5.9.
 * @param state - The session state (changed in place).
 * @param server - The upstream name.
 */
export function forgetServerState(state: EngineState, server: string): void {
  // Both maps are keyed by a JSON array whose first element is the server.
  for (const map of [state.budgets, state.approvals]) {
    for (const key of [...map.keys()]) if ((JSON.parse(key) as unknown[])[0] === server) map.delete(key);
  }
}
