/**
 * A gate's session half: one client session's {@link EngineState} (budgets, approvals, taint), the
 * call sequence counter, and the upstream text recorded into the state's taint index as untrusted
 * output — call results and errors, other messages, tool definitions and instructions (each
 * definition once while it is among the last {@link MAX_RECORDED_DEFINITIONS} recorded). `Gate`
 * (gate.ts) extends it with the servers, pins and decisions. Edge.
 *
 * Source: SPEC §2.5 (untrusted output), §3.5 (`seq`), §3.7.
 * @module
 */

import {
  canonicalJson,
  createEngineState,
  type EngineState,
  type IndexEntry,
  type JsonObject,
  type JsonValue,
  type RecordOptions,
  recordCallOutput,
  recordOutput,
  type ToolRules,
} from "../engine/index.ts";
import { sha256 } from "./gate-pins.ts";
import type { GateOptions } from "./gate-types.ts";
import { makeRoom } from "./make-room.ts";

/**
 * Definitions (and instructions texts) a gate remembers having recorded, at most: the upstream
 * chooses them, and one that sends `list_changed` with a new definition each time must not grow the
 * gate. Past it the one used longest ago is forgotten, and recorded again if it is served again
 * (the index keeps first occurrences only: that adds no taint and loses none).
 *
 * Source: SPEC §2.5 (definitions recorded), §3.3 (fail closed), §7 (memory).
 */
export const MAX_RECORDED_DEFINITIONS = 4096;

/**
 * The state and the recording of one client session's gate; see the module doc.
 *
 * Source: SPEC §2.5, §3.5.
 */
export abstract class GateRecords {
  /** The session state (budgets, approvals, taint); one per client session. */
  readonly state: EngineState;
  /** SHA-256 of each (server, name, definition) recorded, least recently served first. */
  readonly #recordedDefinitions = new Set<string>();
  readonly #recordOptions: RecordOptions;
  #seq = 0;

  /**
   * @param options - The taint store's options and whether recordings list what they index.
   */
  protected constructor(options: Pick<GateOptions, "state" | "listIndexed">) {
    this.#recordOptions = { listIndexed: options.listIndexed === true };
    this.state = createEngineState(options.state ?? {});
  }

  /** The last sequence number assigned (0 before the first call). */
  get seq(): number {
    return this.#seq;
  }

  /** How many definitions the gate remembers having recorded (for tests and reports). */
  get recordedDefinitions(): number {
    return this.#recordedDefinitions.size;
  }

  /**
   * Assigns the next call sequence number (SPEC §3.5 `seq`): `decideCall` does when not given one;
   * the proxy does for a call it denies before deciding it (its own seq, never the last call's).
   * @returns It (1 for the session's first call).
   */
  nextSeq(): number {
    this.#seq += 1;
    return this.#seq;
  }

  /**
   * The effective rules of a tool as the gate would decide it now (a `trusted_output` tool's output
   * is not recorded).
   * @param server - The server name.
   * @param tool - The tool name.
   * @returns The rules.
   */
  abstract rulesFor(server: string, tool: string): ToolRules;

  /**
   * Records a forwarded call's result or upstream error as untrusted output (SPEC §2.5), unless the
   * tool is `trusted_output`. Never call it for a denied call (its output never happened).
   * @param call - The server, tool, the request's seq and the arguments that were forwarded.
   * @param outcome - The `tools/call` result, or the JSON-RPC error (message and data).
   * @returns The tokens newly indexed, for the cross-server session store (SPEC §3.7): with
   *   `listIndexed` only, none for a `trusted_output` tool.
   */
  recordResult(
    call: { readonly server: string; readonly tool: string; readonly seq: number; readonly args: JsonObject },
    outcome: { readonly result: JsonObject } | { readonly error: JsonValue },
  ): readonly IndexEntry[] {
    const rules = this.rulesFor(call.server, call.tool);
    const isResult = Object.hasOwn(outcome, "result");
    return recordCallOutput(
      this.state.taint,
      rules,
      {
        server: call.server,
        tool: call.tool,
        seq: call.seq,
        kind: isResult ? "tool_result" : "tool_error",
        value: isResult
          ? (outcome as { result: JsonObject }).result
          : (outcome as { error: JsonValue }).error,
        arguments: call.args,
      },
      this.#recordOptions,
    );
  }

  /**
   * Records other upstream text that reaches the model (the answers and errors of `resources/read`,
   * `prompts/get`, task results and every other relayed request, notifications, sampling requests)
   * as untrusted output (SPEC §2.5), with seq 0: no `tools/call` produced it.
   * @param server - The server name.
   * @param method - The method that carried it, e.g. `resources/read`, `notifications/message`.
   * @param value - The result, error or params.
   * @returns The tokens newly indexed, for the cross-server session store (SPEC §3.7): with
   *   `listIndexed` only.
   */
  recordUntrusted(server: string, method: string, value: JsonValue): readonly IndexEntry[] {
    return recordOutput(
      this.state.taint,
      { server, tool: method, seq: 0, kind: "other", value },
      this.#recordOptions,
    );
  }

  /**
   * Records the server's `instructions` (from its `initialize` result) as untrusted, field values at
   * most, like tool definitions (SPEC §2.5).
   * @param server - The server name.
   * @param instructions - The instructions text.
   * @returns The tokens newly indexed, for the cross-server session store (SPEC §3.7): with
   *   `listIndexed` only.
   */
  recordInstructions(server: string, instructions: string): readonly IndexEntry[] {
    return this.recordDefinition(server, "instructions", instructions);
  }

  /**
   * Records a server's `serverInfo` (its name, title, description, website, icons…) as untrusted,
   * field values at most, as its instructions are: clients show it, and a description may reach the
   * model (SPEC §2.5: everything the upstream says is recorded; the server describing itself, as
   * tools do). Live and in replay alike: both register the server with it.
   *
   * Source: SPEC §2.5; review of the proxy (a `serverInfo.description` naming an address was not
   * recorded, and a send there was asked about as never seen).
   * @param server - The server name.
   * @param serverInfo - The `serverInfo` of its `initialize` or `server/discover` result.
   */
  recordServerInfo(server: string, serverInfo: JsonObject): void {
    this.recordDefinition(server, "serverInfo", serverInfo);
  }

  /**
   * Records a tool definition (or the instructions) as served, as untrusted `definition` output
   * (field values at most, SPEC §2.5), once per (server, name, value) among the last
   * {@link MAX_RECORDED_DEFINITIONS} served, with the seq of the last call. Only the SHA-256 of each
   * is remembered, never its text.
   * @param server - The server name.
   * @param name - The tool's name, or `instructions`.
   * @param value - The definition as listed, or the instructions text.
   * @returns The tokens newly indexed (with `listIndexed` only).
   */
  protected recordDefinition(server: string, name: string, value: JsonValue): readonly IndexEntry[] {
    // The whole definition as served, not only its pinned fields: a pinned tool is served as now
    // listed, and a changed `_meta` or other field reaches the model too (SPEC §2.5).
    const mark = sha256(
      JSON.stringify([server, name, typeof value === "string" ? value : canonicalJson(value)]),
    );
    const recorded = this.#recordedDefinitions;
    if (recorded.delete(mark)) {
      recorded.add(mark); // served again: the last to be forgotten
      return [];
    }
    makeRoom(recorded, MAX_RECORDED_DEFINITIONS);
    const indexed = recordOutput(
      this.state.taint,
      { server, tool: name, seq: this.#seq, kind: "definition", value },
      this.#recordOptions,
    );
    // Only once recorded: a recording that threw (a full index) is tried again on the next walk.
    recorded.add(mark);
    return indexed;
  }
}
