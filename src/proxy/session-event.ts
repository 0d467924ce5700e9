/**
 * One line of a session file, its JSON already parsed, checked and turned into a {@link SessionEvent}:
 * the keys each event allows, the fields of `server`, `tools`, `output`, `instructions` and `call`
 * events, and the `run` any of them may name. A problem is a {@link LineProblem}, which
 * `replay-session.ts` reports with the file and line number. Edge (pure).
 *
 * Source: SPEC §5.9, §3.6.
 * @module
 */

import {
  AMBIGUOUS_JSON,
  type AmbiguousJson,
  isAmbiguousJson,
  isLiveBlocked,
  LIVE_BLOCKED,
} from "../audit/index.ts";
import type { JsonObject, JsonValue, ToolDefinition } from "../engine/index.ts";
import { isJsonObject, member } from "../engine/index.ts";
import type { CallEvent, ServerEvent, SessionEvent } from "./replay-session-types.ts";

/**
 * Keys allowed per event; `ts` (and `seq` but on a call) are accepted and ignored, so recorders may
 * add them. Every event may name its `run`.
 */
const EVENT_KEYS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["server", new Set(["event", "server", "run", "command", "cwd", "serverInfo", "ts", "seq"])],
  ["tools", new Set(["event", "server", "run", "tools", "error", "ts", "seq"])],
  ["output", new Set(["event", "server", "run", "method", "value", "too_deep", "ts", "seq"])],
  ["instructions", new Set(["event", "server", "run", "instructions", "ts", "seq"])],
  [
    "call",
    new Set([
      "event",
      "server",
      "run",
      "tool",
      "arguments",
      "result",
      "error",
      "ask",
      "remember",
      "scope",
      "ambiguous_json",
      "live_blocked",
      "result_too_deep",
      "ts",
      "seq",
    ]),
  ],
]);

/**
 * A problem on one line of a session file; `parseSession` adds the file and line number.
 *
 * Source: SPEC §5.9.
 */
export class LineProblem extends TypeError {
  override readonly name = "LineProblem";
}

/** Optional string fields of a tool definition (SPEC §2.2 pinned fields). */
const TOOL_STRINGS = ["title", "description"] as const;
/** Optional object fields of a tool definition. */
const TOOL_OBJECTS = ["inputSchema", "outputSchema", "annotations"] as const;

/**
 * Quotes an untrusted value for a message (one line, escapes visible).
 * @param value - A name from the file.
 * @returns The JSON string form, cut at 80 characters.
 */
function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/**
 * Validates one tool definition of a `tools` event.
 * @param value - The listed tool.
 * @param index - Its position in the list (for messages).
 * @returns The tool, unchanged.
 * @throws {LineProblem} For a malformed value.
 */
function checkTool(value: JsonValue, index: number): ToolDefinition & JsonObject {
  if (!isJsonObject(value)) throw new LineProblem(`tool ${index} is not an object`);
  const name = member(value, "name");
  if (typeof name !== "string" || name === "") throw new LineProblem(`tool ${index} has no "name" string`);
  for (const key of TOOL_STRINGS) {
    const field = member(value, key);
    if (field !== undefined && typeof field !== "string")
      throw new LineProblem(`tool ${quote(name)}: "${key}" is not a string`);
  }
  for (const key of TOOL_OBJECTS) {
    const field = member(value, key);
    if (field !== undefined && !isJsonObject(field))
      throw new LineProblem(`tool ${quote(name)}: "${key}" is not an object`);
  }
  return value as ToolDefinition & JsonObject;
}

/**
 * Validates one parsed line and turns it into an event.
 *
 * Source: SPEC §5.9.
 * @param value - The parsed JSON of the line.
 * @param line - The 1-based line number.
 * @param found - What the strict look at the line found ambiguous (a call that records none gets it).
 * @returns The event.
 * @throws {LineProblem} For a malformed value.
 */
export function toEvent(value: JsonValue, line: number, found?: AmbiguousJson): SessionEvent {
  if (!isJsonObject(value)) throw new LineProblem("an event must be a JSON object");
  const kind = member(value, "event");
  if (typeof kind !== "string") throw new LineProblem('missing "event"');
  const allowed = EVENT_KEYS.get(kind);
  if (allowed === undefined)
    throw new LineProblem(
      `unknown event ${quote(kind)} (expected "server", "tools", "call", "output" or "instructions")`,
    );
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) throw new LineProblem(`unknown key ${quote(key)} in a "${kind}" event`);
  }
  const server = member(value, "server");
  if (typeof server !== "string" || server === "")
    throw new LineProblem(`"${kind}" event without a "server" string`);
  if (kind === "server") return serverEvent(value, server, line);
  if (kind === "tools") {
    const tools = member(value, "tools");
    const error = member(value, "error");
    if (error !== undefined) {
      if (tools !== undefined) throw new LineProblem('a "tools" event has "tools" or "error", not both');
      if (typeof error !== "string") throw new LineProblem('"error" is not a string');
      return { event: "tools", line, server, tools: [], error };
    }
    if (!Array.isArray(tools)) throw new LineProblem('"tools" is not a list');
    return { event: "tools", line, server, tools: tools.map(checkTool) };
  }
  if (kind === "output") {
    const method = member(value, "method");
    if (typeof method !== "string" || method === "")
      throw new LineProblem('"output" event without a "method" string');
    const recorded = member(value, "value");
    if (recorded === undefined) throw new LineProblem('"output" event without a "value"');
    return { event: "output", line, server, method, value: recorded };
  }
  if (kind === "instructions") {
    const instructions = member(value, "instructions");
    if (typeof instructions !== "string") throw new LineProblem('"instructions" is not a string');
    return { event: "instructions", line, server, instructions };
  }
  return callEvent(value, server, { line, found });
}

/**
 * Builds a `server` event.
 * @param value - The line's object.
 * @param server - Its server name.
 * @param line - The line number.
 * @returns The event.
 * @throws {LineProblem} For a malformed field.
 */
function serverEvent(value: JsonObject, server: string, line: number): ServerEvent {
  const command = member(value, "command");
  const cwd = member(value, "cwd");
  const serverInfo = member(value, "serverInfo");
  if (
    command !== undefined &&
    !(Array.isArray(command) && command.every((part) => typeof part === "string"))
  ) {
    throw new LineProblem('"command" is not a list of strings');
  }
  if (cwd !== undefined && typeof cwd !== "string") throw new LineProblem('"cwd" is not a string');
  if (serverInfo !== undefined && !isJsonObject(serverInfo))
    throw new LineProblem('"serverInfo" is not an object');
  return {
    event: "server",
    line,
    server,
    ...(command === undefined ? {} : { command: command as string[] }),
    ...(cwd === undefined ? {} : { cwd }),
    ...(serverInfo === undefined ? {} : { serverInfo }),
  };
}

/**
 * Builds a `call` event.
 * @param value - The line's object.
 * @param server - Its server name.
 * @param line - The line number.
 * @returns The event.
 * @throws {LineProblem} For a malformed field.
 */
function callEvent(
  value: JsonObject,
  server: string,
  where: { readonly line: number; readonly found: AmbiguousJson | undefined },
): CallEvent {
  const { line } = where;
  const tool = member(value, "tool");
  if (typeof tool !== "string" || tool === "") throw new LineProblem('"call" event without a "tool" string');
  // Absent means none; `null` is refused as live refuses it (-32602), never read as `{}`.
  const written = member(value, "arguments");
  const args = written === undefined ? {} : written;
  if (!isJsonObject(args)) throw new LineProblem('"arguments" is not an object');
  const result = member(value, "result");
  const error = member(value, "error");
  if (result !== undefined && !isJsonObject(result)) throw new LineProblem('"result" is not an object');
  if (result !== undefined && error !== undefined)
    throw new LineProblem('a call has "result" or "error", not both');
  const seq = member(value, "seq");
  if (seq !== undefined && !(Number.isSafeInteger(seq) && (seq as number) >= 0))
    throw new LineProblem('"seq" is not a whole number');
  const ask = member(value, "ask");
  if (ask !== undefined && typeof ask !== "string") throw new LineProblem('"ask" is not a string');
  const remember = member(value, "remember");
  const scope = member(value, "scope");
  if (remember !== undefined && typeof remember !== "boolean")
    throw new LineProblem('"remember" is not true or false');
  if (scope !== undefined && scope !== "url" && scope !== "site")
    throw new LineProblem('"scope" is not "url" or "site"');
  if (ask === undefined && (remember !== undefined || scope !== undefined))
    throw new LineProblem(`"${remember === undefined ? "scope" : "remember"}" without "ask"`);
  const recorded = member(value, "ambiguous_json");
  if (recorded !== undefined && !isAmbiguousJson(recorded))
    throw new LineProblem(
      `"ambiguous_json" is not ${AMBIGUOUS_JSON.map((kind) => `"${kind}"`).join(" or ")}`,
    );
  // As recorded (the live proxy's finding), else what the strict look at this line found.
  const ambiguousJson = recorded ?? where.found;
  const liveBlocked = member(value, "live_blocked");
  if (liveBlocked !== undefined && !isLiveBlocked(liveBlocked))
    throw new LineProblem(`"live_blocked" is not ${LIVE_BLOCKED.map((kind) => `"${kind}"`).join(" or ")}`);
  return {
    event: "call",
    line,
    server,
    tool,
    arguments: args,
    ...(seq === undefined ? {} : { seq: seq as number }),
    ...(result === undefined ? {} : { result }),
    ...(error === undefined ? {} : { error }),
    ...(ask === undefined ? {} : { ask }),
    ...(remember === undefined ? {} : { remember }),
    ...(scope === undefined ? {} : { scope }),
    ...(ambiguousJson === undefined ? {} : { ambiguousJson }),
    ...(liveBlocked === undefined ? {} : { liveBlocked }),
  };
}

/**
 * An event with the `run` its line names (any kind of event may name one).
 *
 * Source: SPEC §5.9.
 * @param event - The event.
 * @param value - Its line's object.
 * @returns The event, with `run` when the line has one.
 * @throws {LineProblem} When `run` is not a non-empty string.
 */
export function withRun(event: SessionEvent, value: JsonValue): SessionEvent {
  const run = isJsonObject(value) ? member(value, "run") : undefined;
  if (run === undefined) return event;
  if (typeof run !== "string" || run === "") throw new LineProblem('"run" is not a non-empty string');
  return { ...event, run };
}
