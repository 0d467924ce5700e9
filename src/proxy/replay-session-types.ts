/**
 * The events of a replayable session file (SPEC §5.9), as `parseSession` returns them. Edge (types
 * only).
 *
 * Source: SPEC §5.9, §3.6.
 * @module
 */

import type { AmbiguousJson } from "../audit/index.ts";
import type { JsonObject, JsonValue, ToolDefinition } from "../engine/index.ts";

/** `{"event":"server",...}`: what pack matching and path resolution need about one server. */
export interface ServerEvent {
  readonly event: "server";
  readonly line: number;
  readonly server: string;
  /** The upstream command line, command first. */
  readonly command?: readonly string[];
  /** The upstream's working directory. */
  readonly cwd?: string;
  /** The upstream's `initialize` `serverInfo`. */
  readonly serverInfo?: JsonObject;
}

/** `{"event":"tools",...}`: one full `tools/list` walk of a server (the first pins it). */
export interface ToolsEvent {
  readonly event: "tools";
  readonly line: number;
  readonly server: string;
  /** The tools as listed (each keeps every field the upstream sent). */
  readonly tools: readonly (ToolDefinition & JsonObject)[];
}

/** `{"event":"call",...}`: one client `tools/call` with what the upstream answered. */
export interface CallEvent {
  readonly event: "call";
  readonly line: number;
  readonly server: string;
  readonly tool: string;
  readonly arguments: JsonObject;
  /** The live decision's sequence number (the instance's counter, the audit log's `seq`), if recorded. */
  readonly seq?: number;
  /** The `tools/call` result, when the upstream answered with one. */
  readonly result?: JsonObject;
  /** The JSON-RPC error (message and data), when the upstream answered with one. */
  readonly error?: JsonValue;
  /** The recorded answer to an ask on this call: only `approved` approves (SPEC §5.9). */
  readonly ask?: string;
  /** With `ask`: whether the answer was remembered (absent: remembered, as files before the field). */
  readonly remember?: boolean;
  /** With `ask`: the URL scope of the answer, `url` (this URL, the default) or `site` (whole site). */
  readonly scope?: "url" | "site";
  /**
   * Why the call's JSON is ambiguous, so replay denies it as the live proxy did: as recorded
   * (`ambiguous_json`), else as the strict look at the line found (arguments that repeat a key, hold
   * an integer beyond ±2^53 or nest too deep).
   */
  readonly ambiguousJson?: AmbiguousJson;
}

/** One event of a session file. */
export type SessionEvent = ServerEvent | ToolsEvent | CallEvent;
