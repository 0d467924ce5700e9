/**
 * The state of one output's recording (SPEC §2.5 "Untrusted text, recorded"): its provenance, the
 * echo rule's keys and texts from the call's own arguments, and the index entries it added (its
 * evidence records are `output-evidence.ts`). Pure.
 * @module
 */

import { canonicalize } from "./canonical.ts";
import { destinationPieces, flattenValue } from "./destinations.ts";
import type { Identity } from "./identity.ts";
import { identify } from "./identity.ts";
import { evidenceName } from "./output-evidence.ts";
import { type IndexEntry, indexHash, type TaintStore } from "./taint-index.ts";
import { hostSuffixes, isEmailShaped } from "./token-shapes.ts";
import { hashSlice, type TokenHash } from "./token-table.ts";
import { extractTokens } from "./tokens.ts";
import type { Evidence, JsonObject } from "./types.ts";

/** Echoed argument values shorter than this stay in the window (too common to cut out). */
const MIN_ECHO_TEXT = 6;

/**
 * What one output's recording needs: where it came from, and how its occurrences count.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values".
 */
export interface Recorder {
  readonly store: TaintStore;
  /**
   * Index entries new to the store (for cross-server sharing, SPEC §3.7), or undefined when the
   * caller did not ask for them (no string is then made per new token).
   */
  readonly entries: IndexEntry[] | undefined;
  /** Index keys met in the current text block (JSON duplicate-key cross-check). */
  blockKeys: Set<string> | undefined;
  readonly provenance: { readonly server: string; readonly tool: string; readonly seq: number };
  /** Tool definitions and instructions: every occurrence is a definition occurrence. */
  readonly definition: boolean;
  /**
   * The echo rule's keys, made when the first token of the output is indexed ({@link echoKeysOf}):
   * output without tokens never needs them.
   */
  echo: EchoKeys | undefined;
  /** The call's own arguments, for {@link echoKeysOf} (undefined for other output). */
  readonly echoArguments: JsonObject | undefined;
  readonly echoTexts: readonly string[];
  readonly evidenceCache: Map<string, Evidence>;
  /** Free scalars of structured output waiting to be scanned together. */
  pending: string[];
  pendingSize: number;
  /** The recorder's hash scratch. */
  readonly hash: TokenHash;
  /**
   * The last canonical free text whose tokens this recorder indexed (`recordCanonicalFree`). The
   * index keeps first occurrences only and holds every token of that text now, so the same text
   * again in this output (a result's text mirrored in its `structuredContent`) is not scanned again.
   */
  lastIndexed: string | undefined;
  /** The last raw free text canonicalised for this output, and its canonical form (the mirror again). */
  lastRaw: string | undefined;
  lastCanonical: string;
}

/**
 * A hash as one number below 2^53 (for sets of hashes; equal keys give equal numbers).
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param hash - A 64-bit hash.
 * @returns 53 of its bits.
 */
export function hashNumber(hash: TokenHash): number {
  return (hash.hi & 0x1fffff) * 4294967296 + hash.lo;
}

/**
 * The index keys an identity is found under: the identity's own keys, plus for a URL each host's
 * parent domains and for an email its domain and parent domains.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values".
 * @param identity - A destination or field-value identity.
 * @returns The keys.
 */
export function identityKeys(identity: Identity): string[] {
  if (identity.kind === "url") return identity.keys.flatMap(hostSuffixes);
  if (identity.kind === "email") return [identity.id, ...hostSuffixes(identity.domain)];
  if (identity.kind === "string" && /^[@#]/.test(identity.id)) return [identity.id, identity.id.slice(1)];
  return [...identity.keys];
}

/**
 * The tokens written in one argument value, each as it appears there: an address, a host, a
 * handle… — not the domain of an address (`from:bob@evil.example` holds no `evil.example` of its
 * own) nor the parent domains of a host (same span, reported after it).
 */
function ownTokens(canonical: string, add: (key: string) => void): void {
  const addressStart = new Map<number, number>();
  let host = { key: "", start: -1, end: -1 };
  extractTokens(canonical, (key, start, end) => {
    if (isEmailShaped(key)) {
      if ((addressStart.get(end) ?? end) > start) addressStart.set(end, start);
      add(key);
      return;
    }
    if ((addressStart.get(end) ?? end) <= start) return;
    if (start === host.start && end === host.end && host.key.endsWith(`.${key}`)) return;
    host = { key, start, end };
    add(key);
  });
}

/** The echo rule's keys, and {@link hashNumber} of each: a quick test before the exact one. */
export interface EchoKeys {
  readonly keys: ReadonlySet<string>;
  readonly hashes: ReadonlySet<number>;
}

const NO_ECHO_KEYS: EchoKeys = { keys: new Set(), hashes: new Set() };

/**
 * The echo rule's keys (SPEC §2.5: "occurrences of identities that appear in that call's own
 * arguments count as field values at most"): the identities of the arguments' values (their own
 * keys: an address, a URL's hosts, not their parent domains) and the tokens written in them. Made
 * once per output, when its first token is indexed (most small results hold none).
 *
 * Source: SPEC §2.5 "Free text versus field values".
 * @param recorder - The output's recorder.
 * @returns The keys and their hashes (none for output that is not a call's own).
 */
export function echoKeysOf(recorder: Recorder): EchoKeys {
  if (recorder.echo !== undefined) return recorder.echo;
  const args = recorder.echoArguments;
  if (args === undefined) {
    recorder.echo = NO_ECHO_KEYS;
    return NO_ECHO_KEYS;
  }
  const keys = new Set<string>();
  for (const { value } of flattenValue(args, "")) {
    ownTokens(canonicalize(value, { output: true }), (key) => keys.add(key));
    for (const piece of destinationPieces(value)) {
      const identity = identify(piece.raw, piece.canonical);
      const own =
        identity.kind === "url" || identity.kind === "email" ? identity.keys : identityKeys(identity);
      for (const key of own) keys.add(key);
    }
  }
  // A hash scratch of its own: the recorder's holds the token being indexed when this is called.
  const scratch = { lo: 0, hi: 0 };
  const hashes = new Set<number>();
  for (const key of keys) hashes.add(hashNumber(hashSlice(scratch, key)));
  recorder.echo = { keys, hashes };
  return recorder.echo;
}

/**
 * The echo rule's texts: the arguments' values that are no token, of {@link MIN_ECHO_TEXT} units
 * or more, canonical — cut out of the call's own output where the window keeps it.
 *
 * Source: SPEC §2.5 "Free text versus field values".
 */
function echoTextsOf(args: JsonObject | undefined): string[] {
  const texts: string[] = [];
  if (args === undefined) return texts;
  for (const { value } of flattenValue(args, "")) {
    for (const piece of destinationPieces(value)) {
      if (piece.canonical.length < MIN_ECHO_TEXT) continue;
      if (!identify(piece.raw, piece.canonical).token) texts.push(piece.canonical);
    }
  }
  return texts;
}

/**
 * Starts recording one output.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values".
 * @param store - The taint store.
 * @param options - Provenance (a tool name over {@link MAX_EVIDENCE_NAME} code units is cut);
 *   `definition` for tool definitions and instructions; the call's own arguments for the echo rule
 *   (tool results and errors only); `listIndexed` to list new entries.
 * @returns The recorder.
 */
export function createRecorder(
  store: TaintStore,
  options: {
    readonly server: string;
    readonly tool: string;
    readonly seq: number;
    readonly definition: boolean;
    readonly arguments?: JsonObject | undefined;
    /** List the entries new to the store in `Recorder.entries` (default false). */
    readonly listIndexed?: boolean | undefined;
  },
): Recorder {
  return {
    store,
    entries: options.listIndexed === true ? [] : undefined,
    blockKeys: undefined,
    provenance: { server: options.server, tool: evidenceName(options.tool), seq: options.seq },
    definition: options.definition,
    echo: undefined,
    echoArguments: options.arguments,
    echoTexts: echoTextsOf(options.arguments),
    evidenceCache: new Map(),
    pending: [],
    pendingSize: 0,
    hash: { lo: 0, hi: 0 },
    lastIndexed: undefined,
    lastRaw: undefined,
    lastCanonical: "",
  };
}

/**
 * Indexes one occurrence of a key given as a string (field values, echoed identities).
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param recorder - The recorder.
 * @param found - The key and its evidence.
 * @returns Nothing.
 */
export function indexKey(
  recorder: Recorder,
  found: { readonly key: string; readonly evidence: Evidence },
): void {
  const { key } = found;
  recorder.blockKeys?.add(key);
  const hash = hashSlice(recorder.hash, key);
  if (indexHash(recorder.store, { hash, evidence: found.evidence })) {
    recorder.entries?.push({ identity: key, evidence: found.evidence });
  }
}
