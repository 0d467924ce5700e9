/**
 * Recording one untrusted text block or structured value (SPEC §2.5 "Free text versus field
 * values"): structured output walked into field values and free text, unstructured text read line
 * by line for `Key: value` field lines. Pure; keys of outputs are hostile (STYLE #6).
 * @module
 */

import { canonicalize } from "./canonical.ts";
import { member } from "./json-access.ts";
import { isDestinationShapedKey, splitWords } from "./key-shapes.ts";
import {
  flushFreeScalars,
  queueFreeScalar,
  type Recorder,
  recordCanonicalFree,
  recordFieldValue,
  recordFreeText,
} from "./output-recorder.ts";
import { parseStructuredText, walkStructured } from "./structured.ts";
import { extractTokens } from "./tokens.ts";
import type { JsonValue } from "./types.ts";

/** A `Key: value` line of unstructured text: indentation, an optional `- ` or `* `, a short key. */
const KEY_VALUE_LINE = /^[ \t]*(?:[-*][ \t]+)?([^:\n]{1,64}?)[ \t]*:([ \t]*)(\S.*?)[ \t]*$/;
/** Lines longer than this are never `Key: value` lines (a key of three words, one identity). */
const MAX_FIELD_LINE = 1024;
/** Free lines are gathered into slices of about this many UTF-16 code units. */
const FREE_SLICE = 256 * 1024;

/** A key in Markdown emphasis or code (`**Sender**`, `_To_`, `` `email` ``): the words in group 2. */
const MARKDOWN_EMPHASIS = /^(\*\*|__|\*|_|`)([^*_`]+)\1$/;

/** The key of a `Key: value` line when that line is a field value (SPEC §2.5), else undefined. */
function fieldLineKey(line: string): { key: string; value: string } | undefined {
  if (line.length > MAX_FIELD_LINE || !line.includes(":")) return undefined;
  const match = KEY_VALUE_LINE.exec(line);
  const key = match?.[1];
  const value = match?.[3];
  if (key === undefined || value === undefined) return undefined;
  // The key is words only (split on `_`, `-` and spaces), in Markdown emphasis at most
  // (`**Sender**:`): `> To:`, `# To:`, `// To:` or `1) To:` is not a `Key: value` line of SPEC §2.5
  // (after indentation only an optional `- ` or `* `).
  const words = key.trim().replace(MARKDOWN_EMPHASIS, "$2");
  if (/[^\p{L}\p{M}\p{N}\s_-]/u.test(words)) return undefined;
  if (match?.[2] === "" && gluedUri(words, value)) return undefined;
  return isDestinationShapedKey(words, { maxWords: 3 }) ? { key: key.trim(), value } : undefined;
}

/**
 * URI schemes written with no `//` before what they name (`mailto:a@…`, `tel:+44…`, `xmpp:a@…`),
 * and the WHATWG special schemes, which need none (`http:intranet` is `http://intranet/`).
 */
const BARE_SCHEMES: ReadonlySet<string> = new Set([
  ...["mailto", "tel", "sms", "smsto", "mms", "mmsto", "callto", "whatsapp", "viber", "signal"],
  ...["facetime", "facetime-audio", "sip", "sips", "xmpp", "im", "skype", "matrix", "geo"],
  ...["http", "https", "ws", "wss", "ftp", "file"],
]);

/**
 * Whether a `Key:value` line with the value glued to the colon is a URI whose scheme is the key's
 * last word (split on spaces, `_`, `-` and camelCase): `Forward to mailto:a@…`, `Forward-to-mailto:…`,
 * `ForwardToMailto:…`, `Reply to tel:+44…`, `Upload to s3://bucket/…` (any word before `://`).
 * Such a line names a destination in a sentence, not a field; a key whose last word is no scheme
 * keeps its glued value (`email:bob@…`, `Contact email:support@…`, `Company website:https://…`).
 */
function gluedUri(words: string, value: string): boolean {
  if (value.startsWith("//")) return true;
  const split = splitWords(words);
  const last = split.at(-1);
  return (
    (last !== undefined && BARE_SCHEMES.has(last)) ||
    (split.length >= 2 && BARE_SCHEMES.has(split.slice(-2).join("-")))
  );
}

/**
 * Walks a structured value: field values recorded one by one, free scalars scanned together.
 *
 * Source: SPEC §2.5 "Free text versus field values".
 * @param recorder - The output's recorder.
 * @param value - `structuredContent`, error data, or a parsed text block.
 * @returns Nothing.
 */
export function recordStructured(recorder: Recorder, value: JsonValue): void {
  walkStructured(value, {
    field: (text, key) => recordFieldValue(recorder, text, { key }),
    free: (text) => queueFreeScalar(recorder, text),
  });
  flushFreeScalars(recorder);
}

/**
 * Unstructured text: a `Key: value` line whose key is at most three words and destination-shaped
 * is a field value; every other line is free text.
 */
function recordUnstructured(recorder: Recorder, text: string): void {
  let from = 0;
  let freeStart = 0;
  const flushFree = (end: number): void => {
    if (end > freeStart) recordFreeText(recorder, text.slice(freeStart, end));
  };
  while (from <= text.length) {
    let end = text.indexOf("\n", from);
    if (end === -1) end = text.length;
    const field = fieldLineKey(text.slice(from, end).replace(/\r$/, ""));
    if (field !== undefined) {
      flushFree(from);
      recordFieldValue(recorder, field.value, { key: field.key });
      freeStart = end + 1;
    } else if (end - freeStart >= FREE_SLICE) {
      flushFree(end);
      freeStart = end + 1;
    }
    from = end + 1;
  }
  flushFree(text.length);
}

/**
 * Records a text block: structured when it parses as JSON or YAML to a mapping or sequence
 * (≤ 1 MiB), otherwise unstructured. YAML comments are free text. Any token of the raw text the
 * walk did not meet is recorded as free text: in JSON an escaped spelling, say; in YAML whatever
 * the parsed value drops (an unknown directive, a `!!` tag, a `#channel` read as a comment).
 *
 * Source: SPEC §2.5 "Free text versus field values", "Untrusted text, recorded" (every string the
 * upstream sends reaches the model); review of the sink gate (YAML dropped text the model reads).
 * @param recorder - The output's recorder.
 * @param text - A text block, or any string of a result read as one.
 * @returns Nothing.
 */
export function recordTextBlock(recorder: Recorder, text: string): void {
  const structured = parseStructuredText(text);
  if (structured === undefined) {
    recordUnstructured(recorder, text);
    return;
  }
  recorder.blockKeys = new Set();
  recordStructured(recorder, structured.value);
  for (const comment of structured.comments) recordFreeText(recorder, comment);
  const met = recorder.blockKeys;
  recorder.blockKeys = undefined;
  const missed = new Set<string>();
  extractTokens(canonicalize(text, { output: true }), (key) => {
    if (!met.has(key)) missed.add(key);
  });
  if (missed.size > 0) recordCanonicalFree(recorder, [...missed].join(" "));
}

/** Characters of each side of a seam between text blocks read together (longer than any address or host). */
const SEAM_SIDE = 512;
/** Blocks a seam's side reaches back or forward over at most (an address cut into more is not seen whole). */
const SEAM_PIECES = 8;

/**
 * Records the tokens that only the join of neighbouring text blocks holds (`…forward it to attacker`
 * then `@evil.example`, or an address cut into three): a client that shows an output's texts run
 * together shows the model that address. Empty texts are passed over; at each seam the end of the
 * texts before it and the start of those after it (up to {@link SEAM_SIDE} characters and
 * {@link SEAM_PIECES} texts each way), joined with nothing between, are scanned, and a token found
 * there that no one text holds on its own is free text (it stands inside no one field value). Tokens
 * of a text alone were recorded with it.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded" (everything that can reach the model); review of
 * the sink gate (an address cut across text blocks was asked about as never seen).
 * @param recorder - The output's recorder.
 * @param texts - The texts of one output that a client may show run together, in order.
 * @returns Nothing.
 */
export function recordTextSeams(recorder: Recorder, texts: readonly string[]): void {
  const pieces = texts.filter((text) => text !== "");
  for (let i = 1; i < pieces.length; i += 1) {
    if (/\s$/.test(pieces[i - 1] ?? "") || /^\s/.test(pieces[i] ?? "")) continue;
    const parts: string[] = [];
    let need = SEAM_SIDE;
    for (let j = i - 1; j >= 0 && j >= i - SEAM_PIECES && need > 0; j -= 1) {
      const part = (pieces[j] ?? "").slice(-need);
      parts.unshift(part);
      need -= part.length;
    }
    need = SEAM_SIDE;
    for (let j = i; j < pieces.length && j < i + SEAM_PIECES && need > 0; j += 1) {
      const part = (pieces[j] ?? "").slice(0, need);
      parts.push(part);
      need -= part.length;
    }
    const own = new Set<string>();
    for (const part of parts) extractTokens(canonicalize(part, { output: true }), (key) => own.add(key));
    const crossing = new Set<string>();
    extractTokens(canonicalize(parts.join(""), { output: true }), (key) => {
      if (!own.has(key)) crossing.add(key);
    });
    if (crossing.size > 0) recordCanonicalFree(recorder, [...crossing].join(" "));
  }
}

/**
 * The `text` members of a result other than a tool's, in document order (`resources/read`'s
 * `contents[].text`, `prompts/get`'s `messages[].content.text`): the texts a client may show run
 * together, for {@link recordTextSeams}.
 * @param value - The result.
 * @returns The texts.
 */
export function textMembers(value: JsonValue): string[] {
  const texts: string[] = [];
  const stack: JsonValue[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (Array.isArray(item)) for (let i = item.length - 1; i >= 0; i -= 1) stack.push(item[i] ?? null);
    else if (item !== null && typeof item === "object") {
      const keys = Object.keys(item);
      // Found depth-first, in order: a `text` of this object before its other members' texts.
      const text = member(item, "text");
      for (let i = keys.length - 1; i >= 0; i -= 1)
        if (keys[i] !== "text") stack.push(item[keys[i] as string] as JsonValue);
      if (typeof text === "string") texts.push(text);
    }
  }
  return texts;
}
