/**
 * Destination-shaped tokens in canonical text (SPEC §2.5 "Index, not rescans"): emails, hosts (with
 * their parent domains), @handles and #channels, phone numbers, IBANs and long alphanumeric tokens.
 * The same shapes decide which destination identities are "token-shaped". Pure.
 * @module
 */

import { UNSPACED_SCRIPT_CLASS } from "./scripts.ts";
import {
  type FoundToken,
  type FoundVisitor,
  ibanKeys,
  MAX_HOST_LENGTH,
  phoneKeys,
  scanAlphanumerics,
  scanEmails,
  scanHandles,
  scanHosts,
} from "./token-scan.ts";
import { type VariantShapes, withTokenVariants } from "./token-variants.ts";

/** An address starting exactly at `lastIndex` (its start is found by scanning back from `@`). */
const EMAIL_AT = /[\p{L}\p{M}\p{N}._+-]+@[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+/uy;
const LOCAL_CHAR = /[\p{L}\p{M}\p{N}._+-]/u;
/**
 * Token patterns with Unicode classes (for text with characters above U+007F; `token-scan.ts` scans
 * ASCII text for the other shapes), and the IBAN pattern for ASCII text.
 */
const PATTERNS = {
  ascii: { iban: /(?<![a-zA-Z0-9])[a-z]{2}[0-9]{2}(?: ?[a-z0-9]){11,30}/g },
  unicode: {
    host: /(?<![\p{L}\p{M}\p{N}_.-])[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+/gu,
    handle: /(?<![\p{L}\p{M}\p{N}_.@#-])[@#][\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_.-]*[\p{L}\p{M}\p{N}_])?/gu,
    iban: /(?<![\p{L}\p{M}\p{N}])[a-z]{2}[0-9]{2}(?: ?[a-z0-9]){11,30}/gu,
    alnum: /(?<![\p{L}\p{M}\p{N}_-])[\p{L}\p{M}\p{N}_-]{6,64}(?![\p{L}\p{M}\p{N}_-])/gu,
  },
} as const;
const PHONE = /(?<![0-9+])\+?\(?[0-9](?:[ .()-]{0,2}[0-9]){6,14}(?![0-9])/g;

const EMAIL_SHAPE = /^[\p{L}\p{M}\p{N}._+-]+@[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+$/u;
const PHONE_SHAPE = /^\+?\(?[0-9](?:[ .()-]{0,2}[0-9]){6,14}\)?$/;
const IBAN_SHAPE = /^[a-z]{2}[0-9]{2}(?: ?[a-z0-9]){11,30}$/;
const HANDLE_SHAPE = /^[@#][\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_.-]*[\p{L}\p{M}\p{N}_])?$/u;
const ALNUM_SHAPE = /^[\p{L}\p{M}\p{N}_-]{6,64}$/u;
const HOST_SHAPE = /^[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+$/u;
const DOTTED_QUAD = /^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$/;

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
 * dots, dashes or parentheses between them (SPEC §2.5 "Identity").
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param value - A canonical string.
 * @returns True for a phone number.
 */
export function isPhoneShaped(value: string): boolean {
  return PHONE_SHAPE.test(value);
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

function each(
  text: string,
  scan: { readonly pattern: RegExp; readonly visit: (match: string, start: number) => void },
): void {
  const { pattern, visit } = scan;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) visit(m[0], m.index);
}

/** Finds addresses from each `@`: back over the local part, then the whole address at once. */
function emails(text: string, report: (key: string, start: number) => void): void {
  let resume = 0;
  for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", Math.max(at + 1, resume))) {
    let start = at;
    while (start > resume && LOCAL_CHAR.test(text[start - 1] ?? "")) start -= 1;
    // As the look-behind of a regex would: no address starts right after a local-part character.
    if (start === at || LOCAL_CHAR.test(text[start - 1] ?? "")) continue;
    EMAIL_AT.lastIndex = start;
    const match = EMAIL_AT.exec(text);
    if (match === null) continue;
    report(match[0], start);
    resume = start + match[0].length;
  }
}

/** `"local"@domain`: a quoted local part of local-part characters only (it is the plain address). */
const QUOTED_ADDRESS = /"([\p{L}\p{M}\p{N}._+-]+)"@([\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+)/gu;

/**
 * Addresses written with a quoted local part (`"attacker"@evil.example`), reported as the plain
 * address they deliver to: the address scan stops at the quote and finds none.
 *
 * Source: SPEC §2.5 "Index, not rescans"; review of session 8 (a quoted local part hid an address).
 * @param text - Canonical text.
 * @param report - Reports a key with its span.
 */
function quotedAddresses(text: string, report: ReportKey): void {
  QUOTED_ADDRESS.lastIndex = 0;
  for (let m = QUOTED_ADDRESS.exec(text); m !== null; m = QUOTED_ADDRESS.exec(text)) {
    report(`${m[1]}@${m[2]}`, { start: m.index, length: m[0].length });
  }
}

/** Reports a token whose key is built as a string. */
type ReportKey = (key: string, span: { readonly start: number; readonly length: number }) => void;

/**
 * A {@link ReportKey} that fills one reused {@link FoundToken} and hands it to `visit`.
 * @param found - The reused token.
 * @param visit - The scan's visitor.
 * @returns The reporter.
 */
function keyReporter(found: FoundToken, visit: FoundVisitor): ReportKey {
  return (key, span) => {
    found.start = span.start;
    found.end = span.start + span.length;
    found.keyStart = span.start;
    found.key = key;
    visit(found);
  };
}

/** Phones and IBANs (rare in text: their patterns find them fastest), keys built as strings. */
function phonesAndIbans(text: string, scan: { readonly iban: RegExp; readonly report: ReportKey }): void {
  const { report } = scan;
  each(text, {
    pattern: PHONE,
    visit: (match, start) => {
      for (const key of phoneKeys(match)) report(key, { start, length: match.length });
    },
  });
  each(text, {
    pattern: scan.iban,
    visit: (match, start) => ibanKeys(match, (key) => report(key, { start, length: match.length })),
  });
}

/** The token patterns on text with characters above U+007F (Unicode classes, keys built as strings). */
function scanUnicode(text: string, visit: FoundVisitor): void {
  const patterns = PATTERNS.unicode;
  const report = keyReporter({ start: 0, end: 0, keyStart: 0, key: undefined }, visit);
  const at = text.includes("@");
  if (at) {
    emails(text, (match, start) => {
      report(match, { start, length: match.length });
      const ascii = asciiDomainAddress(match);
      if (ascii !== match) report(ascii, { start, length: match.length });
    });
    if (text.includes('"@')) quotedAddresses(text, report);
  }
  if (text.includes(".")) {
    // A dotted match is a host when its last label has a letter, or it is an IPv4 address.
    each(text, {
      pattern: patterns.host,
      visit: (match, start) => {
        const last = match.slice(match.lastIndexOf(".") + 1);
        if (!/\p{L}/u.test(last) && !DOTTED_QUAD.test(match)) return;
        for (const key of hostSuffixes(hostKey(match))) report(key, { start, length: match.length });
      },
    });
  }
  if (at || text.includes("#")) {
    each(text, {
      pattern: patterns.handle,
      visit: (match, start) => {
        report(match, { start, length: match.length });
        report(match.slice(1), { start, length: match.length });
      },
    });
  }
  if (/[0-9]/.test(text)) {
    phonesAndIbans(text, { iban: patterns.iban, report });
    each(text, {
      pattern: patterns.alnum,
      visit: (match, start) => {
        if (/[0-9\p{N}]/u.test(match)) report(match, { start, length: match.length });
      },
    });
  }
  // Scripts written without spaces run into an address or host beside them
  // (`請求書をattacker@evil.exampleまで`): scan again with their letters as spaces (same offsets).
  const spaced = text.replace(UNSPACED_LETTERS, (letters) => " ".repeat(letters.length));
  if (spaced !== text) scanShapes(spaced, visit);
}

const UNSPACED_LETTERS = new RegExp(`[${UNSPACED_SCRIPT_CLASS}]+`, "gu");

/** The shape tests token variants must pass. */
const SHAPES: VariantShapes = { isEmail: isEmailShaped, isHost: isHostShaped };

/** Any character above U+007F: such text is scanned with the Unicode patterns. */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * Finds every destination-shaped token in canonical text, each reported with its span and the key
 * a destination identity is looked up by: emails as written, hosts in ASCII form with their parent
 * domains, handles and channels with and without their sigil, phones as `+` and digits, IBANs upper
 * case without spaces, alphanumeric tokens (6–64 characters, with a digit) as written. ASCII text is
 * scanned without building a string per token (a key that is a slice of the text is reported as its
 * offsets).
 *
 * Source: SPEC §2.5 "Index, not rescans", "Identity".
 * @param text - Canonical text (lower case, whitespace collapsed).
 * @param visit - Called once per key found (emails, then hosts, handles, phones, IBANs and
 *   alphanumeric tokens, each in text order); keys may repeat. The token object is reused.
 * @returns Nothing.
 */
export function scanTokens(text: string, visitor: FoundVisitor): void {
  if (text.length < 2) return;
  scanShapes(text, withTokenVariants(text, visitor, SHAPES));
}

/**
 * {@link scanTokens} without the variants of tokens with glued punctuation (the caller wraps the
 * visitor once).
 * @param text - Canonical text.
 * @param visit - The visitor.
 */
function scanShapes(text: string, visit: FoundVisitor): void {
  if (NON_ASCII.test(text)) {
    scanUnicode(text, visit);
    return;
  }
  const found: FoundToken = { start: 0, end: 0, keyStart: 0, key: undefined };
  const scan = { text, found, visit };
  const at = text.includes("@");
  if (at) scanEmails(scan);
  if (at && text.includes('"@')) quotedAddresses(text, keyReporter(found, visit));
  if (text.includes(".")) scanHosts(scan);
  if (at || text.includes("#")) scanHandles(scan);
  if (!/[0-9]/.test(text)) return;
  phonesAndIbans(text, { iban: PATTERNS.ascii.iban, report: keyReporter(found, visit) });
  scanAlphanumerics(scan);
}

/**
 * Called once per key found: the key, and where the token it came from starts and ends.
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 */
export type TokenVisitor = (key: string, start: number, end: number) => void;

/**
 * Finds every destination-shaped token in canonical text (see {@link scanTokens}), each key as a
 * string.
 *
 * Source: SPEC §2.5 "Index, not rescans", "Identity".
 * @param text - Canonical text (lower case, whitespace collapsed).
 * @param visit - Called once per key found, in the order of {@link scanTokens}; keys may repeat.
 * @returns Nothing.
 */
export function extractTokens(text: string, visit: TokenVisitor): void {
  scanTokens(text, (found) =>
    visit(found.key ?? text.slice(found.keyStart, found.end), found.start, found.end),
  );
}
