/**
 * The shapes of destination tokens as whole strings — which canonical strings are emails, phones,
 * IBANs, hosts, handles or alphanumeric tokens — and the keys a host or an address is indexed by
 * (punycode, parent domains). `tokens.ts` finds tokens in text; this decides what a token or an
 * identity is. Pure.
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @module
 */

import { asciiPhoneText } from "./phone-text.ts";
import { MAX_HOST_LENGTH } from "./token-scan.ts";

const EMAIL_SHAPE = /^[\p{L}\p{M}\p{N}._+-]+@[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+$/u;
const PHONE_SHAPE = /^\+?\(?[0-9](?:[ .()-]{0,2}[0-9]){6,14}\)?$/;
const IBAN_SHAPE = /^[a-z]{2}[0-9]{2}(?: ?[a-z0-9]){11,30}$/;
const HANDLE_SHAPE = /^[@#][\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_.-]*[\p{L}\p{M}\p{N}_])?$/u;
const ALNUM_SHAPE = /^[\p{L}\p{M}\p{N}_-]{6,64}$/u;
const HOST_SHAPE = /^[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+$/u;
/** A dotted-quad IPv4 address, as a whole string (no flags: safe to share). */
export const DOTTED_QUAD = /^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$/;

/**
 * Whether a canonical string is a plain email address (`local@domain.tld`).
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param value - A canonical string.
 * @returns True for an address.
 */
export function isEmailShaped(value: string): boolean {
  return EMAIL_SHAPE.test(value);
}

/**
 * Whether a canonical string is phone-shaped: an optional `+`, then 7 to 15 digits with spaces,
 * dots, dashes or parentheses between them (SPEC §2.5 "Identity"); digits of any script and any
 * dash count (`asciiPhoneText`).
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param value - A canonical string.
 * @returns True for a phone number.
 */
export function isPhoneShaped(value: string): boolean {
  return PHONE_SHAPE.test(asciiPhoneText(value));
}

/**
 * Whether a canonical string is IBAN-shaped: two letters, two digits, 11 to 30 letters or digits,
 * spaces allowed (SPEC §2.5 "Identity").
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param value - A canonical (lower-case) string.
 * @returns True for an IBAN.
 */
export function isIbanShaped(value: string): boolean {
  return IBAN_SHAPE.test(value);
}

/**
 * Whether a string is a host name worth indexing: dotted labels whose last label has a letter, or
 * a dotted-quad IPv4 address.
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param value - A candidate host, lower-case.
 * @returns True for a host.
 */
export function isHostShaped(value: string): boolean {
  if (!HOST_SHAPE.test(value)) return false;
  if (DOTTED_QUAD.test(value)) return true;
  return /\p{L}/u.test(value.slice(value.lastIndexOf(".") + 1));
}

/**
 * Whether a canonical string identity is token-shaped without being an email, URL, phone or IBAN:
 * an `@handle`, a `#channel`, or a 6–64 character alphanumeric token with at least one digit.
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param value - A canonical string.
 * @returns True when the token index alone decides its taint.
 */
export function isTokenShapedString(value: string): boolean {
  return HANDLE_SHAPE.test(value) || (ALNUM_SHAPE.test(value) && /\p{N}/u.test(value));
}

/**
 * The index key of a host: its WHATWG (punycode) form, so `bücher.example` in text matches
 * `https://xn--bcher-kva.example`.
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param host - A host as found in canonical text.
 * @returns The ASCII host, or the input when it does not parse.
 */
export function hostKey(host: string): string {
  if (/^[\x21-\x7e]*$/.test(host)) return host;
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return host;
  }
}

/**
 * An address with its domain in ASCII (punycode) form, as hosts are indexed (`hostKey`): so
 * `attacker@bücher.example` in text and `attacker@xn--bcher-kva.example` in a call (or the other
 * way round) are one key.
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans" (hosts also in punycode).
 * @param address - An email-shaped key.
 * @returns The address with an ASCII domain (the input when its domain is ASCII already).
 */
export function asciiDomainAddress(address: string): string {
  const at = address.lastIndexOf("@");
  const domain = address.slice(at + 1);
  if (/^[\x21-\x7e]*$/.test(domain)) return address;
  return `${address.slice(0, at + 1)}${hostKey(domain)}`;
}

/**
 * A host and its parent domains of at least two labels (`a.b.example` → itself, `b.example`), so a
 * destination host occurs wherever it is a suffix, on a label boundary, of a host in the text.
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param host - An indexed host (ASCII form).
 * @returns The keys to index (parents only up to {@link MAX_HOST_LENGTH} characters); an IP address
 *   only as itself.
 */
export function hostSuffixes(host: string): string[] {
  if (DOTTED_QUAD.test(host)) return [host];
  const keys = [host];
  // Parents longer than a DNS name can be are not indexed: a host of 20,000 labels would give
  // 20,000 keys of its whole length (quadratic).
  let at = host.indexOf(".", Math.max(0, host.length - MAX_HOST_LENGTH - 1));
  while (at !== -1 && host.indexOf(".", at + 1) !== -1) {
    keys.push(host.slice(at + 1));
    at = host.indexOf(".", at + 1);
  }
  return keys;
}
