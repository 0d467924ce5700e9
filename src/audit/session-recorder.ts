/**
 * `bouncer run --record FILE`: writes a replayable session file in the format of SPEC §5.9 — `server`
 * events (command, cwd, serverInfo), `tools` events (each walk of `tools/list`; a failed one with
 * `"error"` in place of `"tools"`), `output` events (every
 * other upstream text recorded as untrusted: resources, prompts, task results, notifications,
 * sampling requests; written when it arrives), an `instructions` event (the server's instructions),
 * and `call` events with
 * their arguments, their result or error, and an ask's outcome as `"ask"` (`approved` or `declined`;
 * every other outcome is a decline) with what the answer applied beside it (`"remember"`, and
 * `"scope"` for a URL answer), so replay remembers exactly what the live session remembered, and
 * `"live_blocked"` for a call blocked live for a reason replay cannot reproduce. The file is created
 * with mode 0600 and appended to (several instances of one client session may record into one file:
 * one file is one client session; each event names its instance's `"run"` id). Each
 * event is one `O_APPEND` write. Tool outputs are stored as they are (opt-in, SPEC §3.6); only
 * token-shaped strings in the upstream command line are redacted (they never matter to replay). Edge.
 *
 * Source: SPEC §3.6, §5.9.
 * @module
 */

import { randomBytes } from "node:crypto";
import { closeSync, writeSync } from "node:fs";
import type { JsonObject, JsonValue } from "../engine/index.ts";
import { BouncerError } from "../platform/errors.ts";
import { describeFsError } from "../platform/fs-error-text.ts";
import { openPrivateAppend, syncWhereSupported } from "../platform/private-file.ts";
import type { AskOutcome } from "./audit-record.ts";
import { lineWriter, type WriteBytes } from "./line-writer.ts";
import { redactTokens } from "./redact.ts";
import { sessionLine } from "./session-line.ts";

/** What a `server` event says about the upstream (SPEC §5.9). Env values are never recorded. */
export interface RecordedServer {
  /** The upstream command line, command first. */
  readonly command: readonly string[];
  /** The upstream's working directory (absolute). */
  readonly cwd: string;
  /** The upstream's `initialize` result `serverInfo`, when known. */
  readonly serverInfo?: JsonObject;
}

/** One client `tools/call`, written once its outcome and result are known. */
export interface RecordedCall {
  readonly server: string;
  readonly tool: string;
  /** The arguments as decided (and, if forwarded, as forwarded). */
  readonly arguments: JsonObject;
  /** The per-instance call counter (helps match the audit log). */
  readonly seq?: number;
  /** The upstream's `tools/call` result, when the call was forwarded and answered. */
  readonly result?: JsonObject;
  /** The upstream's JSON-RPC error (`code`, `message`, `data`), when it answered with one. */
  readonly error?: JsonValue;
  /** The outcome of an ask on this call, when one was put; only `approved` is recorded as approved. */
  readonly ask?: AskOutcome;
  /**
   * With `ask`: whether the answer was remembered for the session (false for an outcome that was no
   * answer, e.g. a timeout or a dismissal: nothing was remembered). Absent: replay remembers (files
   * written before this field).
   */
  readonly remember?: boolean;
  /** With `ask`: the URL scope the human chose (`url`: this URL, `site`: the whole site). */
  readonly scope?: "url" | "site";
  /**
   * Why the call's JSON was ambiguous, when it was: the arguments above are as parsed (the repeated
   * key's last value, the rounded integer), so replay must deny it as the live proxy did.
   */
  readonly ambiguousJson?: AmbiguousJson;
  /**
   * Why the live proxy blocked the call for a reason replay cannot reproduce from the file, when it
   * did: replay then blocks it too and applies no recorded answer. Live applied none of it, except
   * for `audit_failed` and `not_forwarded` after an approval (the approval was applied, then the
   * final decision could not be audited, or the call was aborted): replay is then stricter than
   * live, never laxer.
   */
  readonly liveBlocked?: LiveBlocked;
}

/** What made a call's JSON ambiguous (the session file's `ambiguous_json` values). */
export const AMBIGUOUS_JSON = ["duplicate_keys", "unsafe_integers", "too_deep"] as const;

/** A repeated object key, an integer beyond ±2^53, or nesting past 1,000 levels. */
export type AmbiguousJson = (typeof AMBIGUOUS_JSON)[number];

/**
 * Whether a value read from a session file is one of the {@link AMBIGUOUS_JSON} kinds.
 * @param value - Anything.
 * @returns True for `duplicate_keys`, `unsafe_integers` and `too_deep`.
 */
export function isAmbiguousJson(value: unknown): value is AmbiguousJson {
  return AMBIGUOUS_JSON.some((kind) => kind === value);
}

/**
 * Why a call was blocked live for a reason the session file does not otherwise show (the session
 * file's `live_blocked` values):
 * - `stale_ask`: the call was approved, but decided again before the approval was applied it no
 *   longer stood as asked (output read while the question was open tainted its destination, or
 *   changed the question), so the approval was not applied;
 * - `audit_failed`: the audit log could not be written (SPEC §3.5: Bouncer blocks what it cannot
 *   audit); after an approval, the approval was applied live before the final decision failed to be
 *   audited;
 * - `not_forwarded`: the call was aborted while it was being decided (the client cancelled it, the
 *   session ended, the upstream went); after an approval, the approval may have been applied live
 *   before the abort was seen (the final decision is then audited as this deny);
 * - `gate_error`: deciding it failed (e.g. the pin file could not be read).
 *
 * Source: README "bouncer replay" (stricter, never laxer); SPEC §3.4, §3.5, §5.9.
 */
export const LIVE_BLOCKED = ["stale_ask", "audit_failed", "not_forwarded", "gate_error"] as const;

/** One of {@link LIVE_BLOCKED}. */
export type LiveBlocked = (typeof LIVE_BLOCKED)[number];

/**
 * Whether a value read from a session file is one of the {@link LIVE_BLOCKED} reasons.
 * @param value - Anything.
 * @returns True for a known reason.
 */
export function isLiveBlocked(value: unknown): value is LiveBlocked {
  return LIVE_BLOCKED.some((kind) => kind === value);
}

/** A session file being written. */
export interface SessionRecorder {
  /** The file's path. */
  readonly path: string;
  /**
   * This `bouncer run`'s id, written as `"run"` in each of its events (after `"server"`), so that
   * replay keeps runs that recorded into one file at the same time apart.
   */
  readonly run: string;
  /**
   * Writes a `server` event (once per instance, after the handshake).
   * @param server - The `--upstream-name`.
   * @param info - Command line, cwd and serverInfo.
   * @throws {BouncerError} `RECORD_WRITE_FAILED`.
   */
  recordServer(server: string, info: RecordedServer): void;
  /**
   * Writes a `tools` event: one complete `tools/list` walk (each re-walk too), tools as listed.
   * @param server - The `--upstream-name`.
   * @param tools - Every tool of the walk, in order, as the upstream sent them.
   * @throws {BouncerError} `RECORD_WRITE_FAILED`.
   */
  recordTools(server: string, tools: readonly JsonObject[]): void;
  /**
   * Writes a failed walk of `tools/list` as a `tools` event with `"error"` in place of `"tools"`:
   * the server's calls were denied until a later walk succeeded, and replay denies them so.
   * @param server - The `--upstream-name`.
   * @param error - Why it failed (the words after `Cannot walk the upstream's tools: `).
   * @throws {BouncerError} `RECORD_WRITE_FAILED`.
   */
  recordWalkFailure(server: string, error: string): void;
  /**
   * Writes a `call` event.
   * @param call - The call with its result or error and its ask outcome.
   * @throws {BouncerError} `RECORD_WRITE_FAILED`.
   */
  recordCall(call: RecordedCall): void;
  /**
   * Writes an `output` event: upstream text recorded as untrusted output outside a `tools/call`.
   * @param server - The `--upstream-name`.
   * @param method - What carried it: the request (`resources/read`), notification
   *   (`notifications/message`) or server-to-client request (`sampling/createMessage`).
   * @param value - The result, error or params, as received.
   * @throws {BouncerError} `RECORD_WRITE_FAILED`.
   */
  recordOutput(server: string, method: string, value: JsonValue): void;
  /**
   * Writes an `instructions` event: the server's instructions (of `initialize` or `server/discover`).
   * @param server - The `--upstream-name`.
   * @param instructions - The text.
   * @throws {BouncerError} `RECORD_WRITE_FAILED`.
   */
  recordInstructions(server: string, instructions: string): void;
  /** Forces written events to disk (for shutdown). */
  flush(): void;
  /** Closes the file. */
  close(): void;
}

/**
 * Builds the line of a `call` event in the §5.9 field order (a `too_deep` call with empty
 * arguments).
 * @param call - The call.
 * @returns The event object.
 */
export function callEvent(call: RecordedCall): JsonObject {
  const event: JsonObject = { event: "call", server: call.server, tool: call.tool };
  if (call.seq !== undefined) event.seq = call.seq;
  // Arguments nested past 1,000 levels are not written (they may not even serialise); replay
  // denies the call for its `ambiguous_json` as the live proxy did.
  event.arguments = call.ambiguousJson === "too_deep" ? {} : call.arguments;
  if (call.result !== undefined) event.result = call.result;
  else if (call.error !== undefined) event.error = call.error;
  if (call.ask !== undefined) {
    event.ask = call.ask === "approved" ? "approved" : "declined";
    if (call.remember !== undefined) event.remember = call.remember;
    if (call.scope !== undefined) event.scope = call.scope;
  }
  if (call.ambiguousJson !== undefined) event.ambiguous_json = call.ambiguousJson;
  if (call.liveBlocked !== undefined) event.live_blocked = call.liveBlocked;
  return event;
}

/**
 * Creates the session recorder for `--record FILE`. The file is opened at once, so an unwritable path
 * fails at start-up. Each event carries the recorder's run id (12 random hex digits, or as given).
 * After a write cut short (a full disk), the next event's line starts with a newline, so it is not
 * glued to the part.
 *
 * Source: SPEC §3.6, §5.9; README "bouncer replay" (runs recorded into one file at once).
 * @param path - The session file (resolved by the caller).
 * @param options - `run`: the run id (default: a random one); `write`: the write itself (default
 *   `fs.writeSync`; tests give one that writes short).
 * @returns The recorder.
 * @throws {BouncerError} `RECORD_WRITE_FAILED` when the file cannot be opened.
 */
export function createSessionRecorder(
  path: string,
  options: { readonly run?: string; readonly write?: WriteBytes } = {},
): SessionRecorder {
  const run = options.run ?? randomBytes(6).toString("hex");
  // A line a write cut short (a full disk) is ended by the next write, which starts with a newline:
  // the next event is not glued to the part.
  const write = lineWriter(options.write ?? writeSync);
  const fail = (error: unknown): BouncerError =>
    new BouncerError(
      "RECORD_WRITE_FAILED",
      `Cannot write session file "${path}": ${describeFsError(error)}`,
      {
        cause: error,
      },
    );
  let fd: number | undefined;
  try {
    fd = openPrivateAppend(path);
  } catch (error) {
    throw fail(error);
  }
  const append = (event: JsonObject): void => {
    let line: string;
    try {
      // `run` after `event` and `server` (the spread keeps their places and sets their values).
      const ordered = { event: null, server: null, run, ...event };
      line = `${sessionLine(ordered)}\n`;
    } catch (error) {
      throw fail(error);
    }
    try {
      if (fd === undefined) fd = openPrivateAppend(path);
      write(fd, line);
    } catch (error) {
      throw fail(error);
    }
  };
  return {
    path,
    run,
    recordServer(server: string, info: RecordedServer): void {
      const event: JsonObject = {
        event: "server",
        server,
        command: info.command.map((part) => redactTokens(part)),
        cwd: info.cwd,
      };
      if (info.serverInfo !== undefined) event.serverInfo = info.serverInfo;
      append(event);
    },
    recordTools(server: string, tools: readonly JsonObject[]): void {
      append({ event: "tools", server, tools: [...tools] });
    },
    recordWalkFailure(server: string, error: string): void {
      append({ event: "tools", server, error });
    },
    recordCall(call: RecordedCall): void {
      append(callEvent(call));
    },
    recordOutput(server: string, method: string, value: JsonValue): void {
      append({ event: "output", server, method, value });
    },
    recordInstructions(server: string, instructions: string): void {
      append({ event: "instructions", server, instructions });
    },
    flush(): void {
      if (fd === undefined) return;
      try {
        syncWhereSupported(fd);
      } catch (error) {
        throw fail(error);
      }
    },
    close(): void {
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
    },
  };
}
