/**
 * The events of a replayable session file (SPEC §5.9), as `parseSession` returns them. Edge (types
 * only).
 *
 * Source: SPEC §5.9, §3.6.
 * @module
 */

import type { RecordedCall } from "../audit/index.ts";
import type { JsonObject, JsonValue, ToolDefinition } from "../engine/index.ts";

/** `{"event":"server",...}`: what pack matching and path resolution need about one server. */
export interface ServerEvent {
  readonly event: "server";
  readonly line: number;
  /** The `bouncer run` that wrote it (`--record` writes one id per run; absent in older files). */
  readonly run?: string;
  readonly server: string;
  /** The upstream command line, command first. */
  readonly command?: readonly string[];
  /** The upstream's working directory. */
  readonly cwd?: string;
  /** The upstream's `initialize` `serverInfo`. */
  readonly serverInfo?: JsonObject;
}

/**
 * `{"event":"tools",...}`: one full `tools/list` walk of a server (the first that succeeds pins it),
 * or, with `error` in place of `tools`, a walk that failed live.
 */
export interface ToolsEvent {
  readonly event: "tools";
  readonly line: number;
  /** The `bouncer run` that wrote it (`--record` writes one id per run; absent in older files). */
  readonly run?: string;
  readonly server: string;
  /** The tools as listed (each keeps every field the upstream sent); empty for a failed walk. */
  readonly tools: readonly (ToolDefinition & JsonObject)[];
  /**
   * Why the walk failed live (the words after `Cannot walk the upstream's tools: `), when it did: the
   * server's calls are denied until a later walk succeeds.
   */
  readonly error?: string;
}

/**
 * `{"event":"call",...}`: one client `tools/call` with what the upstream answered — the writer's
 * {@link RecordedCall} (one type for both sides of the file), plus where it was read. `ask` is any
 * string read from the file: only `approved` approves (SPEC §5.9).
 */
export interface CallEvent extends Omit<RecordedCall, "ask"> {
  readonly event: "call";
  readonly line: number;
  /** The `bouncer run` that wrote it (`--record` writes one id per run; absent in older files). */
  readonly run?: string;
  /** The recorded answer to an ask on this call: only `approved` approves (SPEC §5.9). */
  readonly ask?: string;
}

/**
 * `{"event":"output",...}`: upstream text recorded as untrusted outside a `tools/call` — a result or
 * error of another request (`resources/read`, `prompts/get`, `tasks/result`, …), a notification's
 * params, a `sampling/createMessage` request's params, other members of such a message. Written
 * when it arrived.
 */
export interface OutputEvent {
  readonly event: "output";
  readonly line: number;
  /** The `bouncer run` that wrote it (`--record` writes one id per run; absent in older files). */
  readonly run?: string;
  readonly server: string;
  readonly method: string;
  readonly value: JsonValue;
}

/**
 * `{"event":"instructions",...}`: the server's instructions (of `initialize` or `server/discover`),
 * recorded as tool definitions are (field values at most).
 */
export interface InstructionsEvent {
  readonly event: "instructions";
  readonly line: number;
  /** The `bouncer run` that wrote it (`--record` writes one id per run; absent in older files). */
  readonly run?: string;
  readonly server: string;
  readonly instructions: string;
}

/** One event of a session file. */
export type SessionEvent = ServerEvent | ToolsEvent | CallEvent | OutputEvent | InstructionsEvent;
