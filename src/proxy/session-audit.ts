/**
 * What one `bouncer run` instance writes about itself: audit records (SPEC §3.5) through the audit
 * writer, and, with `--record FILE`, the replayable session file (SPEC §3.6). A failed `decision` or
 * `outcome` write throws, so the caller denies the call (fail closed); other records (pins, noise,
 * upstream exit) are best effort and say why on stderr when they fail; the first failed write to
 * the session file stops the recording (said on stderr), so that the file never has a gap. Edge.
 *
 * Source: SPEC §3.5 (record types, fail closed), §3.6 (recording), §3.8 (modes); the session id it
 * carries: `session-id.ts` (§3.7).
 * @module
 */

import {
  type AskOutcome,
  type AuditCall,
  type AuditCallRef,
  type AuditEntry,
  type AuditWriter,
  type DecisionEntryOptions,
  decisionEntry,
  noiseEntry,
  outcomeEntry,
  pinEntry,
  type RecordedCall,
  type RecordedServer,
  type SessionRecorder,
  upstreamExitEntry,
} from "../audit/index.ts";
import {
  type Decision,
  errorText,
  type JsonObject,
  type JsonValue,
  renderUntrusted,
} from "../engine/index.ts";
import { BOUNCER_MARKER } from "./bouncer-marker.ts";
import type { PinEvent } from "./gate-types.ts";
import type { NoiseReport, UpstreamFailure } from "./relay-hooks.ts";

/** Options of a {@link SessionAudit}. */
export interface SessionAuditOptions {
  /** The client session id (SPEC §3.7). */
  readonly session: string;
  /** The `--upstream-name`. */
  readonly server: string;
  readonly writer: AuditWriter;
  /** The `--record` recorder, when recording. */
  readonly recorder?: SessionRecorder;
  /** `--mode` (audit-mode records are marked). */
  readonly mode: "enforce" | "audit";
  /** One diagnostic line to stderr. */
  readonly log: (message: string) => void;
}

/** What enforce mode would have done with a tool `--mode audit` showed as listed (SPEC §3.8). */
const AUDIT_MODE_PIN: Readonly<Partial<Record<PinEvent["kind"], string>>> = {
  changed:
    "; shown to the client as listed now (--mode audit): enforce mode would show its pinned definition",
  hidden: "; shown to the client (--mode audit): enforce mode would hide it until it is accepted",
};

/**
 * One instance's audit log and session recording.
 *
 * Source: SPEC §3.5, §3.6.
 */
export class SessionAudit {
  readonly session: string;
  readonly #options: SessionAuditOptions;
  readonly #entryOptions: DecisionEntryOptions;
  /** Set by the first failed write to the session file: nothing more is written to it. */
  #recordStopped = false;

  /**
   * @param options - Session, server, writer, recorder, mode and logger.
   */
  constructor(options: SessionAuditOptions) {
    this.#options = options;
    this.session = options.session;
    this.#entryOptions = { mode: options.mode };
  }

  /**
   * Whether a `--record` session file is written (calls are recorded only then): false without one,
   * and once a write to it failed (recording stopped).
   */
  get recording(): boolean {
    return this.#options.recorder !== undefined && !this.#recordStopped;
  }

  /**
   * Writes a call's `decision` record.
   * @param decision - The decision (the engine's, or the proxy's own deny).
   * @param call - Seq, tool and arguments.
   * @throws {BouncerError} `AUDIT_WRITE_FAILED`: deny the call.
   */
  decision(decision: Decision, call: Omit<AuditCall, "session" | "server">): void {
    const { session } = this;
    const { seq, tool, args } = call;
    const where: AuditCall = { session, seq, server: this.#options.server, tool, args };
    this.#options.writer.write(decisionEntry(decision, where, this.#entryOptions));
  }

  /**
   * Writes an ask's `outcome` record.
   * @param call - Seq and tool.
   * @param outcome - What became of the ask.
   * @param reason - Why, when it was not approved.
   * @throws {BouncerError} `AUDIT_WRITE_FAILED`: deny the call.
   */
  outcome(call: Omit<AuditCallRef, "session" | "server">, outcome: AskOutcome, reason?: string): void {
    const ref: AuditCallRef = { ...call, session: this.session, server: this.#options.server };
    this.#options.writer.write(outcomeEntry(ref, outcome, reason === undefined ? {} : { reason }));
  }

  /**
   * Writes a `pin` record (best effort). Under `--mode audit` a `changed` or `hidden` one says what
   * enforce mode would have shown and carries `"mode":"audit"`: the client saw the tool as listed.
   *
   * Source: SPEC §3.5, §3.8.
   * @param event - The pin event.
   */
  pin(event: PinEvent): void {
    const why =
      event.suspicious === true
        ? "; the definition has invisible or bidi control characters"
        : event.elsewhere === true
          ? "; accepted outside this session (bouncer pins accept or another session)"
          : "";
    const wouldBe = this.#options.mode === "audit" ? AUDIT_MODE_PIN[event.kind] : undefined;
    const reason = `hash ${event.hash}${why}${wouldBe ?? ""}`;
    const where = { session: this.session, server: event.server, tool: event.tool };
    const mode = wouldBe === undefined ? {} : { mode: "audit" as const };
    this.#best(pinEntry(where, event.kind, { reason, ...mode }));
  }

  /**
   * Writes a `noise` record for an upstream line that was not a usable message (best effort).
   * @param noise - What the relay saw.
   */
  noise(noise: NoiseReport): void {
    if (noise.side !== "upstream") return;
    const line = `${noise.kind} (${noise.bytes} characters): ${noise.preview}`;
    this.#best(noiseEntry({ session: this.session, server: this.#options.server }, line));
  }

  /**
   * Writes the `upstream_exit` record (best effort).
   * @param failure - How the upstream ended.
   */
  upstreamExit(failure: UpstreamFailure): void {
    const where = { session: this.session, server: this.#options.server };
    const { data } = failure;
    const code = Object.hasOwn(data, "exitCode") ? data.exitCode : undefined;
    const signal = Object.hasOwn(data, "signal") ? data.signal : undefined;
    const tail = Object.hasOwn(data, "stderrTail") ? data.stderrTail : undefined;
    const stderrTail = typeof tail === "string" ? { stderrTail: tail } : {};
    if (typeof code === "number" || typeof signal === "string") {
      const exit = {
        code: typeof code === "number" ? code : null,
        signal: typeof signal === "string" ? signal : null,
      };
      this.#best(upstreamExitEntry(where, { ...exit, ...stderrTail }));
      return;
    }
    this.#best({ event: "upstream_exit", ...where, reason: failure.message });
  }

  /**
   * Audits an upstream `elicitation/create` that carries Bouncer's `[bouncer]` marker (relayed, but
   * flagged) as a `noise` record (best effort).
   *
   * Source: SPEC §3.4 ("a relayed upstream elicitation that contains the marker is flagged").
   * @param params - The elicitation's params; its message is recorded rendered as untrusted.
   */
  markedElicitation(params: JsonObject): void {
    const message = Object.hasOwn(params, "message") ? params.message : undefined;
    const shown = typeof message === "string" ? renderUntrusted(message) : "(no message)";
    const line = `The upstream sent an elicitation that contains Bouncer's marker "${BOUNCER_MARKER}" (relayed, flagged): ${shown}`;
    this.#best(noiseEntry({ session: this.session, server: this.#options.server }, line));
  }

  /**
   * Audits a `tools/call` without an id, dropped and never forwarded (best effort).
   * @param message - The message as received.
   */
  droppedCall(message: JsonObject): void {
    const params = Object.hasOwn(message, "params") ? message.params : undefined;
    const isObject = typeof params === "object" && params !== null && !Array.isArray(params);
    const name = isObject && Object.hasOwn(params, "name") ? params.name : undefined;
    const args = isObject && Object.hasOwn(params, "arguments") ? params.arguments : undefined;
    this.#best({
      event: "decision",
      session: this.session,
      server: this.#options.server,
      ...(typeof name === "string" ? { tool: name } : {}),
      ...(typeof args === "object" && args !== null && !Array.isArray(args) ? { args } : {}),
      verdict: "deny",
      contract: "default",
      reason: "The tools/call has no id: dropped, never forwarded",
      source: "default",
    });
  }

  /**
   * Records the `server` event of the session file (best effort).
   * @param info - Command line, cwd, serverInfo.
   */
  recordServer(info: RecordedServer): void {
    this.#record((recorder) => recorder.recordServer(this.#options.server, info));
  }

  /**
   * Records one complete walk of `tools/list` (best effort).
   * @param tools - The tools as the upstream listed them.
   */
  recordTools(tools: readonly JsonObject[]): void {
    this.#record((recorder) => recorder.recordTools(this.#options.server, tools));
  }

  /**
   * Records a failed walk of `tools/list` (best effort).
   * @param error - Why it failed (the words after `Cannot walk the upstream's tools: `).
   */
  recordWalkFailure(error: string): void {
    this.#record((recorder) => recorder.recordWalkFailure(this.#options.server, error));
  }

  /**
   * Records a call with its outcome (best effort).
   * @param call - The call, its result or error, and its ask outcome.
   */
  recordCall(call: Omit<RecordedCall, "server">): void {
    this.#record((recorder) => recorder.recordCall({ ...call, server: this.#options.server }));
  }

  /**
   * Records upstream text recorded as untrusted outside a `tools/call` (best effort).
   * @param method - The method that carried it.
   * @param value - The result, error or params.
   */
  recordOutput(method: string, value: JsonValue): void {
    this.#record((recorder) => recorder.recordOutput(this.#options.server, method, value));
  }

  /**
   * Records the server's instructions (best effort).
   * @param instructions - The text.
   */
  recordInstructions(instructions: string): void {
    this.#record((recorder) => recorder.recordInstructions(this.#options.server, instructions));
  }

  /** Flushes the audit log and the session file (shutdown); failures are logged. */
  flush(): void {
    for (const target of [this.#options.writer, this.#options.recorder]) {
      try {
        target?.flush();
      } catch (error) {
        this.#options.log(errorText(error));
      }
    }
  }

  #best(entry: AuditEntry): void {
    try {
      this.#options.writer.write(entry);
    } catch (error) {
      this.#options.log(errorText(error));
    }
  }

  /**
   * Writes one event to the session file. The first write that fails (a full disk, `EIO`) stops the
   * recording, said once on stderr: the file keeps this run's events up to it (the last line
   * perhaps cut short) and never one after a gap, since replay would decide those calls without the
   * output that was lost (laxer than live).
   *
   * Source: SPEC §3.6, §5.9; README "bouncer run --record".
   * @param write - The write.
   */
  #record(write: (recorder: SessionRecorder) => void): void {
    const { recorder } = this.#options;
    if (recorder === undefined || this.#recordStopped) return;
    try {
      write(recorder);
    } catch (error) {
      this.#recordStopped = true;
      this.#options.log(
        `${errorText(error)}: recording stopped, the file holds this run's events up to the one that failed, none after it`,
      );
    }
  }
}
