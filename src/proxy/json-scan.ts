/**
 * Finds where the top-level members of a JSON-RPC message sit in its text, so that a relayed message
 * can keep its original bytes and only its `id` is replaced (ids are remapped in both directions).
 * The text has already passed `JSON.parse`; the scan only walks the top level, jumping over strings
 * with `indexOf` and over nested values with a native regex search. Edge (pure string work).
 *
 * Source: SPEC §3.1 ("Ids are remapped in both directions", "Other messages may be forwarded as their
 * original bytes").
 * @module
 */

/** A half-open character range `[start, end)` of the text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** The top-level members of an object text. */
export interface TopLevel {
  /** Key (decoded) → the span of its value; for a repeated key, the last one (as `JSON.parse` keeps). */
  readonly members: ReadonlyMap<string, Span>;
  /** Whether some top-level key occurs twice. */
  readonly duplicateKey: boolean;
  /** The first top-level key found a second time (decoded), when one was. */
  readonly repeatedKey?: string;
  /** For each top-level key found more than once, the span of its first value (`members` has the last). */
  readonly firstSpans?: ReadonlyMap<string, Span>;
  /** False when the text ended before the object did (only with `partial`). */
  readonly complete: boolean;
  /** The key whose value the text ended in, when it did (only with `partial`; not in `members`). */
  readonly cutKey?: string;
}

const STRUCTURAL = /[{}[\]"]/g;
const SCALAR_END = /[,}\]\s]/g;
/**
 * `{"id":<number or string>,` or `{"jsonrpc":"2.0","id":…,` at the very start: the first or second
 * top-level member of a valid object.
 */
const HEAD_ID =
  /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")(?=\s*[,}])/;
/** `…,"id":<number or string>}` at the very end: the last top-level member of a valid object. */
const TAIL_ID = /[,{]\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * The index just after the string starting at `pos` (`text[pos]` is `"`), or -1 if it never ends.
 * @param text - JSON text.
 * @param pos - Index of the opening quote.
 * @returns Index after the closing quote, or -1.
 */
export function stringEnd(text: string, pos: number): number {
  let from = pos + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    let back = quote - 1;
    while (back > pos && text.charCodeAt(back) === 0x5c) back--;
    if ((quote - 1 - back) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * Skips JSON whitespace.
 * @param text - JSON text.
 * @param pos - Start index.
 * @returns The first non-whitespace index (may be `text.length`).
 */
function skipSpace(text: string, pos: number): number {
  let i = pos;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/**
 * The index after the value starting at `pos`, or -1 when the text ends first.
 * @param text - JSON text.
 * @param pos - Index of the value's first character.
 * @returns End index, or -1.
 */
function valueEnd(text: string, pos: number): number {
  const c = text.charCodeAt(pos);
  if (c === 0x22) return stringEnd(text, pos);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    STRUCTURAL.lastIndex = pos;
    for (;;) {
      const match = STRUCTURAL.exec(text);
      if (match === null) return -1;
      const ch = text.charCodeAt(match.index);
      if (ch === 0x22) {
        const end = stringEnd(text, match.index);
        if (end === -1) return -1;
        STRUCTURAL.lastIndex = end;
      } else if (ch === 0x7b || ch === 0x5b) {
        depth++;
      } else if (--depth === 0) {
        return match.index + 1;
      }
    }
  }
  SCALAR_END.lastIndex = pos;
  const match = SCALAR_END.exec(text);
  return match === null ? text.length : match.index;
}

/**
 * Decodes a key token.
 * @param token - The key with its quotes.
 * @returns The key.
 */
function decodeKey(token: string): string {
  return token.includes("\\") ? (JSON.parse(token) as string) : token.slice(1, -1);
}

/**
 * Scans the top-level members of an object text. With `partial`, a text cut short (the head of an
 * over-long line) yields the members found before the cut.
 *
 * Source: SPEC §3.1.
 * @param text - JSON text (valid, unless `partial`).
 * @param options - `partial` for a truncated text.
 * @returns The members, or undefined when the text is not an object.
 */
export function scanTopLevel(
  text: string,
  options: { readonly partial?: boolean } = {},
): TopLevel | undefined {
  const members = new Map<string, Span>();
  let duplicateKey = false;
  let repeatedKey: string | undefined;
  let firstSpans: Map<string, Span> | undefined;
  const result = (complete: boolean, cutKey?: string): TopLevel => ({
    members,
    duplicateKey,
    ...(repeatedKey === undefined ? {} : { repeatedKey }),
    ...(firstSpans === undefined ? {} : { firstSpans }),
    complete,
    ...(cutKey === undefined ? {} : { cutKey }),
  });
  const cut = (cutKey?: string): TopLevel | undefined =>
    options.partial === true ? result(false, cutKey) : undefined;
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) return result(true);
  for (;;) {
    if (text.charCodeAt(i) !== 0x22) return cut();
    const keyEnd = stringEnd(text, i);
    if (keyEnd === -1) return cut();
    const key = decodeKey(text.slice(i, keyEnd));
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a) return cut();
    const start = skipSpace(text, i + 1);
    const end = start >= text.length ? -1 : valueEnd(text, start);
    if (end === -1) return cut(key);
    const earlier = members.get(key);
    if (earlier !== undefined) {
      duplicateKey = true;
      repeatedKey ??= key;
      firstSpans ??= new Map();
      if (!firstSpans.has(key)) firstSpans.set(key, earlier);
    }
    members.set(key, { start, end });
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 0x7d) return result(true);
    if (c !== 0x2c) return cut();
    i = skipSpace(text, i + 1);
  }
}

/**
 * The span of the top-level `id` value: a fast look at the end of the text first (the SDK writes
 * `id` last), else a top-level scan.
 *
 * Source: SPEC §3.1.
 * @param text - A valid JSON object text.
 * @returns The span, or undefined when there is no top-level `id`.
 */
export function findIdSpan(text: string): Span | undefined {
  const from = Math.max(0, text.length - 256);
  const match = TAIL_ID.exec(from === 0 ? text : text.slice(from));
  if (match?.[1] !== undefined) {
    const valueStart = from + match.index + match[0].indexOf(match[1], match[0].indexOf(":"));
    return { start: valueStart, end: valueStart + match[1].length };
  }
  return scanTopLevel(text)?.members.get("id");
}

/**
 * The span of the top-level `id` value of an object text that repeats no key: a look at its start
 * (`jsonrpc` and `id` first, as many clients write them) and at its end (the TypeScript SDK writes
 * `id` last), else a top-level scan. Only for a text without repeated keys (`repeatsAKey`), where
 * the first `id` is the only one.
 *
 * Source: SPEC §3.1.
 * @param text - A valid JSON object text in which no object repeats a key.
 * @returns The span, or undefined when there is no top-level `id`.
 */
export function findUniqueIdSpan(text: string): Span | undefined {
  const match = HEAD_ID.exec(text);
  const value = match?.[1];
  if (match === null || value === undefined) return findIdSpan(text);
  // The match ends where the value does (the lookahead takes nothing).
  const end = match.index + match[0].length;
  return { start: end - value.length, end };
}

/**
 * Replaces a span of the text.
 * @param text - The original text.
 * @param span - What to replace.
 * @param replacement - The new JSON text for that span.
 * @returns The new text.
 */
export function spliceSpan(text: string, span: Span, replacement: string): string {
  return text.slice(0, span.start) + replacement + text.slice(span.end);
}

/** How many objects one glued line may hold before it is left as noise (a hostile line has many). */
const GLUED_MAX = 64;

/**
 * The texts of two or more JSON objects written one after the other on one line, with nothing but
 * whitespace between them (`{"jsonrpc":…,"id":1,…}{"jsonrpc":…,"id":2,…}`: a server that forgot a
 * newline), else undefined. Only the bounds are found here; each text is parsed by the caller. At
 * most {@link GLUED_MAX} objects; a line that holds anything else between or after them (a scalar,
 * an array, text, a cut-off object) is not glued.
 *
 * Source: SPEC §3.3 (framing: noise is skipped, never fatal; never a hang); carried from the
 * session 16 closing note (two answers glued on one line answered neither).
 * @param text - A line that does not parse as JSON.
 * @returns The objects' texts, in order, or undefined.
 */
export function gluedObjects(text: string): string[] | undefined {
  const pieces: string[] = [];
  let i = skipSpace(text, 0);
  while (i < text.length) {
    if (text.charCodeAt(i) !== 0x7b || pieces.length === GLUED_MAX) return undefined;
    const end = valueEnd(text, i);
    if (end === -1) return undefined;
    pieces.push(text.slice(i, end));
    i = skipSpace(text, end);
  }
  return pieces.length >= 2 ? pieces : undefined;
}
