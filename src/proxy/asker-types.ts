/**
 * The asker's contract (SPEC §3.4): what a gated call asks with, how an ask ends, and what an asker
 * is built from. Edge (types only).
 *
 * Source: SPEC §3.4 (asks), §3.5 (outcomes), §2.5 ("Approvals").
 * @module
 */

import type { AskAnswer, Decision, JsonObject, JsonValue } from "../engine/index.ts";
import type { ElicitationSupport } from "./elicitation-support.ts";

/** A decision whose verdict is `ask`. */
export type AskDecision = Extract<Decision, { readonly verdict: "ask" }>;

/** One gated call to ask about. */
export interface AskRequest {
  readonly server: string;
  readonly tool: string;
  /** The engine's `ask` decision; its questions are put to the human. */
  readonly decision: AskDecision;
  /** The gated call's signal: aborted when the client cancels it (withdraws the ask). */
  readonly signal: AbortSignal;
  /** The call's `_meta.progressToken`: progress is sent while it waits. */
  readonly progressToken?: string | number;
  /**
   * The call's arguments. Shown (rendered as untrusted text, cut) when the ask confirms the call itself
   * (`action: ask`, unclassified), and part of the merge key then: such asks never share an answer
   * with a call whose arguments differ.
   */
  readonly arguments?: JsonObject;
}

/**
 * How an ask ended (SPEC §3.5 outcomes, plus `limit`). Only `approved` lets the call be decided again.
 * A `declined` outcome carries `answer` when the human explicitly declined: apply it (a remembered
 * decline, SPEC §2.5); a dismissal or a malformed answer carries none (nothing is remembered).
 */
export type AskOutcome =
  | { readonly kind: "approved"; readonly answer: AskAnswer }
  | { readonly kind: "declined"; readonly reason: string; readonly answer?: AskAnswer }
  | {
      readonly kind: "auto_declined" | "auto_accepted" | "cancelled" | "timeout" | "no_channel" | "limit";
      readonly reason: string;
    };

/** Runs `run` after `ms` milliseconds; returns a function that cancels it. */
export type Schedule = (ms: number, run: () => void) => () => void;

/** What an asker is built from. */
export interface AskerOptions {
  /** Sends Bouncer's own request to the client (the relay's `requestClient`); aborting withdraws it. */
  readonly requestClient: (
    method: string,
    params: JsonObject,
    options: { readonly signal: AbortSignal },
  ) => Promise<JsonValue>;
  /** Whether the client can answer form elicitations now (see `elicitationSupport`). */
  readonly clientCapabilities: () => ElicitationSupport;
  /** The clock, in milliseconds (for automatic-answer detection). */
  readonly now: () => number;
  /** Runs a timer (ask timeout, progress); default `setTimeout`. */
  readonly schedule?: Schedule;
  /** `--ask-timeout` in milliseconds (default 10 minutes). */
  readonly askTimeoutMs?: number;
  /** `--max-asks` (default 20). */
  readonly maxAsks?: number;
  /** `--human-min-ms` (default 300; 0 turns the check off). */
  readonly humanMinMs?: number;
  /** Sends `notifications/progress` with the call's own token while it waits. */
  readonly sendProgress?: (token: string | number, progress: number, message: string) => void;
  /** Milliseconds between progress notifications (default 5000). */
  readonly progressIntervalMs?: number;
  /** Whether `bouncer approve` exists (named in reasons only then; default false). */
  readonly approveCommand?: boolean;
  /** `--pins off`: no pin file, so reasons do not name `bouncer pins accept` (default false). */
  readonly pinsOff?: boolean;
  /** Whether the pin file was removed while the session runs: reasons name a restart instead. */
  readonly pinsForgotten?: () => boolean;
  /** One diagnostic line to stderr. */
  readonly log: (message: string) => void;
}

/** An instance's asker. */
export interface Asker {
  /**
   * Asks the human about one call, waiting its turn behind earlier asks (or joining an identical one).
   * @param request - The call, its ask decision, its cancel signal and progress token.
   * @returns How the ask ended; never rejects.
   */
  ask(request: AskRequest): Promise<AskOutcome>;
  /** How many elicitations this instance has sent (counts towards `maxAsks`). */
  readonly asked: number;
}
