/**
 * The audit record (SPEC §3.5): its event types, fields and the builders the proxy uses to turn an
 * engine `Decision`, an ask's result, a pin change, upstream noise or an upstream exit into an
 * {@link AuditEntry}. The writer adds `ts` and `bouncer` and redacts. Pure (no I/O).
 *
 * Source: SPEC §2.1 (the decision record), §3.5 (the audit log).
 * @module
 */

import type {
  Contract,
  Decision,
  Evidence,
  JsonObject,
  JsonValue,
  RuleSource,
  Verdict,
} from "../engine/index.ts";

/** Record types of the audit log (SPEC §3.5 `event`). */
export type AuditEvent = "decision" | "outcome" | "pin" | "noise" | "upstream_exit";

/** An ask's result (SPEC §3.4, §3.5), written as an `outcome` record after its `decision` record. */
export type AskOutcome =
  | "approved"
  | "declined"
  | "auto_declined"
  | "auto_accepted"
  | "cancelled"
  | "timeout"
  | "no_channel";

/** What happened to a tool's pin (SPEC §2.2), written as a `pin` record. */
export type PinOutcome = "pinned" | "changed" | "accepted" | "hidden";

/**
 * One audit record before the writer stamps and redacts it. Every field but `event`, `session` and
 * `server` is optional; absent fields are not written.
 */
export interface AuditEntry {
  readonly event: AuditEvent;
  /** The client session id (SPEC §3.7). */
  readonly session: string;
  /** The per-instance call counter. */
  readonly seq?: number;
  /** The wrapped server's `--upstream-name`. */
  readonly server: string;
  readonly tool?: string;
  /** The call's arguments (redacted by the writer). */
  readonly args?: JsonObject;
  readonly verdict?: Verdict;
  readonly contract?: Contract;
  /** The deciding reason's message, or a short description (redacted by the writer). */
  readonly reason?: string;
  readonly source?: RuleSource;
  /** Where a tainted value was seen (redacted by the writer). */
  readonly evidence?: readonly Evidence[];
  /** For `outcome` records an {@link AskOutcome}; for `pin` records a {@link PinOutcome}. */
  readonly outcome?: AskOutcome | PinOutcome;
  /** `"audit"` when Bouncer runs with `--mode audit` (the verdict was logged, not enforced; SPEC §3.8). */
  readonly mode?: "audit";
}

/** One line of the audit log as written: the entry with `ts` and `bouncer`, values redacted. */
export interface AuditRecord {
  /** ISO 8601 UTC with milliseconds, e.g. `2026-01-31T12:00:00.000Z`. */
  readonly ts: string;
  readonly event: string;
  readonly session?: string;
  readonly seq?: number;
  readonly server?: string;
  readonly tool?: string;
  readonly args?: JsonValue;
  readonly verdict?: string;
  readonly contract?: string;
  readonly reason?: string;
  readonly source?: string;
  readonly evidence?: JsonValue;
  readonly outcome?: string;
  readonly mode?: string;
  /** The Bouncer version that wrote the line. */
  readonly bouncer?: string;
}

/** The call an audit record is about. */
export interface AuditCall {
  readonly session: string;
  readonly seq: number;
  readonly server: string;
  readonly tool: string;
  /** The arguments as decided and forwarded. */
  readonly args: JsonObject;
}

/** Options of {@link decisionEntry}. */
export interface DecisionEntryOptions {
  /** The proxy's `--mode`; `audit` marks the record (SPEC §3.8). Default `enforce`. */
  readonly mode?: "enforce" | "audit";
}

/**
 * Builds the `decision` record of one call from the engine's decision: its verdict and contract, the
 * deciding reason's message as `reason`, that reason's `source` and its evidence. The deciding reason
 * is the first one (the engine lists it first); an allow with no reason carries none.
 *
 * Source: SPEC §2.1, §3.5.
 * @param decision - The engine's decision for the call.
 * @param call - Session, sequence number, server, tool and the arguments decided.
 * @param options - The proxy's mode.
 * @returns The entry to hand to the writer.
 */
export function decisionEntry(
  decision: Decision,
  call: AuditCall,
  options: DecisionEntryOptions = {},
): AuditEntry {
  const reason = decision.reasons[0];
  // Assigned field by field (no spreads: this runs for every call).
  const entry: { -readonly [K in keyof AuditEntry]: AuditEntry[K] } = {
    event: "decision",
    session: call.session,
    seq: call.seq,
    server: call.server,
    tool: call.tool,
    args: call.args,
    verdict: decision.verdict,
    contract: decision.contract,
  };
  if (reason !== undefined) {
    entry.reason = reason.message;
    entry.source = reason.source;
    if (reason.evidence !== undefined && reason.evidence.length > 0) entry.evidence = reason.evidence;
  }
  if (options.mode === "audit") entry.mode = "audit";
  return entry;
}

/** The part of an {@link AuditCall} that later records of the same call repeat. */
export type AuditCallRef = Omit<AuditCall, "args">;

/**
 * Builds the `outcome` record that follows an ask's `decision` record.
 *
 * Source: SPEC §3.4, §3.5.
 * @param call - The call that was asked about.
 * @param outcome - What became of the ask.
 * @param options - An optional explanation (e.g. why an answer counted as automatic).
 * @returns The entry to hand to the writer.
 */
export function outcomeEntry(
  call: AuditCallRef,
  outcome: AskOutcome,
  options: { readonly reason?: string } = {},
): AuditEntry {
  const { session, seq, server, tool } = call;
  return { event: "outcome", session, seq, server, tool, outcome, ...reasonField(options.reason) };
}

/**
 * Builds a `pin` record: a tool pinned on first sight, found changed, accepted, or hidden as new.
 * Under `--mode audit` a `changed` or `hidden` record is what enforce mode would have done (the
 * client was shown the tool as listed) and carries `"mode":"audit"`.
 *
 * Source: SPEC §2.2, §3.5, §3.8.
 * @param where - Session, server and tool.
 * @param outcome - What happened to the pin.
 * @param options - An optional description (e.g. what changed), and `mode: "audit"` for a would-be.
 * @returns The entry to hand to the writer.
 */
export function pinEntry(
  where: { readonly session: string; readonly server: string; readonly tool: string },
  outcome: PinOutcome,
  options: { readonly reason?: string; readonly mode?: "audit" } = {},
): AuditEntry {
  const { session, server, tool } = where;
  const mode = options.mode === undefined ? {} : { mode: options.mode };
  return { event: "pin", session, server, tool, outcome, ...reasonField(options.reason), ...mode };
}

/**
 * Builds a `noise` record for an upstream line that is not JSON (SPEC §3.3); the line is the reason
 * (the writer redacts and cuts it).
 * @param where - Session and server.
 * @param line - The offending line as received.
 * @returns The entry to hand to the writer.
 */
export function noiseEntry(
  where: { readonly session: string; readonly server: string },
  line: string,
): AuditEntry {
  return { event: "noise", session: where.session, server: where.server, reason: line };
}

/**
 * Builds an `upstream_exit` record (SPEC §3.3): the exit code or signal and the stderr tail.
 * @param where - Session and server.
 * @param exit - The exit code (null when killed by a signal), the signal, and the stderr tail.
 * @returns The entry to hand to the writer.
 */
export function upstreamExitEntry(
  where: { readonly session: string; readonly server: string },
  exit: { readonly code: number | null; readonly signal?: string | null; readonly stderrTail?: string },
): AuditEntry {
  const how =
    exit.code !== null
      ? `Upstream exited with code ${exit.code}`
      : `Upstream killed by ${exit.signal ?? "a signal"}`;
  const tail = exit.stderrTail?.trim() ?? "";
  return {
    event: "upstream_exit",
    session: where.session,
    server: where.server,
    reason: tail === "" ? how : `${how}: ${tail}`,
  };
}

/**
 * @param reason - An optional reason.
 * @returns A spreadable `{ reason }` or nothing.
 */
function reasonField(reason: string | undefined): { readonly reason?: string } {
  return reason === undefined ? {} : { reason };
}
