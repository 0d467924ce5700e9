/**
 * The evidence records of a taint store (SPEC §2.5 "Index, not rescans"): each indexed token points
 * to the record of the output, occurrence kind and field key it was first seen in, by id. The
 * upstream decides how many records there are, so the store keeps a bounded number. Pure.
 * @module
 */

import type { TaintStore } from "./taint-index.ts";
import type { Evidence } from "./types.ts";

/**
 * Evidence records a store keeps at most. Each is ~160 bytes and the upstream decides how many
 * there are (one per output, occurrence kind and field key that brings a new token: a result with
 * thousands of destination-shaped keys makes thousands), so past it later records are not kept.
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.3 (fail closed), §7 (memory).
 */
export const MAX_EVIDENCE_RECORDS = 65_536;

/**
 * Characters of the tool names and field keys (UTF-16 code units) of the evidence records a store
 * keeps, at most: names are the upstream's (a tool definition's name, up to 1,024 kept).
 *
 * Source: SPEC §2.5 "Index, not rescans", §3.3 (fail closed), §7 (memory).
 */
export const MAX_EVIDENCE_CHARS = 4 * 1024 * 1024;

/**
 * The id of an evidence record, added to the store on first use. Once {@link MAX_EVIDENCE_RECORDS}
 * records are kept, or their names would pass {@link MAX_EVIDENCE_CHARS}, later ones are not: their
 * tokens get the id of one overflow record per occurrence kind (the first such record of that kind),
 * so their taint and its kind are recorded exactly and only their provenance is approximate.
 *
 * Source: SPEC §2.5 "Index, not rescans", §7 (memory).
 * @param store - The taint store.
 * @param evidence - The record (shared by the tokens of one output and kind).
 * @returns Its id.
 */
export function evidenceId(store: TaintStore, evidence: Evidence): number {
  const known = store.evidenceIds.get(evidence);
  if (known !== undefined) return known;
  const chars = evidence.tool.length + (evidence.field?.length ?? 0);
  const kept = store.evidence.length - store.overflowIds.size;
  if (kept >= MAX_EVIDENCE_RECORDS || store.evidenceChars + chars > MAX_EVIDENCE_CHARS) {
    // Later tokens share a record of their own kind: the sink gate reads the kind from the record,
    // so a free-text token must never get a field record's id.
    let reserved = store.overflowIds.get(evidence.kind);
    if (reserved === undefined) {
      reserved = store.evidence.length;
      store.evidence.push(evidence);
      store.overflowIds.set(evidence.kind, reserved);
    }
    return reserved;
  }
  const id = store.evidence.length;
  store.evidence.push(evidence);
  store.evidenceIds.set(evidence, id);
  store.evidenceChars += chars;
  return id;
}
