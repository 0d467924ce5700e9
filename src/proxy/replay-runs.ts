/**
 * The `bouncer run` instances of a replayed session file, kept apart as live kept them: each process
 * counted its own budgets, remembered its own answers and had its own failed walks, while taint was
 * the client session's (SPEC §3.7, §8). `--record` names each event's run (`"run"`), so two runs of
 * one server that recorded into one file at the same time replay as two runs, not as one that
 * restarted at the second's `server` event. A file without run ids has one run per server at a time,
 * each `server` event starting the next. Edge (no I/O).
 *
 * Source: SPEC §5.9, §8 ("Budgets, approvals and in-process taint reset when the client restarts a
 * server"); README "bouncer replay".
 * @module
 */

import { type EngineState, restoreServerState, type ServerMemory, takeServerState } from "../engine/index.ts";
import { runKey } from "./replay-order.ts";
import type { SessionEvent } from "./replay-session.ts";

/**
 * Which run's budgets and remembered answers are in the engine state, per server, and the others'
 * set aside; and why each run's last walk failed.
 *
 * Source: SPEC §5.9, §8.
 * @example const runs = new ReplayRuns(gate.state); runs.start(serverEvent); runs.enter(callEvent);
 */
export class ReplayRuns {
  readonly #state: EngineState;
  /** Per server, the run (its {@link runKey}) whose entries are in the state now. */
  readonly #active = new Map<string, string>();
  /** The entries of the runs not active now, by run key. */
  readonly #aside = new Map<string, ServerMemory>();
  /** Why each run's last walk failed (its calls are denied until a walk succeeds). */
  readonly #walkFailures = new Map<string, string>();

  /**
   * @param state - The replay gate's session state (changed in place as runs take turns).
   */
  constructor(state: EngineState) {
    this.#state = state;
  }

  /**
   * A `server` event: its run starts with nothing counted, remembered or failed, as a new process.
   * @param event - The event.
   */
  start(event: SessionEvent): void {
    this.enter(event);
    takeServerState(this.#state, event.server);
    this.#walkFailures.delete(runKey(event));
  }

  /**
   * Any event of a run: its server's budgets and remembered answers become that run's (the other
   * run's are set aside until its next event).
   * @param event - The event.
   */
  enter(event: SessionEvent): void {
    const key = runKey(event);
    const active = this.#active.get(event.server);
    if (active === key) return;
    if (active !== undefined) this.#aside.set(active, takeServerState(this.#state, event.server));
    const aside = this.#aside.get(key);
    if (aside !== undefined) {
      restoreServerState(this.#state, aside);
      this.#aside.delete(key);
    }
    this.#active.set(event.server, key);
  }

  /**
   * @param event - An event of the run.
   * @returns Why the run's last walk failed, if it did.
   */
  walkFailure(event: SessionEvent): string | undefined {
    return this.#walkFailures.get(runKey(event));
  }

  /**
   * Notes the outcome of the run's walk.
   * @param event - The `tools` event.
   * @param failure - Why it failed, or undefined when it walked.
   */
  walked(event: SessionEvent, failure: string | undefined): void {
    if (failure === undefined) this.#walkFailures.delete(runKey(event));
    else this.#walkFailures.set(runKey(event), failure);
  }
}
