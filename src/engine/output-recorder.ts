/**
 * Records the strings of one untrusted output into the taint store (SPEC §2.5): tokens into the
 * index with their kind and provenance, text into the window, the echo rule applied. Used by
 * `recordOutput`, which decides which strings are field values and which are free text. Pure.
 * @module
 */

import { canonicalize } from "./canonical.ts";
import { destinationPieces, flattenValue } from "./destinations.ts";
import { type Identity, identify } from "./identity.ts";
import {
  hasOccurrence,
  type IndexEntry,
  indexToken,
  type TaintStore,
  type TokenOccurrence,
} from "./taint-index.ts";
import { appendSegment, SCALAR_BREAK } from "./text-window.ts";
import { extractTokens, hostSuffixes } from "./tokens.ts";
import type { Evidence, JsonObject } from "./types.ts";

/** Free text is canonicalised and scanned in slices of about this many UTF-16 code units. */
const SLICE_UNITS = 256 * 1024;
/** Characters of context kept on each side of a free-text occurrence. */
const EXCERPT_SIDE = 40;
/** Echoed argument values shorter than this stay in the window (too common to cut out). */
const MIN_ECHO_TEXT = 6;
/** A field value that may hold several identities (an address list, a `mailto:`, `Name <addr>`). */
const MAY_SPLIT = /[,;?<]/;

/**
 * What one output's recording needs: where it came from, and how its occurrences count.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values".
 */
export interface Recorder {
  readonly store: TaintStore;
  /** Index entries new to the store (for cross-server sharing, SPEC §3.7). */
  readonly entries: IndexEntry[];
  /** Index keys met in the current text block (JSON duplicate-key cross-check). */
  blockKeys: Set<string> | undefined;
  readonly provenance: { readonly server: string; readonly tool: string; readonly seq: number };
  /** Tool definitions and instructions: every occurrence is a definition occurrence. */
  readonly definition: boolean;
  readonly echoKeys: ReadonlySet<string>;
  readonly echoTexts: readonly string[];
  readonly evidenceCache: Map<string, Evidence>;
  /** Free scalars of structured output waiting to be scanned together. */
  pending: string[];
  pendingSize: number;
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

/** A URL's scheme and authority in canonical text: what its own identity is made of. */
const URL_AUTHORITY = /^(?:[a-z][a-z0-9+.-]*:)?(?:\/\/)?[^/?#\\]*/;

/**
 * The token keys that are part of one whole identity (an address's local part read as a host, a
 * URL's host): for a URL only its scheme and authority, so an address or host in its path, query or
 * fragment stays a token of its own (free text: its identity is not the field value's).
 */
function partKeys(identity: Identity, canonical: string): Set<string> {
  const keys = new Set(identityKeys(identity));
  const own = identity.kind === "url" ? (URL_AUTHORITY.exec(canonical)?.[0] ?? "") : canonical;
  extractTokens(own, (key) => keys.add(key));
  return keys;
}

function echoOf(args: JsonObject | undefined): { keys: Set<string>; texts: string[] } {
  const keys = new Set<string>();
  const texts: string[] = [];
  if (args === undefined) return { keys, texts };
  for (const { value } of flattenValue(args, "")) {
    extractTokens(canonicalize(value, { output: true }), (key) => keys.add(key));
    for (const piece of destinationPieces(value)) {
      const identity = identify(piece.raw, piece.canonical);
      for (const key of identityKeys(identity)) keys.add(key);
      if (!identity.token && piece.canonical.length >= MIN_ECHO_TEXT) texts.push(piece.canonical);
    }
  }
  return { keys, texts };
}

/**
 * Starts recording one output.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values".
 * @param store - The taint store.
 * @param options - Provenance; `definition` for tool definitions and instructions; the call's own
 *   arguments for the echo rule (tool results and errors only).
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
  },
): Recorder {
  const echo = echoOf(options.arguments);
  return {
    store,
    entries: [],
    blockKeys: undefined,
    provenance: { server: options.server, tool: options.tool, seq: options.seq },
    definition: options.definition,
    echoKeys: echo.keys,
    echoTexts: echo.texts,
    evidenceCache: new Map(),
    pending: [],
    pendingSize: 0,
  };
}

function evidence(recorder: Recorder, kind: Evidence["kind"], field?: string): Evidence {
  const actual: Evidence["kind"] = recorder.definition ? "definition" : kind;
  const cut = field === undefined || actual !== "field" ? undefined : field.slice(0, 100);
  const cacheKey = `${actual}\u0000${cut ?? ""}`;
  let found = recorder.evidenceCache.get(cacheKey);
  if (found === undefined) {
    const base = { ...recorder.provenance, kind: actual };
    found = cut === undefined ? base : { ...base, field: JSON.parse(JSON.stringify(cut)) as string };
    recorder.evidenceCache.set(cacheKey, found);
  }
  return found;
}

function index(recorder: Recorder, found: TokenOccurrence): void {
  const { key } = found;
  recorder.blockKeys?.add(key);
  if (indexToken(recorder.store, found)) recorder.entries.push({ identity: key, evidence: found.evidence });
}

/** Indexes every token of a canonical text as free text (or field, for echoed identities). */
function indexFreeTokens(recorder: Recorder, text: string, covered?: ReadonlySet<string>): void {
  const kind = recorder.definition ? "definition" : "free_text";
  extractTokens(text, (key, start, end) => {
    if (covered?.has(key) === true) return;
    if (recorder.echoKeys.has(key)) {
      index(recorder, { key, evidence: evidence(recorder, "field") });
      return;
    }
    recorder.blockKeys?.add(key);
    if (hasOccurrence(recorder.store, { key, kind })) return;
    if (kind !== "free_text") {
      index(recorder, { key, evidence: evidence(recorder, kind) });
      return;
    }
    // The excerpt stays inside the scalar that held the token.
    const before = text.slice(Math.max(0, start - EXCERPT_SIDE), start);
    const after = text.slice(end, end + EXCERPT_SIDE);
    const left = before.slice(before.lastIndexOf(SCALAR_BREAK) + 1);
    const right = after.includes(SCALAR_BREAK) ? after.slice(0, after.indexOf(SCALAR_BREAK)) : after;
    const excerpt = `${left}${text.slice(start, end)}${right}`.trim();
    index(recorder, { key, evidence: evidence(recorder, kind), excerpt });
  });
}

/**
 * Records canonical free text: its tokens as free text, the text into the window (echoed argument
 * values cut out of the call's own result).
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values".
 * @param recorder - The recorder.
 * @param canonical - Canonical output text.
 * @returns Nothing.
 */
export function recordCanonicalFree(recorder: Recorder, canonical: string): void {
  indexFreeTokens(recorder, canonical);
  let text = canonical;
  for (const echoed of recorder.echoTexts) if (text.includes(echoed)) text = text.replaceAll(echoed, " ");
  appendSegment(recorder.store.window, { text, meta: evidence(recorder, "free_text") });
}

/**
 * Records raw free text (any size): canonicalised and scanned in slices cut at whitespace.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values".
 * @param recorder - The recorder.
 * @param raw - Untrusted text as the upstream sent it.
 * @returns Nothing.
 */
export function recordFreeText(recorder: Recorder, raw: string): void {
  let start = 0;
  while (start < raw.length) {
    let end = Math.min(raw.length, start + SLICE_UNITS);
    if (end < raw.length) {
      const space = raw.slice(end - 4096, end).search(/\s\S*$/);
      if (space !== -1) end = end - 4096 + space + 1;
    }
    recordCanonicalFree(recorder, canonicalize(raw.slice(start, end), { output: true }));
    start = end;
  }
}

/**
 * Queues one free scalar of structured output; queued scalars are scanned together, separated by a
 * break no token or window match crosses.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values".
 * @param recorder - The recorder.
 * @param raw - The scalar or key as the upstream sent it.
 * @returns Nothing.
 */
export function queueFreeScalar(recorder: Recorder, raw: string): void {
  recorder.pending.push(raw);
  recorder.pendingSize += raw.length + 1;
  if (recorder.pendingSize >= SLICE_UNITS) flushFreeScalars(recorder);
}

/**
 * Scans the queued free scalars.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values".
 * @param recorder - The recorder.
 * @returns Nothing.
 */
export function flushFreeScalars(recorder: Recorder): void {
  if (recorder.pending.length === 0) return;
  const joined = recorder.pending.map((raw) => canonicalize(raw, { output: true })).join(SCALAR_BREAK);
  recorder.pending = [];
  recorder.pendingSize = 0;
  recordCanonicalFree(recorder, joined);
}

/**
 * Records one whole field value (a scalar or key in field position, or the value of a `Key: value`
 * line): each identity it holds (an address list is split) is a field occurrence under `key`; any
 * token inside it that is not one of those identities is free text.
 *
 * Source: SPEC §2.5 "Free text versus field values".
 * @param recorder - The recorder.
 * @param raw - The field value as the upstream sent it.
 * @param options - `key`: the destination-shaped key it stood under, if any.
 * @returns Nothing.
 */
export function recordFieldValue(
  recorder: Recorder,
  raw: string,
  options: { readonly key?: string | undefined } = {},
): void {
  const { key } = options;
  const canonical = canonicalize(raw, { output: true });
  if (canonical === "") return;
  const found = evidence(recorder, "field", key);
  if (!MAY_SPLIT.test(canonical)) {
    const identity = identify(raw.trim(), canonical);
    if (!identity.token) {
      appendSegment(recorder.store.window, { text: canonical, meta: found });
      indexFreeTokens(recorder, canonical);
      return;
    }
    // One whole token identity: its keys are this field value; shapes inside it are part of it.
    for (const key of identityKeys(identity)) index(recorder, { key, evidence: found });
    const covered = partKeys(identity, canonical);
    for (const k of covered) recorder.blockKeys?.add(k);
    indexFreeTokens(recorder, canonical, covered);
    return;
  }
  const covered = new Set<string>();
  const pieces = destinationPieces(canonical);
  let whole = false;
  for (const piece of pieces) {
    const identity = identify(pieces.length === 1 ? raw.trim() : piece.raw, piece.canonical);
    whole ||= piece.canonical === canonical;
    if (!identity.token) {
      appendSegment(recorder.store.window, { text: piece.canonical, meta: found });
      continue;
    }
    for (const key of identityKeys(identity)) index(recorder, { key, evidence: found });
    // Shapes inside one whole identity (an address's local part read as a host) are part of it.
    for (const k of partKeys(identity, piece.canonical)) covered.add(k);
  }
  for (const k of covered) recorder.blockKeys?.add(k);
  indexFreeTokens(recorder, canonical, covered);
  if (!whole)
    appendSegment(recorder.store.window, { text: canonical, meta: evidence(recorder, "free_text") });
}
