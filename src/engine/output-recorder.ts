/**
 * Records the strings of one untrusted output into the taint store (SPEC §2.5): tokens into the
 * index with their kind and provenance, text into the window, the echo rule applied. Used by
 * `recordOutput`, which decides which strings are field values and which are free text. Pure.
 * @module
 */

import { canonicalize } from "./canonical.ts";
import { destinationPieces } from "./destinations.ts";
import { indexFreeTokens } from "./free-tokens.ts";
import { type Identity, identify } from "./identity.ts";
import { evidence } from "./output-evidence.ts";
import { otherReadings } from "./readings.ts";
import { createRecorder, identityKeys, indexKey, type Recorder } from "./recorder-state.ts";
import { appendSegment, SCALAR_BREAK } from "./text-window.ts";
import { extractTokens } from "./tokens.ts";

export type { Recorder };
export { createRecorder, identityKeys };

/** Free text is canonicalised and scanned in slices of about this many UTF-16 code units. */
const SLICE_UNITS = 256 * 1024;
/** How far back a slice cut at no whitespace is scanned again (longer than any address or host). */
const SLICE_OVERLAP = 4096;
/** A field value that may hold several identities (an address list, a `mailto:`, `Name <addr>`). */
const MAY_SPLIT = /[,;?<]/;

/** A URL's scheme and authority in canonical text: what its own identity is made of. */
const URL_AUTHORITY = /^(?:[a-z][a-z0-9+.-]*:)?(?:\/\/)?[^/?#\\]*/;

/**
 * The token keys that are part of one whole identity (an address's local part read as a host, a
 * URL's host): for a URL only its scheme and authority, so an address or host in its path, query or
 * fragment stays a token of its own (free text: its identity is not the field value's).
 */
function partKeys(identity: Identity, canonical: string): Set<string> {
  const keys = new Set(identityKeys(identity));
  const own = identity.kind === "url" ? withoutUserinfo(URL_AUTHORITY.exec(canonical)?.[0] ?? "") : canonical;
  extractTokens(own, (key) => keys.add(key));
  return keys;
}

/**
 * A URL's scheme and authority without its userinfo (`https://attacker@evil.example` →
 * `https://evil.example`): the userinfo is not the URL's identity (its origin), so an address or
 * host written there is an occurrence inside a longer string — free text (SPEC §2.5).
 * @param authority - The scheme and authority, as {@link URL_AUTHORITY} finds them.
 * @returns It without everything up to its last `@`.
 */
function withoutUserinfo(authority: string): string {
  const at = authority.lastIndexOf("@");
  if (at === -1) return authority;
  const slashes = authority.indexOf("//");
  return `${slashes === -1 || slashes > at ? "" : authority.slice(0, slashes + 2)}${authority.slice(at + 1)}`;
}

/**
 * The canonical form of output text, remembered for the last text of this output: a result's text
 * mirrored in its `structuredContent` is canonicalised once (`canonicalize` is a pure function).
 * @param recorder - The recorder.
 * @param raw - Untrusted text as the upstream sent it.
 * @returns `canonicalize(raw, { output: true })`.
 */
function canonicalOutput(recorder: Recorder, raw: string): string {
  if (raw === recorder.lastRaw) return recorder.lastCanonical;
  const canonical = canonicalize(raw, { output: true });
  recorder.lastRaw = raw;
  recorder.lastCanonical = canonical;
  return canonical;
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
  // The same text as the last one indexed adds nothing to the index (see `Recorder.lastIndexed`),
  // unless a text block's keys are being gathered (`blockKeys`): those it must still meet.
  if (recorder.blockKeys !== undefined || canonical !== recorder.lastIndexed) {
    indexFreeTokens(recorder, canonical);
    recorder.lastIndexed = canonical;
  }
  let text = canonical;
  for (const echoed of recorder.echoTexts) if (text.includes(echoed)) text = text.replaceAll(echoed, " ");
  appendSegment(recorder.store.window, { text, meta: evidence(recorder, "free_text") });
}

/**
 * Records raw free text (any size): canonicalised and scanned in slices cut at whitespace where
 * there is some near the cut. Every slice after the first starts {@link SLICE_OVERLAP} units before
 * the previous one ended, so a token cut there — at no whitespace, or at one of its own spaces (a
 * phone number, an IBAN) — is seen whole in the next slice (a token seen twice, or cut, only adds
 * taint). A slice holding backslash escapes (`attacker\u0040evil.example`) or hidden control
 * characters has the tokens of its other readings (`readings.ts`) indexed too (the window keeps the
 * text as sent, once).
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
      const space = raw.slice(end - SLICE_OVERLAP, end).search(/\s\S*$/);
      if (space !== -1) end = end - SLICE_OVERLAP + space + 1;
    }
    const slice = raw.slice(start, end);
    recordCanonicalFree(recorder, canonicalOutput(recorder, slice));
    // Decoded, only its tokens are indexed: ordinary JSON text holds `\n` and `\"` everywhere, and
    // a second copy in the window would halve how far back the window reaches.
    for (const reading of otherReadings(slice))
      indexFreeTokens(recorder, canonicalize(reading, { output: true }));
    start = end < raw.length ? end - SLICE_OVERLAP : end;
  }
}

/**
 * Queues one free scalar of structured output; queued scalars are scanned together, separated by a
 * break no token or window match crosses. A scalar holding backslash escapes or hidden control
 * characters is queued in its other readings too (`readings.ts`).
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values".
 * @param recorder - The recorder.
 * @param raw - The scalar or key as the upstream sent it.
 * @returns Nothing.
 */
export function queueFreeScalar(recorder: Recorder, raw: string): void {
  recorder.pending.push(raw);
  recorder.pendingSize += raw.length + 1;
  for (const reading of otherReadings(raw)) {
    recorder.pending.push(reading);
    recorder.pendingSize += reading.length + 1;
  }
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
  const joined = recorder.pending.map((raw) => canonicalOutput(recorder, raw)).join(SCALAR_BREAK);
  recorder.pending = [];
  recorder.pendingSize = 0;
  recordCanonicalFree(recorder, joined);
}

/**
 * Records one whole field value (a scalar or key in field position, or the value of a `Key: value`
 * line): each identity it holds (an address list is split) is a field occurrence under `key`; any
 * token inside it that is not one of those identities is free text. A value holding backslash
 * escapes or hidden control characters is recorded again in each of its other readings
 * (`readings.ts`), under the same key.
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
  recordOneFieldValue(recorder, raw, options.key);
  for (const reading of otherReadings(raw)) recordOneFieldValue(recorder, reading, options.key);
}

function recordOneFieldValue(recorder: Recorder, raw: string, key: string | undefined): void {
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
    for (const key of identityKeys(identity)) indexKey(recorder, { key, evidence: found });
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
    for (const key of identityKeys(identity)) indexKey(recorder, { key, evidence: found });
    // Shapes inside one whole identity (an address's local part read as a host) are part of it.
    for (const k of partKeys(identity, piece.canonical)) covered.add(k);
  }
  for (const k of covered) recorder.blockKeys?.add(k);
  indexFreeTokens(recorder, canonical, covered);
  if (!whole)
    appendSegment(recorder.store.window, { text: canonical, meta: evidence(recorder, "free_text") });
}
