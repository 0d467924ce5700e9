/**
 * Invisible characters: the one list that canonical form removes, the marker check ignores, the
 * pinning check flags and display escapes (SPEC §2.2 "Suspicious first sight", §2.5 canonical form,
 * §3.4 "Rendering untrusted strings" and the `[bouncer]` marker). Pure.
 *
 * The list: every format character (Cf: zero-width characters, bidi controls, tag characters) and
 * every default-ignorable code point (Unicode's own list of what a renderer draws nothing for:
 * fillers, the combining grapheme joiner, variation selectors, Mongolian free variation selectors,
 * shorthand format controls, the unassigned ranges reserved for more of them).
 * @module
 */

/** The character class of the list, for building other patterns. */
export const INVISIBLE_CLASS = "\\p{Cf}\\p{Default_Ignorable_Code_Point}";

const INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]`, "gu");

/**
 * What makes a string of a tool definition suspicious on first sight:
 * - any invisible character other than the variation selectors U+FE00–U+FE0F;
 * - of those, U+FE00–U+FE0D anywhere, U+FE0E or U+FE0F after a character that is not an emoji (after
 *   one they choose its presentation, as in "⚠️" or "1️⃣"; everything in U+1F000–U+1FAFF counts as
 *   one, whatever the runtime's Unicode version), and any run of two or more (a base
 *   character takes one: a run, or one selector per character, carries data of its own);
 * - control characters (Cc) other than tab, line feed and a carriage return before a line feed: an
 *   escape sequence, a backspace or a lone carriage return can hide text in a terminal.
 *
 * Source: SPEC §2.2 "Suspicious first sight" (tag characters, zero-width or bidi controls).
 */
const SUSPICIOUS = new RegExp(
  [
    `(?![\\ufe00-\\ufe0f])[${INVISIBLE_CLASS}]`,
    "[\\ufe00-\\ufe0f]{2,}",
    "[\\ufe00-\\ufe0d]",
    // U+1F000–U+1FAFF too: runtimes of different Unicode versions must agree on a new emoji.
    "(?<![\\p{Emoji}\\u{1f000}-\\u{1faff}])[\\ufe0e\\ufe0f]",
    "[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]",
    "\\r(?!\\n)",
  ].join("|"),
  "u",
);

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
 * Whether one string of a tool definition (a key or a value) holds a character that has no
 * business there (see {@link SUSPICIOUS}).
 *
 * Source: SPEC §2.2 "Suspicious first sight".
 * @param text - A key or string value, as the upstream sent it (not JSON-escaped).
 * @returns True when such a character occurs.
 * @example hasSuspiciousInvisible("Careful ⚠\ufe0f") // => false
 */
export function hasSuspiciousInvisible(text: string): boolean {
  return SUSPICIOUS.test(text);
}
