/**
 * PLACEHOLDER — to be replaced by the taint index implementation (SPEC §2.5 "Index, not rescans").
 * @module
 */
import type { Evidence, JsonObject, JsonValue } from "./types.ts";

/** Options of a taint store. */
export interface TaintStoreOptions {
  /** Bytes of recent output kept for non-token-shaped lookups (default 8 MiB, SPEC §2.5). */
  readonly windowBytes?: number;
}

/** One untrusted output to record (SPEC §2.5 "Untrusted text, recorded"). */
export interface RecordedOutput {
  readonly server: string;
  /** The tool name, or the method for non-tool outputs (`resources/read`, `prompts/get`). */
  readonly tool: string;
  readonly seq: number;
  /**
   * `tool_result`: a `tools/call` result (content blocks, structuredContent, resource links);
   * `tool_error`: a JSON-RPC error's message and data; `definition`: a `tools/list` result or the
   * server's instructions (field values at most); `other`: any other upstream result that reaches the model.
   */
  readonly kind: "tool_result" | "tool_error" | "definition" | "other";
  readonly value: JsonValue;
  /** The call's own arguments: their identities count as field values at most in its own result. */
  readonly arguments?: JsonObject;
}

/** One indexed token (for cross-server sharing, SPEC §3.7). */
export interface IndexEntry {
  readonly identity: string;
  readonly evidence: Evidence;
}

/** The taint store. */
export interface TaintStore {
  readonly options: Required<TaintStoreOptions>;
}

/** Creates an empty store. */
export function createTaintStore(options: TaintStoreOptions = {}): TaintStore {
  return { options: { windowBytes: options.windowBytes ?? 8 * 1024 * 1024 } };
}
