/**
 * Phone numbers written with other digits and dashes than ASCII ones (SPEC §2.5 "Identity": a
 * phone-shaped value is digits with spaces, dots, dashes or parentheses between them):
 * `+1–555–123–4567` (en dashes), `+1‑555‑123‑4567` (non-breaking hyphens), `+1 ٥٥٥ ١٢٣ ٤٥٦٧`
 * (Arabic-Indic digits). NFKC leaves these as they are, yet a phone library reads them as the number
 * `+15551234567`, and so does a model asked to send to it. Pure.
 * @module
 */

/** A decimal digit of any script in the BMP, a dash, or the minus sign. */
const FOLDABLE = /[\p{Nd}\p{Pd}\u2212]/gu;
const DECIMAL = /\p{Nd}/u;
/** Characters above U+007F that phone text may hold: only such text is folded. */
const NON_ASCII = /[\u0080-\u{10ffff}]/u;

/** ASCII digits of the decimal digits seen so far (a few hundred code points at most). */
const DIGIT_VALUES = new Map<string, string>();

/**
 * The ASCII digit of a decimal digit (Unicode encodes every script's digits 0 to 9 in order, in
 * runs of ten): its distance from the start of its run of decimal digits, modulo ten.
 */
function digitValue(ch: string): string {
  const known = DIGIT_VALUES.get(ch);
  if (known !== undefined) return known;
  const code = ch.codePointAt(0) ?? 0;
  let start = code;
  while (start > 0 && code - start < 100 && DECIMAL.test(String.fromCodePoint(start - 1))) start -= 1;
  const value = String((code - start) % 10);
  DIGIT_VALUES.set(ch, value);
  return value;
}

/**
 * Text with every decimal digit of another script as its ASCII digit and every dash (and the minus
 * sign) as `-`, each in place, so offsets into it are offsets into the text (a digit outside the BMP
 * takes two code units: it is left as it is).
 *
 * Source: SPEC §2.5 "Identity" (phone-shaped values), "Canonical form" (widening taint only).
 * @param text - Canonical text or a canonical destination.
 * @returns The text with those characters folded (the text itself when it is ASCII).
 * @example asciiPhoneText("+1–555–١٢٣–4567") // => "+1-555-123-4567"
 */
export function asciiPhoneText(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.replace(FOLDABLE, (ch) => {
    if (ch.length !== 1 || ch < "\x80") return ch;
    return DECIMAL.test(ch) ? digitValue(ch) : "-";
  });
}
