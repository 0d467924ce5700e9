/**
 * Invisible characters: the one list that canonical form removes, the marker check ignores, the
 * pinning check flags and display escapes (SPEC §2.2 "Suspicious first sight", §2.5 canonical form,
 * §3.4 "Rendering untrusted strings" and the `[bouncer]` marker). Pure.
 *
 * The list: every format character (Cf: zero-width characters, bidi controls, tag characters, the
 * Mongolian vowel separator), the Hangul and half-width fillers (U+115F, U+1160, U+3164, U+FFA0),
 * the Khmer inherent vowels (U+17B4, U+17B5), the combining grapheme joiner (U+034F) and the
 * variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF). None of them shows as a glyph of its own.
 * @module
 */

/** The character class of {@link INVISIBLE}, for building other patterns. */
export const INVISIBLE_CLASS =
  "\\p{Cf}\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u3164\\uffa0\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}";

/**
 * Matches every invisible character (global: for `replace`).
 *
 * Source: SPEC §2.5 (canonical form removes them), §3.4.
 */
export const INVISIBLE: RegExp = new RegExp(`[${INVISIBLE_CLASS}]`, "gu");

/**
 * What makes a tool definition suspicious on first sight: any invisible character except the
 * variation selectors U+FE00–U+FE0F one at a time (an emoji's presentation, as in "⚠️"). A base
 * character takes one selector, so two or more in a row carry data of their own: suspicious too.
 *
 * Source: SPEC §2.2 "Suspicious first sight" (tag characters, zero-width or bidi controls).
 */
const SUSPICIOUS =
  /[\p{Cf}\u115f\u1160\u17b4\u17b5\u3164\uffa0]|\u034f|[\u{e0100}-\u{e01ef}]|[\ufe00-\ufe0f]{2,}/u;

/**
 * Removes every invisible character.
 *
 * Source: SPEC §2.5, §3.4.
 * @param text - Any text.
 * @returns The text without them.
 * @example removeInvisible("a\u200bb\ufe0f") // => "ab"
 */
export function removeInvisible(text: string): string {
  return text.replace(INVISIBLE, "");
}

/**
 * Whether a text holds an invisible character that has no business in a tool definition (see
 * {@link SUSPICIOUS}: all but a lone selector U+FE00–U+FE0F).
 *
 * Source: SPEC §2.2 "Suspicious first sight".
 * @param text - Any text (a definition's canonical JSON).
 * @returns True when such a character occurs.
 * @example hasSuspiciousInvisible("Warning ⚠\ufe0f") // => false
 */
export function hasSuspiciousInvisible(text: string): boolean {
  return SUSPICIOUS.test(text);
}
