/**
 * Destination-shaped tokens in canonical text (SPEC §2.5 "Index, not rescans"): emails, hosts (with
 * their parent domains), @handles and #channels, phone numbers, IBANs and long alphanumeric tokens,
 * each found with its span and index key. What a whole string's shape is lives in `token-shapes.ts`.
 * Pure.
 * @module
 */

import { ibanKeys, phoneKeys } from "./phone-iban-keys.ts";
import { asciiPhoneText } from "./phone-text.ts";
import { UNSPACED_SCRIPT_CLASS } from "./scripts.ts";
import {
  type FoundToken,
  type FoundVisitor,
  hasGluedPunct,
  scanAlphanumerics,
  scanEmails,
  scanHandles,
  scanHosts,
} from "./token-scan.ts";
import {
  asciiDomainAddress,
  DOTTED_QUAD,
  hostKey,
  hostSuffixes,
  isEmailShaped,
  isHostShaped,
  isPhoneShaped,
  isTokenShapedString,
} from "./token-shapes.ts";
import { tokenVariants, type VariantShapes, withTokenVariants } from "./token-variants.ts";
import { scanUrlIpv4Hosts } from "./url-ipv4.ts";
import { scanIpv6Hosts } from "./url-ipv6.ts";
import { scanUrlLabelHosts } from "./url-label-hosts.ts";

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
    host: /(?:(?<![\p{L}\p{M}\p{N}_.-])|(?<=(?<![\p{L}\p{M}\p{N}_-])\.))[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)+/gu,
    handle:
      /(?:(?<![\p{L}\p{M}\p{N}_.@#-])|(?<=(?<![\p{L}\p{M}\p{N}_.@#-])[._-]+)|(?<=\.\.[._-]*))[@#][\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_.-]*[\p{L}\p{M}\p{N}_])?/gu,
    iban: /(?<![\p{L}\p{M}\p{N}])[a-z]{2}[0-9]{2}(?: ?[a-z0-9]){11,30}/gu,
    alnum: /(?<![\p{L}\p{M}\p{N}_-])[\p{L}\p{M}\p{N}_-]{6,64}(?![\p{L}\p{M}\p{N}_-])/gu,
  },
} as const;
const PHONE = /(?<![0-9+])\+?\(?[0-9](?:[ .()-]{0,2}[0-9]){6,14}(?![0-9])/g;

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

/**
 * Phones and IBANs (rare in text: their patterns find them fastest), keys built as strings. Phones
 * are found in the text with other scripts' digits and dashes folded to ASCII (same offsets).
 */
function phonesAndIbans(text: string, scan: { readonly iban: RegExp; readonly report: ReportKey }): void {
  const { report } = scan;
  each(asciiPhoneText(text), {
    pattern: PHONE,
    visit: (match, start) => {
      for (const key of phoneKeys(match)) report(key, { start, length: match.length });
      phoneRuns(match, (run, at) => {
        for (const key of phoneKeys(run)) report(key, { start: start + at, length: run.length });
      });
    },
  });
  each(text, {
    pattern: scan.iban,
    visit: (match, start) => ibanKeys(match, (key) => report(key, { start, length: match.length })),
  });
}

/** Digits the other side of a space must have for a phone match to be split there (a sort code's 6). */
const SPLIT_SIDE_DIGITS = 6;

/** How many ASCII digits a text holds. */
function digitCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) n += 1;
  }
  return n;
}

/** Digits a group written without separators must have to be indexed on its own (a phone's least). */
const GROUP_DIGITS = 7;

/**
 * The numbers a phone match holds beside other digits of it: the phone pattern runs on over a space
 * or a dash into the next group of digits, so `12-34-56 12345678` (a sort code, then an account
 * number), `1234 12345678` or `12-34-56-12345678` is one match, and `12345678` — a token of the
 * text, sent alone — was indexed by nothing (SPEC §2.5: "on token boundaries"). Visited:
 * - the part before or after a space, when it is phone-shaped and the other side holds
 *   {@link SPLIT_SIDE_DIGITS} digits or more (`12-34-56 12345678`; `00 1 555 123 4567` gives
 *   `123 4567` too); the groups of a usual number (`+1 555 123 4567`) have no such side;
 * - each group of {@link GROUP_DIGITS} digits or more written without separators that is not the
 *   whole number (`1234 12345678`, `12-34-56-12345678`, also `+44 7700900123`).
 * Each run once. Taint only adds keys: a group that is no number of its own only adds taint.
 *
 * Source: SPEC §2.5 "Index, not rescans"; hostile hunt of the sink gate.
 * @param match - A match of the phone pattern (ASCII digits).
 * @param visit - Called with each such run and its offset in the match: groups, prefixes, suffixes.
 * @returns Nothing.
 * @example phoneRuns("12-34-56 12345678", (run) => run) // visits "12345678"
 */
function phoneRuns(match: string, visit: (run: string, at: number) => void): void {
  digitGroups(match, visit);
  if (!match.includes(" ")) return;
  for (let at = match.indexOf(" "); at !== -1; at = match.indexOf(" ", at + 1)) {
    const before = match.slice(0, at);
    if (digitCount(match.slice(at)) >= SPLIT_SIDE_DIGITS && isPhoneShaped(before)) visit(before, 0);
  }
  for (let at = match.indexOf(" "); at !== -1; at = match.indexOf(" ", at + 1)) {
    const after = match.slice(at + 1);
    if (digitCount(match.slice(0, at)) >= SPLIT_SIDE_DIGITS && isPhoneShaped(after)) visit(after, at + 1);
  }
}

/**
 * The groups of {@link GROUP_DIGITS} digits or more of a phone match for {@link phoneRuns}: not the
 * whole number, nor a part before or after a space that {@link phoneRuns} visits as that part.
 */
function digitGroups(match: string, visit: (run: string, at: number) => void): void {
  const digits = digitCount(match);
  let start = -1;
  for (let i = 0; i <= match.length; i += 1) {
    const c = i < match.length ? match.charCodeAt(i) : 0;
    if (c >= 48 && c <= 57) {
      if (start === -1) start = i;
    } else if (start !== -1) {
      const length = i - start;
      const besideSpace =
        (start === 0 && c === 32) || (i === match.length && match.charCodeAt(start - 1) === 32);
      const visited = besideSpace && digits - length >= SPLIT_SIDE_DIGITS;
      if (length >= GROUP_DIGITS && length < digits && !visited) visit(match.slice(start, i), start);
      start = -1;
    }
  }
}

/**
 * The hosts a host with labels that are not ASCII stands for without glued punctuation
 * (`tokenVariants` of the host as written: `_bücher.example_` → `bücher.example`); none for an
 * ASCII host, whose key is its text and gets its variants from the scan's visitor.
 *
 * Source: SPEC §2.5 "Index, not rescans" (hosts also in punycode); hostile hunt of the sink gate.
 * @param match - A host match of canonical text.
 * @returns The variants (usually none).
 */
function unicodeHostVariants(match: string): string[] {
  if (/^[\x21-\x7e]*$/.test(match) || !/^[._+-]|[._+-]$|[._+-]{2}/.test(match)) return [];
  return tokenVariants(match, SHAPES);
}

/**
 * The hosts a dotted match that is no host stands for without glued punctuation — an IPv4 address
 * or a host in Markdown emphasis or before a stray `._` (`_203.0.113.5_`, `-203.0.113.5`,
 * `https://evil.example._`): each {@link tokenVariants} of the match, with its parent domains,
 * reported with the match's span.
 *
 * Source: SPEC §2.5 "Index, not rescans"; hostile hunt of the sink gate (such a host was indexed by
 * nothing and asked about as "not seen").
 * @param match - A dotted match of canonical text whose last label has no letter.
 * @param start - Where it starts.
 * @param report - Reports each key.
 */
function gluedDottedHosts(match: string, start: number, report: ReportKey): void {
  for (const variant of tokenVariants(match, SHAPES)) {
    for (const key of hostSuffixes(hostKey(variant))) report(key, { start, length: match.length });
  }
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
        if (!/\p{L}/u.test(last) && !DOTTED_QUAD.test(match)) {
          if (hasGluedPunct(match, 0, match.length)) gluedDottedHosts(match, start, report);
          return;
        }
        for (const key of hostSuffixes(hostKey(match))) report(key, { start, length: match.length });
        // Glued punctuation is taken off the host as written, before punycode: `_bücher.example_`
        // in punycode is `xn--_bcher-4ya.example_`, whose variants are no host anyone sends to.
        for (const variant of unicodeHostVariants(match)) {
          for (const key of hostSuffixes(hostKey(variant))) report(key, { start, length: match.length });
        }
      },
    });
  }
  scanUrlIpv4Hosts(text, report);
  scanUrlLabelHosts(text, report);
  if (text.includes(":")) scanIpv6Hosts(text, report);
  if (at || text.includes("#")) {
    each(text, {
      pattern: patterns.handle,
      visit: (match, start) => {
        report(match, { start, length: match.length });
        report(match.slice(1), { start, length: match.length });
      },
    });
  }
  // Any script's digits: a phone or token may be written in them (`asciiPhoneText`).
  if (/\p{Nd}/u.test(text)) {
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
const SHAPES: VariantShapes = { isEmail: isEmailShaped, isHost: isHostShaped, isToken: isTokenShapedString };

/** Any character above U+007F: such text is scanned with the Unicode patterns. */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * Finds every destination-shaped token in canonical text, each reported with its span and the key
 * a destination identity is looked up by: emails as written, hosts in ASCII form with their parent
 * domains, handles and channels with and without their sigil, phones as `+` and digits, IBANs upper
 * case without spaces, alphanumeric tokens (6–64 characters, with a digit) as written, and the host
 * of a URL that is one label (`s3://exfil-bucket/x`: `url-label-hosts.ts`). ASCII text is
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
  const gluedDotted = (start: number, end: number): void =>
    gluedDottedHosts(text.slice(start, end), start, keyReporter(found, visit));
  const scan = { text, found, visit, gluedDotted };
  const at = text.includes("@");
  if (at) scanEmails(scan);
  if (at && text.includes('"@')) quotedAddresses(text, keyReporter(found, visit));
  if (text.includes(".")) scanHosts(scan);
  scanUrlIpv4Hosts(text, keyReporter(found, visit));
  scanUrlLabelHosts(text, keyReporter(found, visit));
  if (text.includes(":")) scanIpv6Hosts(text, keyReporter(found, visit));
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
