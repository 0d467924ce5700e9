/**
 * The edges of an excerpt of untrusted output: an excerpt keeps up to 40 characters on each side of
 * an occurrence, and where that limit falls inside a word of token characters the part of the word
 * is left out. A token
 * cut at the edge (`ghp_abcdefghijklmnopqrstuvwxyz` of a 40-character token, or its last 26
 * characters at the start) would show most of a secret in a shape that no token pattern recognises
 * any more; left out, it shows nothing. A field whose name the start's cut halves or drops
 * (`…db_password: Hunt3r…`, `…_api_key = Hunt3r…`) has its value left out with it: without its name
 * no rule would know the value for a secret. Pure.
 *
 * Source: SPEC §3.5 ("token-shaped strings … in `evidence` and `reason` are redacted"), §2.1
 * (evidence excerpts).
 * @module
 */

/** Characters of context an excerpt keeps on each side of an occurrence, at most. */
export const EXCERPT_SIDE = 40;

/**
 * Whether a code unit can be part of a token: an ASCII letter or digit, or one of `_-.+/=~` (tokens
 * are ASCII: base64, JWT, URL-safe). Anything else ends a word, so an excerpt of text without spaces
 * (Chinese, Japanese) keeps its context.
 */
function inToken(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x2d && c <= 0x39) || // - . / and digits
    c === 0x5f ||
    c === 0x2b ||
    c === 0x3d ||
    c === 0x7e
  );
}

/**
 * Where an excerpt starts when it is cut at `from` (the text goes on before it): after the word the
 * cut falls in (a run of token characters), or at the occurrence itself when that word reaches it.
 *
 * Source: SPEC §3.5.
 * @param text - The text the excerpt is cut from.
 * @param from - The cut (a UTF-16 offset; `text[from - 1]` exists and is shown no more).
 * @param start - Where the occurrence starts (`from <= start`).
 * @returns The offset the excerpt starts at, between `from` and `start`.
 */
export function startAfterCutWord(text: string, from: number, start: number): number {
  if (from <= 0 || !inToken(text.charCodeAt(from - 1))) return from;
  let at = from;
  while (at < start && inToken(text.charCodeAt(at))) at += 1;
  return afterCutField(text, at, start);
}

/** A space or a tab. */
function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** A quote or a backslash (the quotes around a JSON name, `\"` inside a JSON string). */
function isQuoting(c: number): boolean {
  return c === 0x22 || c === 0x27 || c === 0x5c;
}

/**
 * Where an excerpt starts after a cut word that may have been a field's name: when a `:` or `=`
 * follows it (after its closing quotes and blanks: `password": "…"`, `api_key = …`), after the
 * field's value too — a quoted string to its closing quote, or a word of token characters. Else,
 * or when the occurrence comes first, where the cut word ended.
 *
 * Source: SPEC §3.5 (secret-named values in `evidence` are redacted); review s18 finding A1 (the
 * value of a field whose name the edge cut was written in clear).
 * @param text - The text the excerpt is cut from.
 * @param at - Where the cut word ends.
 * @param start - Where the occurrence starts (`at <= start`).
 * @returns The offset the excerpt starts at, between `at` and `start`.
 */
function afterCutField(text: string, at: number, start: number): number {
  let i = at;
  while (i < start && isQuoting(text.charCodeAt(i))) i += 1;
  while (i < start && isBlank(text.charCodeAt(i))) i += 1;
  const separator = text.charCodeAt(i);
  if (i >= start || (separator !== 0x3a && separator !== 0x3d)) return at;
  i += 1;
  while (i < start && isBlank(text.charCodeAt(i))) i += 1;
  while (i < start && text.charCodeAt(i) === 0x5c) i += 1;
  const quote = text.charCodeAt(i);
  if (i < start && (quote === 0x22 || quote === 0x27)) {
    const close = text.indexOf(text.charAt(i), i + 1);
    return close === -1 || close >= start ? start : close + 1;
  }
  while (i < start && inToken(text.charCodeAt(i))) i += 1;
  return i;
}

/**
 * Where an excerpt ends when it is cut at `to` (the text goes on after it): before the word the cut
 * falls in, or at the end of the occurrence when that word reaches it.
 *
 * Source: SPEC §3.5.
 * @param text - The text the excerpt is cut from.
 * @param to - The cut (an offset; `text[to]` exists and is shown no more).
 * @param end - Where the occurrence ends (`end <= to`).
 * @returns The offset the excerpt ends at, between `end` and `to`.
 */
export function endBeforeCutWord(text: string, to: number, end: number): number {
  if (to >= text.length || !inToken(text.charCodeAt(to))) return to;
  let at = to;
  while (at > end && inToken(text.charCodeAt(at - 1))) at -= 1;
  return at;
}
