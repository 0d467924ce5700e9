/**
 * Scripts written without spaces between words, for the token scan (a token starts or ends next to
 * them) and canonical form (an ideographic full stop between their letters ends a sentence, it is
 * no host's dot). Pure.
 * @module
 */

/**
 * The letters of scripts written without spaces between words (and Hangul, often glued to Latin),
 * as the body of a regex character class: next to them a token starts or ends.
 *
 * Source: SPEC §2.5 ("on token boundaries").
 */
export const UNSPACED_SCRIPT_CLASS =
  "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}";
