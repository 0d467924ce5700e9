/**
 * Whether a message text repeats a key at its top level (`{"id":50,…,"id":51}`): `JSON.parse` keeps
 * the last copy, a parser that keeps the first reads another message, so such a message from the
 * upstream is malformed. A text where no top-level key can repeat is told at the cost of a few
 * `indexOf` calls; only a suspect one is scanned. Edge (pure string work).
 *
 * Source: SPEC §3.1 ("a response goes back with the original id"; "Decide on exactly what is
 * forwarded").
 * @module
 */

import { scanTopLevel } from "./json-scan.ts";

/** What a message repeats at its top level. */
export interface TopLevelRepeat {
  /** The first top-level key written twice (decoded). */
  readonly key: string;
  /**
   * Whether the message's `id` is written more than once with different texts, so that which
   * request it answers depends on the parser.
   */
  readonly idAmbiguous: boolean;
}

/** Keys whose every character an escape could only write as `\u00XX` with XX from 20 to 7F. */
const PLAIN_KEY = /^[\w$-]+$/;

/**
 * Finds a repeated top-level key of a JSON object text. A key can repeat only as two literal copies
 * of one of the parsed value's keys, or as a spelling with an escape: a text with neither (each key
 * of the value found at most once as `"key"`, no `\u00XX` escape of a printable ASCII character, every
 * key plain) is not scanned.
 *
 * Source: SPEC §3.1.
 * @param text - A JSON object text (valid).
 * @param value - `JSON.parse(text)`.
 * @returns The repeat, or undefined when every top-level key is written once.
 */
export function topLevelRepeat(text: string, value: object): TopLevelRepeat | undefined {
  if (!mayRepeat(text, Object.keys(value))) return undefined;
  const top = scanTopLevel(text);
  if (top?.repeatedKey === undefined) return undefined;
  const first = top.firstSpans?.get("id");
  const last = top.members.get("id");
  const idAmbiguous =
    first !== undefined &&
    last !== undefined &&
    text.slice(first.start, first.end) !== text.slice(last.start, last.end);
  return { key: top.repeatedKey, idAmbiguous };
}

/**
 * Whether a top-level key of the text could be written twice.
 * @param text - The JSON text.
 * @param keys - The parsed value's top-level keys.
 * @returns False when none can.
 */
function mayRepeat(text: string, keys: readonly string[]): boolean {
  if (escapesAscii(text)) return true;
  for (const key of keys) {
    if (!PLAIN_KEY.test(key)) return true;
    const token = `"${key}"`;
    const at = text.indexOf(token);
    if (at !== -1 && text.indexOf(token, at + token.length) !== -1) return true;
  }
  return false;
}

/**
 * Whether the text may hold an escape of a character from U+0020 to U+007F (`\u0069` for `i`), the
 * only escapes that can spell a plain key (a `\\u00…` that is no escape counts too).
 * @param text - The JSON text.
 * @returns True when one may be there.
 */
function escapesAscii(text: string): boolean {
  for (let at = text.indexOf("\\u00"); at !== -1; at = text.indexOf("\\u00", at + 4)) {
    const digit = text.charCodeAt(at + 4);
    if (digit >= 0x32 && digit <= 0x37) return true;
  }
  return false;
}
