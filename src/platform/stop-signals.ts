/**
 * The signals that ask a Bouncer process to stop — SIGTERM, SIGINT and, except on Windows (where
 * Node cannot listen for it), SIGHUP — and the exit status of a run one of them ended (128 + its
 * number), shared by `run`'s shutdown, `doctor`'s servers and `init`'s writes. Edge.
 *
 * Source: SPEC §3.3 (shutdown), §5.2 (`init` stopped by a signal), §5.3.
 * @module
 */

/** A signal that asks Bouncer to stop. */
export type StopSignal = "SIGHUP" | "SIGINT" | "SIGTERM";

/** A signal that ended the run, and the conventional status for it (128 + its number). */
export interface Interrupted {
  readonly signal: StopSignal;
  readonly code: number;
}

/** The status a process ended by each signal reports (128 + the signal's number). */
const SIGNAL_STATUS: Readonly<Record<StopSignal, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * The stop signals to listen for on a platform.
 *
 * Source: SPEC §3.3, §5.2.
 * @param platform - `process.platform` (default: this one's).
 * @returns SIGTERM, SIGINT and, except on `win32`, SIGHUP.
 */
export function stopSignals(platform: NodeJS.Platform = process.platform): readonly StopSignal[] {
  return platform === "win32" ? ["SIGTERM", "SIGINT"] : ["SIGTERM", "SIGINT", "SIGHUP"];
}

/**
 * The record of a run a signal ended.
 *
 * Source: SPEC §5.2 (exit 130, 143 or 129).
 * @param signal - The signal.
 * @returns It and its exit status, e.g. `{ signal: "SIGINT", code: 130 }`.
 */
export function interruptedBy(signal: StopSignal): Interrupted {
  return { signal, code: SIGNAL_STATUS[signal] };
}
