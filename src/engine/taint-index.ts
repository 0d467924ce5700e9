/**
 * The taint store of one client session (SPEC §2.5 "Index, not rescans"): an exact index of
 * destination-shaped tokens seen in untrusted output, each with its free-text / field / definition
 * occurrence and provenance, plus a bounded window of recent output for values that are not
 * token-shaped. A lookup costs the same however much output was recorded. Pure.
 * @module
 */

import { createTextWindow, searchWindow, type TextWindow, type WindowHits } from "./text-window.ts";
import type { Evidence, JsonObject, JsonValue } from "./types.ts";

/** Default size of the window of recent output (SPEC §2.5: 8 MiB). */
export const DEFAULT_WINDOW_BYTES = 8 * 1024 * 1024;

/** Options of a taint store. */
export interface TaintStoreOptions {
  /**
   * Size of the window of recent output kept for non-token-shaped lookups, in UTF-16 code units of
   * canonical text (≈ bytes for ASCII; default 8 MiB, SPEC §2.5).
   */
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

/** One indexed token (for cross-server sharing, SPEC §3.7): the first occurrence of its kind here. */
export interface IndexEntry {
  readonly identity: string;
  readonly evidence: Evidence;
}

/** The first occurrence of one token of each kind. */
export interface TokenOccurrences {
  free?: Evidence;
  field?: Evidence;
  definition?: Evidence;
}

/** Work done by lookups, for tests and benchmarks (SPEC §7: decision cost must not grow). */
export interface WorkCounter {
  /** Exact index probes. */
  probes: number;
  /** UTF-16 code units of window text scanned. */
  scanned: number;
}

/** The taint store (one per client session, inside the engine state). */
export interface TaintStore {
  readonly options: Required<TaintStoreOptions>;
  /** Token identity → its first occurrence of each kind. */
  readonly tokens: Map<string, TokenOccurrences>;
  readonly window: TextWindow;
  readonly work: WorkCounter;
}

/**
 * Creates an empty taint store.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param options - Window size (default 8 MiB).
 * @returns The store.
 * @throws {RangeError} When `windowBytes` is not a positive integer.
 */
export function createTaintStore(options: TaintStoreOptions = {}): TaintStore {
  const windowBytes = options.windowBytes ?? DEFAULT_WINDOW_BYTES;
  if (!Number.isInteger(windowBytes) || windowBytes <= 0) {
    throw new RangeError(`Cannot create taint store: window size "${windowBytes}" is not a positive integer`);
  }
  return {
    options: { windowBytes },
    tokens: new Map(),
    window: createTextWindow(windowBytes),
    work: { probes: 0, scanned: 0 },
  };
}

const KIND_SLOT = { free_text: "free", field: "field", definition: "definition" } as const;

/** Copies a short string so the index never keeps a slice of a large output alive. */
function detach(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * Indexes one occurrence of a token. Only the first occurrence of each kind is kept.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param store - The taint store.
 * @param identity - The token's index key (see `extractTokens`).
 * @param evidence - Where it occurred, with its kind.
 * @returns True when this was the token's first occurrence of that kind.
 */
export function indexToken(store: TaintStore, identity: string, evidence: Evidence): boolean {
  let entry = store.tokens.get(identity);
  if (entry === undefined) {
    entry = {};
    store.tokens.set(detach(identity), entry);
  }
  const slot = KIND_SLOT[evidence.kind];
  if (entry[slot] !== undefined) return false;
  entry[slot] =
    evidence.excerpt === undefined ? evidence : { ...evidence, excerpt: detach(evidence.excerpt) };
  return true;
}

/**
 * Looks a token up by exact key: one probe, whatever the session's size.
 * @param store - The taint store.
 * @param identity - An index key (email, host, `+digits`, IBAN, or canonical string).
 * @returns Its occurrences, or undefined when never seen.
 */
export function lookupToken(store: TaintStore, identity: string): TokenOccurrences | undefined {
  store.work.probes += 1;
  return store.tokens.get(identity);
}

/**
 * Searches the window of recent output for a value that is not token-shaped, on token boundaries.
 * Bounded by the window size.
 * @param store - The taint store.
 * @param needle - A canonical identity.
 * @returns The first occurrence of each kind in the window.
 */
export function searchRecent(store: TaintStore, needle: string): WindowHits {
  return searchWindow(store.window, needle, store.work);
}
