/**
 * Indexing the tokens of canonical free text (SPEC §2.5 "Index, not rescans"): each token is hashed
 * from its place in the text, so a token already indexed costs no string; only a token new to the
 * store gets its key as a string (for the index entries, when they are listed) and, while the
 * excerpt budget lasts, its excerpt. Echoed identities of the call's own arguments count as field
 * values. Pure.
 * @module
 */

import { EXCERPT_SIDE, endBeforeCutWord, startAfterCutWord } from "./excerpt-edges.ts";
import { evidence } from "./output-evidence.ts";
import { type EchoKeys, echoKeysOf, hashNumber, indexKey, type Recorder } from "./recorder-state.ts";
import { indexAbsentHash, kindTable } from "./taint-index.ts";
import { SCALAR_BREAK } from "./text-window.ts";
import type { FoundToken } from "./token-scan.ts";
import { findHash, hashSlice } from "./token-table.ts";
import { scanTokens } from "./tokens.ts";
import type { Evidence } from "./types.ts";

/** {@link SCALAR_BREAK} as a code unit. */
const BREAK = SCALAR_BREAK.charCodeAt(0);

/** What `String.prototype.trim` removes: white space and line terminators. */
function isTrimmed(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * The excerpt of a free-text occurrence: up to 40 characters each side, inside the scalar that held
 * the token, no word cut at an edge (`excerpt-edges.ts`), trimmed — built only when it fits the
 * store's remaining excerpt budget.
 */
function excerptOf(recorder: Recorder, text: string, found: FoundToken): string | undefined {
  const { start, end } = found;
  let from = Math.max(0, start - EXCERPT_SIDE);
  for (let i = start - 1; i >= from; i -= 1) {
    if (text.charCodeAt(i) === BREAK) {
      from = i + 1;
      break;
    }
  }
  let to = Math.min(text.length, end + EXCERPT_SIDE);
  for (let i = end; i < to; i += 1) {
    if (text.charCodeAt(i) === BREAK) {
      to = i;
      break;
    }
  }
  from = startAfterCutWord(text, from, start);
  to = endBeforeCutWord(text, to, end);
  while (from < to && isTrimmed(text.charCodeAt(from))) from += 1;
  while (to > from && isTrimmed(text.charCodeAt(to - 1))) to -= 1;
  return to - from <= recorder.store.excerptBudget ? text.slice(from, to) : undefined;
}

/**
 * A copy of a short string in a buffer of its own. A slice of the text shares the text's buffer and
 * would keep the whole text (up to 256 KiB of canonical output) alive as long as the index entry:
 * through a collection that happens mid-recording, into the old generation.
 */
function detached(key: string): string {
  return key.padEnd(key.length + 1).slice(0, -1);
}

/** The token's key as a string. */
function keyOf(text: string, found: FoundToken): string {
  return found.key ?? text.slice(found.keyStart, found.end);
}

/**
 * Indexes every token of a canonical text as free text (definition text: as definitions), except
 * the keys in `covered` (parts of a field value's own identity); an echoed identity of the call's
 * own arguments as a field value, and so the tokens inside that occurrence of it that end where it
 * ends (the domain of an echoed address: the same domain elsewhere in the text is free text).
 *
 * Source: SPEC §2.5 "Free text versus field values", "Untrusted text, recorded".
 * @param recorder - The recorder.
 * @param text - Canonical text (scalars joined by `SCALAR_BREAK`).
 * @param covered - Keys not to index here.
 * @returns Nothing.
 */
export function indexFreeTokens(recorder: Recorder, text: string, covered?: ReadonlySet<string>): void {
  const { store, hash } = recorder;
  const shared: Evidence = evidence(recorder, recorder.definition ? "definition" : "free_text");
  const table = kindTable(store, shared.kind);
  const excerpts = shared.kind === "free_text";
  const checkCovered = covered !== undefined && covered.size > 0;
  /** The echo keys, looked up at the first token (made then, once per output). */
  let echo: EchoKeys | undefined;
  // Where each echoed token ends → where it starts: a token ending there inside it (the domain of
  // an echoed address, a parent domain of an echoed host) is part of that occurrence.
  const echoed = new Map<number, number>();
  scanTokens(text, (found) => {
    if (found.key === undefined) hashSlice(hash, text, found.keyStart, found.end);
    else hashSlice(hash, found.key);
    if (checkCovered && covered.has(keyOf(text, found))) return;
    echo ??= echoKeysOf(recorder);
    if (echo.hashes.size > 0) {
      const key = echo.hashes.has(hashNumber(hash)) ? keyOf(text, found) : undefined;
      const inside = (echoed.get(found.end) ?? found.end) <= found.start;
      if (inside || (key !== undefined && echo.keys.has(key))) {
        if (!inside) echoed.set(found.end, Math.min(found.start, echoed.get(found.end) ?? found.start));
        indexKey(recorder, { key: key ?? keyOf(text, found), evidence: evidence(recorder, "field") });
        return;
      }
    }
    if (recorder.blockKeys !== undefined) recorder.blockKeys.add(keyOf(text, found));
    // Already indexed — or a different identity whose hash collides: it is tainted here either way,
    // but missing from `entries` (the §3.7 store, when built, must not rely on them alone).
    if (findHash(table, hash) !== -1) return;
    const excerpt = excerpts ? excerptOf(recorder, text, found) : undefined;
    indexAbsentHash(store, { hash, evidence: shared, excerpt });
    recorder.entries?.push({ identity: detached(keyOf(text, found)), evidence: shared });
  });
}
