/**
 * The evidence records one output's tokens point to (SPEC §2.5 "Untrusted text, recorded", §2.1
 * evidence): one per occurrence kind and field key, shared by all the output's tokens; output no call
 * produced shares bounded records per server, method, kind and field; the tool name they keep is
 * cut. Pure.
 * @module
 */

import type { Recorder } from "./recorder-state.ts";
import type { Evidence } from "./types.ts";

/**
 * Shared evidence records of output no call produced that a store keeps, one per server, method,
 * kind and field key, all names the upstream chooses (SPEC §2.5 "Untrusted text, recorded"). Past
 * it, and for a key longer than {@link MAX_SHARED_KEY}, such output shares one record per server
 * and occurrence kind.
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (cost must not grow with the session).
 */
export const MAX_SHARED_EVIDENCE = 4096;

/** Characters of a shared record's key (server, method, kind, field) kept in the map at most. */
const MAX_SHARED_KEY = 512;

/**
 * UTF-16 code units of the tool name (or method) an output's evidence keeps, at most: the name is
 * the upstream's (a definition's, a notification's method), and every record and window segment of
 * the output holds it. A question shows 200 characters of it, so what it shows is unchanged.
 *
 * Source: SPEC §3.4 (untrusted strings cut at 200 characters), §7 (memory).
 */
export const MAX_EVIDENCE_NAME = 1024;

/**
 * A name cut to {@link MAX_EVIDENCE_NAME} code units (never inside a surrogate pair), as a string
 * of its own: a slice could keep the whole name alive.
 *
 * Source: SPEC §3.4 (untrusted strings cut at 200 characters), §7 (memory).
 * @param name - A tool name or method, as the upstream gives it.
 * @returns The name, cut.
 */
export function evidenceName(name: string): string {
  if (name.length <= MAX_EVIDENCE_NAME) return name;
  const high = name.charCodeAt(MAX_EVIDENCE_NAME - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? MAX_EVIDENCE_NAME - 1 : MAX_EVIDENCE_NAME;
  return JSON.parse(JSON.stringify(name.slice(0, end))) as string;
}

/**
 * The evidence record of this output for one kind (and field key), shared by all its tokens.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", §2.1 (evidence).
 * @param recorder - The recorder.
 * @param kind - The occurrence kind (a definition's occurrences are always definitions).
 * @param field - The destination-shaped key of a field value (cut to 100 characters).
 * @returns The record.
 */
export function evidence(recorder: Recorder, kind: Evidence["kind"], field?: string): Evidence {
  const actual: Evidence["kind"] = recorder.definition ? "definition" : kind;
  const cut = field === undefined || actual !== "field" ? undefined : field.slice(0, 100);
  const cacheKey = cut === undefined ? actual : `${actual}\u0000${cut}`;
  let found = recorder.evidenceCache.get(cacheKey);
  if (found === undefined) {
    const { provenance } = recorder;
    // Output no call produced (seq 0) shares one record per server, method, kind and field.
    found =
      provenance.seq === 0
        ? sharedRecord(recorder, actual, cut)
        : cut === undefined
          ? { ...provenance, kind: actual }
          : { ...provenance, kind: actual, field: JSON.parse(JSON.stringify(cut)) as string };
    recorder.evidenceCache.set(cacheKey, found);
  }
  return found;
}

/**
 * The shared record of output no call produced, for one kind and field key. The keys are names the
 * upstream chooses, so the map is bounded: past {@link MAX_SHARED_EVIDENCE} records (or for a key
 * too long to keep), the output shares its server's overflow record of that kind — the first such
 * output's, without its field key. Tokens are still indexed under their own kind, so taint and
 * "seen" are decided exactly (a free-text token still denies); only the provenance the evidence
 * shows is approximate, as past the store's record limit (`evidenceId`).
 */
function sharedRecord(recorder: Recorder, kind: Evidence["kind"], field: string | undefined): Evidence {
  const { provenance, store } = recorder;
  const shared = store.sharedEvidence;
  const key = JSON.stringify([provenance.server, provenance.tool, kind, field ?? null]);
  const found = shared.get(key);
  if (found !== undefined) return found;
  const base = { ...provenance, kind };
  if (key.length <= MAX_SHARED_KEY && shared.size < MAX_SHARED_EVIDENCE) {
    const made = field === undefined ? base : { ...base, field: JSON.parse(JSON.stringify(field)) as string };
    shared.set(key, made);
    return made;
  }
  // Two members, where kept keys have four: the overflow records never meet a kept one.
  const overflowKey = JSON.stringify([provenance.server, kind]);
  let overflow = store.sharedOverflow.get(overflowKey);
  if (overflow === undefined) {
    overflow = base;
    store.sharedOverflow.set(overflowKey, overflow);
  }
  return overflow;
}
