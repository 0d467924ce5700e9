/**
 * The taint store of one client session (SPEC §2.5 "Index, not rescans"): an exact index of
 * destination-shaped tokens seen in untrusted output, each with its free-text / field / definition
 * occurrence and provenance, plus a bounded window of recent output for values that are not
 * token-shaped: created and indexed here, read in `taint-lookup.ts` (a lookup costs the same however
 * much output was recorded). Pure.
 * @module
 */

import { evidenceId } from "./evidence-records.ts";
import { createTextWindow, type TextWindow } from "./text-window.ts";
import {
  addAbsentHash,
  createTokenTable,
  findHash,
  MAX_TABLE_VALUE,
  type TokenHash,
  type TokenTable,
} from "./token-table.ts";
import type { Evidence, JsonObject, JsonValue } from "./types.ts";

/**
 * Default size of the window of recent output (SPEC §2.5: 8 MiB).
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 */
export const DEFAULT_WINDOW_BYTES = 8 * 1024 * 1024;

/**
 * Options of a taint store.
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 */
export interface TaintStoreOptions {
  /**
   * Size of the window of recent output kept for non-token-shaped lookups, in UTF-16 code units of
   * canonical text (≈ bytes for ASCII; default 8 MiB, SPEC §2.5).
   */
  readonly windowBytes?: number;
  /** Index entries the store holds at most (default {@link MAX_INDEXED_TOKENS}; tests set less). */
  readonly maxTokens?: number;
}

/**
 * Index entries (a token under one occurrence kind) a store holds at most, across its three tables:
 * ~8.4 million, 64–128 MiB of table. Taint is never forgotten, so past it the store refuses to
 * record: the output is not relayed (the edge answers `-32603`, drops a notification, fails a walk).
 * Benign sessions stay far below it (64 MiB of the densest output the bench writes holds 1.5 million).
 *
 * Source: SPEC §2.5 "Index, not rescans" (taint is kept), §3.3 (fail closed), §7 (memory).
 */
export const MAX_INDEXED_TOKENS = 8 * 1024 * 1024;

/**
 * One untrusted output to record (SPEC §2.5 "Untrusted text, recorded").
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 */
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

/**
 * One indexed token (for cross-server sharing, SPEC §3.7): the first occurrence of its kind here
 * (evidence without excerpt: cross-server evidence names server, tool and seq only).
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 */
export interface IndexEntry {
  readonly identity: string;
  readonly evidence: Evidence;
}

/**
 * The first occurrence of one token of each kind.
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 */
export interface TokenOccurrences {
  readonly free?: Evidence;
  readonly field?: Evidence;
  readonly definition?: Evidence;
}

/**
 * Work done by lookups, for tests and benchmarks (SPEC §7: decision cost must not grow).
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 */
export interface WorkCounter {
  /** Exact index probes. */
  probes: number;
  /** UTF-16 code units of window text scanned. */
  scanned: number;
}

/**
 * The taint store (one per client session, inside the engine state).
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.7, §7.
 */
export interface TaintStore {
  readonly options: Required<TaintStoreOptions>;
  /** Token key hash → id of the token's first free-text evidence. */
  readonly free: TokenTable;
  /** Token key hash → id of the token's first field-value evidence. */
  readonly field: TokenTable;
  /** Token key hash → id of the token's first definition evidence. */
  readonly definition: TokenTable;
  /**
   * Evidence by id: one object per output, kind and field key, shared by its tokens; at most
   * `MAX_EVIDENCE_RECORDS` (evidence-records.ts) of them, then one overflow record per occurrence kind.
   */
  readonly evidence: Evidence[];
  readonly evidenceIds: Map<Evidence, number>;
  /** Characters of the tool names and field keys of the records kept (see `MAX_EVIDENCE_CHARS`). */
  evidenceChars: number;
  /** The id of the overflow record of each occurrence kind, once there is one. */
  readonly overflowIds: Map<Evidence["kind"], number>;
  /**
   * Evidence of outputs no call produced (seq 0: notifications, other requests' answers), one per
   * server, method, kind and field key: a flood of log lines shares one record, not one each. At
   * most `MAX_SHARED_EVIDENCE` (4,096) records, each key at most 512 characters (the names are the
   * upstream's).
   */
  readonly sharedEvidence: Map<string, Evidence>;
  /**
   * Past that bound: one record per server and occurrence kind, shared by all later such output
   * (its taint kind exact, its provenance approximate).
   */
  readonly sharedOverflow: Map<string, Evidence>;
  /** Token key hash → index in `excerpts` of its first free-text occurrence's excerpt. */
  readonly excerptIds: TokenTable;
  /** Excerpts of first free-text occurrences, while the excerpt budget lasts. */
  readonly excerpts: string[];
  excerptBudget: number;
  readonly window: TextWindow;
  readonly work: WorkCounter;
  /** The store's own hash scratch (lookups allocate nothing for the hash). */
  readonly hash: TokenHash;
}

/** Characters of excerpts a store keeps at most (about 20,000 excerpts). */
const EXCERPT_BUDGET = 2 * 1024 * 1024;

/**
 * Creates an empty taint store.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param options - Window size (default 8 MiB).
 * @returns The store.
 * @throws {RangeError} When `windowBytes` or `maxTokens` is not a positive integer.
 */
export function createTaintStore(options: TaintStoreOptions = {}): TaintStore {
  const windowBytes = options.windowBytes ?? DEFAULT_WINDOW_BYTES;
  if (!Number.isInteger(windowBytes) || windowBytes <= 0) {
    throw new RangeError(`Cannot create taint store: window size "${windowBytes}" is not a positive integer`);
  }
  const maxTokens = options.maxTokens ?? MAX_INDEXED_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens <= 0) {
    throw new RangeError(`Cannot create taint store: token limit "${maxTokens}" is not a positive integer`);
  }
  return {
    options: { windowBytes, maxTokens },
    free: createTokenTable(),
    field: createTokenTable(),
    definition: createTokenTable(),
    evidence: [],
    evidenceIds: new Map(),
    evidenceChars: 0,
    overflowIds: new Map(),
    sharedEvidence: new Map(),
    sharedOverflow: new Map(),
    excerptIds: createTokenTable(),
    excerpts: [],
    excerptBudget: EXCERPT_BUDGET,
    window: createTextWindow(windowBytes),
    work: { probes: 0, scanned: 0 },
    hash: { lo: 0, hi: 0 },
  };
}

/**
 * The table of one occurrence kind.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param store - The taint store.
 * @param kind - The occurrence kind.
 * @returns Its table.
 */
export function kindTable(store: TaintStore, kind: Evidence["kind"]): TokenTable {
  return kind === "free_text" ? store.free : kind === "field" ? store.field : store.definition;
}

/**
 * Indexes one occurrence of a token by its key's hash: kept only when it is the token's first of
 * that kind. The excerpt of a first free-text occurrence is kept while the budget lasts.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param store - The taint store.
 * @param found - The key's hash (see `hashSlice`), its evidence, and for free text an excerpt.
 * @returns True when this was the token's first occurrence of that kind.
 * @throws {RangeError} When a new entry would pass the store's `maxTokens` (see `indexAbsentHash`).
 */
export function indexHash(
  store: TaintStore,
  found: { readonly hash: TokenHash; readonly evidence: Evidence; readonly excerpt?: string | undefined },
): boolean {
  if (findHash(kindTable(store, found.evidence.kind), found.hash) !== -1) return false;
  indexAbsentHash(store, found);
  return true;
}

/**
 * {@link indexHash} for a key the caller has just found absent from its kind's table (one probe
 * fewer per new token on the recording path).
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param store - The taint store.
 * @param found - The key's hash, absent from the table of its evidence's kind; evidence; excerpt.
 * @returns Nothing.
 * @throws {RangeError} When the store holds `maxTokens` entries ({@link MAX_INDEXED_TOKENS}): the
 *   output must not reach the model unrecorded.
 */
export function indexAbsentHash(
  store: TaintStore,
  found: { readonly hash: TokenHash; readonly evidence: Evidence; readonly excerpt?: string | undefined },
): void {
  const { hash } = found;
  const { kind } = found.evidence;
  if (store.free.count + store.field.count + store.definition.count >= store.options.maxTokens) {
    throw new RangeError(
      `Cannot record untrusted output: the taint index holds ${store.options.maxTokens} entries, its limit, and forgets none; restart the server (a new bouncer run) to start afresh`,
    );
  }
  addAbsentHash(kindTable(store, kind), hash, evidenceId(store, found.evidence));
  const { excerpt } = found;
  if (
    excerpt !== undefined &&
    kind === "free_text" &&
    excerpt.length <= store.excerptBudget &&
    store.excerpts.length <= MAX_TABLE_VALUE
  ) {
    store.excerptBudget -= excerpt.length;
    addAbsentHash(store.excerptIds, hash, store.excerpts.length);
    store.excerpts.push(JSON.parse(JSON.stringify(excerpt)) as string);
  }
}
