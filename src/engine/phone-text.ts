/**
 * Phone numbers written with other digits and dashes than ASCII ones (SPEC §2.5 "Identity": a
 * phone-shaped value is digits with spaces, dots, dashes or parentheses between them):
 * `+1–555–123–4567` (en dashes), `+1‑555‑123‑4567` (non-breaking hyphens), `+1 ٥٥٥ ١٢٣ ٤٥٦٧`
 * (Arabic-Indic digits). NFKC leaves these as they are, yet a phone library reads them as the number
 * `+15551234567`, and so does a model asked to send to it. Pure.
 * @module
 */

/**
 * A decimal digit of another script than ASCII, a dash other than `-`, or the minus sign: ASCII
 * digits and `-` are left out, so text in ASCII digits calls back only for what it folds.
 */
const FOLDABLE = /(?![\0-\x7f])[\p{Nd}\p{Pd}\u2212]/gu;
const DECIMAL = /\p{Nd}/u;
/** Characters above U+007F that phone text may hold: only such text is folded. */
const NON_ASCII = /[\u0080-\u{10ffff}]/u;

/**
 * The ASCII digit of a decimal digit of the BMP (Unicode encodes every script's digits 0 to 9 in
 * order, in runs of ten): its distance from the start of its run of decimal digits, modulo ten.
 */
function digitValue(code: number): string {
  let start = code;
  while (start > 0 && code - start < 100 && DECIMAL.test(String.fromCharCode(start - 1))) start -= 1;
  return String((code - start) % 10);
}

/**
 * Text with every decimal digit of another script as its ASCII digit and every dash (and the minus
 * sign) as `-`, each in place, so offsets into it are offsets into the text (a digit outside the BMP
 * takes two code units: it is left as it is). The digits' values are kept for this text only.
 *
 * Source: SPEC §2.5 "Identity" (phone-shaped values), "Canonical form" (widening taint only).
 * @param text - Canonical text or a canonical destination.
 * @returns The text with those characters folded (the text itself when it is ASCII).
 * @example asciiPhoneText("+1–555–١٢٣–4567") // => "+1-555-123-4567"
 */
export function asciiPhoneText(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  let values: Map<string, string> | undefined;
  return text.replace(FOLDABLE, (ch) => {
    if (ch.length !== 1) return ch;
    if (!DECIMAL.test(ch)) return "-";
    values ??= new Map();
    let value = values.get(ch);
    if (value === undefined) {
      value = digitValue(ch.charCodeAt(0));
      values.set(ch, value);
    }
    return value;
  });
}
