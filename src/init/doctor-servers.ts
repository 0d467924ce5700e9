/**
 * The servers one run of `bouncer doctor` has started, and what stops them all: the end of the run,
 * whatever the SDK did with each transport; SIGINT, SIGTERM and SIGHUP (each server leads its own
 * process group, so a terminal's Ctrl-C never reaches it, and doctor's default death would leave it
 * running); and the exit of the process (a last SIGKILL to any group still there). Edge.
 *
 * Source: SPEC §3.3 ("No process Bouncer started outlives it"; SIGTERM, SIGINT, SIGHUP), §5.3.
 * @module
 */

import { type Interrupted, interruptedBy, stopSignals } from "../platform/stop-signals.ts";
import type { GroupStdioTransport } from "./group-transport.ts";

/** The part of a transport this file uses. */
type Launched = Pick<GroupStdioTransport, "close" | "hurry" | "killNow">;

/**
 * Every transport a run started, so that they are stopped together at its end or on a signal.
 *
 * Source: SPEC §3.3, §5.3.
 */
export class LaunchedServers {
  readonly #servers = new Set<Launched>();
  #stopped = false;

  /** True once {@link LaunchedServers.stopAll} has begun: no new server is to be started. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /**
   * Keeps a transport (before it is started); one given after the stop began is stopped at once.
   * @param transport - The transport.
   */
  track(transport: Launched): void {
    this.#servers.add(transport);
    if (!this.#stopped) return;
    transport.hurry();
    void transport.close();
  }

  /**
   * Ends every grace at once: SIGTERM to each group now, SIGKILL at most 1 s later (a signal came);
   * a wrapped server's stop stays long enough for `bouncer run` to stop its upstream
   * ({@link GroupStdioTransport.hurry}).
   */
  hurryAll(): void {
    for (const server of this.#servers) server.hurry();
  }

  /**
   * Stops every group (each transport's own staged stop; idempotent) and closes their pipes.
   * @returns Once all are stopped.
   */
  async stopAll(): Promise<void> {
    this.#stopped = true;
    await Promise.all([...this.#servers].map((server) => server.close()));
  }

  /** SIGKILL to every group still there, synchronously (for `process.on("exit")`). */
  killAllNow(): void {
    for (const server of this.#servers) server.killNow();
  }
}

/** What {@link watchSignals} installed. */
export interface SignalWatch {
  /** Resolves with the first SIGINT, SIGTERM or SIGHUP (never rejects; pending if none comes). */
  readonly signalled: Promise<Interrupted>;
  /** Removes the handlers. */
  readonly remove: () => void;
}

/**
 * Installs, for the time doctor's servers run, handlers for SIGINT, SIGTERM and SIGHUP (not on
 * Windows) that hurry the stop of every server, and an exit handler that kills any group left.
 * Handling a signal takes away its default (immediate death): the caller stops the servers and
 * returns {@link Interrupted.code}.
 *
 * Source: SPEC §3.3, §5.3.
 * @param servers - The servers of the run.
 * @returns The first signal, and the remover.
 */
export function watchSignals(servers: LaunchedServers): SignalWatch {
  let resolveSignal: (interrupted: Interrupted) => void = () => {};
  const signalled = new Promise<Interrupted>((resolve) => {
    resolveSignal = resolve;
  });
  const handlers = stopSignals().map((signal) => {
    const handler = (): void => {
      servers.hurryAll();
      resolveSignal(interruptedBy(signal));
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  const onExit = (): void => servers.killAllNow();
  process.on("exit", onExit);
  return {
    signalled,
    remove: () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      process.off("exit", onExit);
    },
  };
}
