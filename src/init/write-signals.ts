/**
 * SIGINT, SIGTERM and SIGHUP while `bouncer init` writes: their default (immediate death) would leave
 * the run's `<file>.bouncer-lock` (the next run then waited for it), its temp file and a backup of a
 * file it never replaced. For the time of the writes they abort an `AbortSignal` instead: the write
 * in progress stops at its next step, removes what it made and releases its lock, no further file is
 * written, and `init` exits 130, 143 or 129. Edge.
 *
 * Source: SPEC §5.2 ("never a half-written file"), the brief ("lose nothing"); the review of `init`
 * interrupted during `--yes`.
 * @module
 */

import { type Interrupted, interruptedBy, stopSignals } from "../platform/stop-signals.ts";

/** What {@link watchWriteSignals} installed. */
export interface WriteSignals {
  /** Aborted on the first signal. */
  readonly signal: AbortSignal;
  /** The first signal and its exit status, once one came. */
  readonly interrupted: () => Interrupted | undefined;
  /** Removes the handlers (the signals' defaults are back). */
  readonly remove: () => void;
}

/**
 * Installs the handlers (SIGHUP not on Windows) until {@link WriteSignals.remove}.
 *
 * Source: SPEC §5.2.
 * @returns The signal to give each write, the first signal, and the remover.
 */
export function watchWriteSignals(): WriteSignals {
  const controller = new AbortController();
  let first: Interrupted | undefined;
  const handlers = stopSignals().map((signal) => {
    const handler = (): void => {
      first ??= interruptedBy(signal);
      controller.abort();
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return {
    signal: controller.signal,
    interrupted: () => first,
    remove: () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    },
  };
}
