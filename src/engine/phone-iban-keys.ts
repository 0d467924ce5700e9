/**
 * The index keys of phone numbers and IBANs (SPEC §2.5 "Identity", "Index, not rescans"): what a
 * match of their patterns is looked up and recorded by. Pure.
 * @module
 */

import { asciiPhoneText } from "./phone-text.ts";

/** A leading international call prefix written as digits: `00` (most countries) or `011` (NANP). */
const CALL_PREFIX = /^(?:00|011)(?=[0-9]{7})/;

/**
 * Digits at the end of a phone number that its national and international spellings share: a
 * country code (1 to 3 digits) or a trunk prefix (`0`) goes before them, and national significant
 * numbers of 9 digits or more (North America, most of Europe) keep all of these.
 */
const PHONE_TAIL_DIGITS = 9;

/**
 * The index keys of a phone-shaped value: `+` and its digits (in ASCII, whatever script they are
 * written in); when it is written without `+` but with a leading international call prefix
 * (`00 1 555 123 4567`, `011 44 20 7946 0958`), `+` and the digits after that prefix too (taint
 * only: `0113 496 0000` is also a national number); and with {@link PHONE_TAIL_DIGITS} digits or
 * more, its last ones as a key of their own (`tel-tail:559876543`, taint only), so that a number read
 * in its national form (`555-987-6543`, `020 7946 0958`) taints the international one an agent
 * writes for a tool that wants E.164 (`+15559876543`, `+44 20 7946 0958`), and the other way round.
 *
 * Source: SPEC §2.5 "Identity" (a phone → `+` and its digits), "Index, not rescans"; review of the
 * sink gate (a country code added by the agent turned a deny into an ask that said "not seen").
 * @param phone - A phone-shaped value.
 * @returns One to three keys.
 * @example phoneKeys("00 1 555 123 4567") // ["+0015551234567", "+15551234567", "tel-tail:551234567"]
 */
export function phoneKeys(phone: string): string[] {
  const digits = asciiPhoneText(phone).replace(/[^0-9]/g, "");
  const international = /^\s*\(?\+/.test(phone) ? undefined : digits.replace(CALL_PREFIX, "");
  const keys =
    international === undefined || international === digits
      ? [`+${digits}`]
      : [`+${digits}`, `+${international}`];
  if (digits.length >= PHONE_TAIL_DIGITS) keys.push(`tel-tail:${digits.slice(-PHONE_TAIL_DIGITS)}`);
  return keys;
}

/**
 * Visits the IBAN keys of one IBAN-shaped match: every prefix ending before a space, and the whole,
 * upper case without spaces, when 15 to 34 characters long.
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param match - An IBAN-shaped match of canonical text.
 * @param visit - Called once per key.
 * @returns Nothing.
 */
export function ibanKeys(match: string, visit: (key: string) => void): void {
  const push = (part: string): void => {
    const compact = part.replaceAll(" ", "").toUpperCase();
    if (compact.length >= 15 && compact.length <= 34) visit(compact);
  };
  for (let at = match.indexOf(" "); at !== -1; at = match.indexOf(" ", at + 1)) push(match.slice(0, at));
  push(match);
}
