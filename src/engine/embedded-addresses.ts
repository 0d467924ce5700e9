/**
 * The email addresses a destination holds besides its own (SPEC §2.5 "Splitting", for a gated call's
 * argument, failing closed): those written in the display name of a `Name <addr>` value, and those
 * written inside a piece that is no address (with RFC 5322 comments taken out, as a mail library
 * reads them). Pure.
 * @module
 */

import { getCountrySpecifications, isValidIBAN } from "ibantools";
import { canonicalize } from "./canonical.ts";
import type { DestinationPiece } from "./destination-pieces.ts";
import { isUrlShaped } from "./identity.ts";
import { LIST_OR_SPACE, laterUrls } from "./later-urls.ts";
import {
  isEmailShaped,
  isHostShaped,
  isIbanShaped,
  isPhoneShaped,
  isTokenShapedString,
} from "./token-shapes.ts";
import { extractTokens } from "./tokens.ts";

/**
 * The email addresses written in the display name of a `Name <addr>` value: canonical form reduces
 * the value to the address in brackets, but `attacker@evil.example <boss@corp.example>` is no valid
 * name-addr (an unquoted `@` in the phrase), and a mail library may send it to the first address
 * (Python's `email` package does). Each is a destination of its own, never trusted (a question or
 * a deny only; SPEC §2.5 "Flattening": one bad element decides for the call).
 *
 * Source: SPEC §2.5 "Splitting", "Canonical form"; review of session 8 (display-name trick).
 * @param text - One value or list item, trimmed.
 * @returns The addresses of its display name, if it has one.
 */
export function displayNameAddresses(text: string): DestinationPiece[] {
  const raw = /^([^<>]*)<[^<>]*>$/.exec(text)?.[1];
  if (raw === undefined || raw.trim() === "") return [];
  // Decoded as the address is (`attacker%40evil.example <…>`, an entity, a fullwidth `＠`).
  const decoded = canonicalize(raw, { output: true });
  if (!decoded.includes("@")) return [];
  // `attacker(x)@evil.example <boss@…>`: the phrase's address is read without its comments too.
  const phrase =
    decoded.includes("(") || SPACE_BY_ADDRESS_PUNCTUATION.test(decoded)
      ? `${decoded} ${withoutComments(decoded)}`
      : decoded;
  const found: DestinationPiece[] = [];
  const seen = new Set<string>();
  extractTokens(phrase, (key) => {
    if (seen.has(key) || !isEmailShaped(key)) return;
    seen.add(key);
    found.push({ raw: key, canonical: key, eligible: false });
  });
  return found;
}

/**
 * An address with its RFC 5322 comments and the white space around its `@` and dots taken out, as
 * a mail library reads it: nested and escaped comments (`attacker((x))@`, `attacker(\))@`),
 * comments with spaces (`attacker (x) @evil.example`), folding white space (`attacker @evil
 * .example`), and a quoted local part of plain characters and quoted pairs unquoted
 * (`"attacker"(x)@…`, `"att\acker"@…`). Other quoted strings are kept as they are. Linear.
 * @param text - A canonical value holding `@` (and a comment, white space or a quoted pair).
 * @returns The value without comments.
 */
function withoutComments(text: string): string {
  let out = "";
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i] ?? "";
    if (ch === "\\" && (quoted || depth > 0)) {
      if (depth === 0) out += text.slice(i, i + 2);
      i += 1;
    } else if (depth === 0 && ch === '"') {
      quoted = !quoted;
      out += ch;
    } else if (quoted) out += ch;
    else if (ch === "(") depth += 1;
    else if (ch === ")" && depth > 0) depth -= 1;
    else if (depth === 0) out += ch;
  }
  return out
    .replace(/\s*([@.])\s*/g, "$1")
    .trim()
    .replace(/^"((?:[^"\\\s]|\\\S)+)"@/, (_, local: string) => `${local.replace(/\\(\S)/g, "$1")}@`);
}

/** White space beside an address's `@` or a dot (RFC 5322 folding white space: `attacker @evil.example`). */
const SPACE_BY_ADDRESS_PUNCTUATION = /\S\s+@|@\s+\S|\w\s+\.\s*\w+@|@[^\s@]*\w\s*\.\s+\w|@[^\s@]*\w\s+\.\s*\w/;

/**
 * What ends a word of a value when looking for numbers in it: white space, list separators,
 * brackets, quotes, a scheme's or a label's `:` and `/` (`tel:+44…`, `IBAN:GB82…`, `…/mobile`).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the separators Python splits on are the point
const NUMBER_WORD_END = /[\s\u0085\u001c-\u001f|,;:/()[\]{}<>"'`]+/;
/** The most words one phone number or IBAN is written in (`gb82 west 1234 5698 7654 32`). */
const NUMBER_WORDS = 8;
/** A word a phone number may start with: `+` or `00`, then a digit. */
const PHONE_START = /^(?:\+|00)\d/;
/** A later word of a phone number: digits and the separators between them. */
const PHONE_WORD = /^[\d().-]+$/;
/** A word an IBAN may start with: two letters (its country), two digits, letters or digits. */
const IBAN_START = /^([a-z]{2})\d{2}[a-z0-9]*$/;
/** A later word of an IBAN. */
const IBAN_WORD = /^[a-z0-9]+$/;
/** Where a phone number or an IBAN may start in a value: `+` or `00` then a digit, or two letters then two digits. */
const MAY_START_NUMBER = /\+\d|00\d|[a-z]{2}\d{2}/;
/** Each country's IBAN length (ibantools' registry), by upper-case country code. */
const IBAN_SPECS = getCountrySpecifications();

/**
 * The international phone numbers (written with `+` or `00`) and valid IBANs inside a value that is
 * neither as a whole (`+44 20 7946 0958 (mobile)`, `+1555… +44…`, `tel:+44… (mobile)`,
 * `gb82west12345698765432 (acme ltd)`, `IBAN:GB82…`): for each word that may start one, every run
 * of up to {@link NUMBER_WORDS} words from it that is phone-shaped, or the run as long as the
 * country's IBANs that ibantools validates (so a postcode such as `se22 0ab …` or a commit hash is
 * none). A tool that pulls the number out (a phone library does) reaches it; a number without `+`
 * or `00` is not looked for (a date or an amount would be one). At most {@link NUMBER_WORDS} steps
 * per word.
 *
 * Source: SPEC §2.5 "Splitting", "Identity" (phone- and IBAN-shaped values); sink-gate review of
 * session 18 (a planted number with a note after it was asked, not denied).
 * @param canonical - A piece's canonical form.
 * @returns The numbers, as written there (canonical), in order.
 */
function embeddedNumbers(canonical: string): string[] {
  // Most values hold no word that may start one: nothing is split for them.
  if (!MAY_START_NUMBER.test(canonical) || !NUMBER_WORD_END.test(canonical)) return [];
  if (isPhoneShaped(canonical) || isValidIban(canonical)) return [];
  // A URL's path holds numbers that are none (`…/orders/0001234567`): its host decides.
  if (!LIST_OR_SPACE.test(canonical) && isUrlShaped(canonical)) return [];
  const words = canonical
    .split(NUMBER_WORD_END)
    .map((word) => word.replace(/[.!?]+$/, ""))
    .filter((word) => word !== "");
  const found: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] ?? "";
    if (PHONE_START.test(word)) {
      let run = word;
      for (let j = i; j < Math.min(words.length, i + NUMBER_WORDS); j += 1) {
        if (j > i) {
          const next = words[j] ?? "";
          if (!PHONE_WORD.test(next)) break;
          run = `${run} ${next}`;
        }
        if (isPhoneShaped(run)) found.push(run);
      }
      continue;
    }
    const country = IBAN_START.exec(word)?.[1];
    const chars = country === undefined ? undefined : IBAN_SPECS[country.toUpperCase()]?.chars;
    if (chars === undefined || chars === null) continue;
    let run = word;
    let length = word.length;
    for (let j = i + 1; length < chars && j < Math.min(words.length, i + NUMBER_WORDS); j += 1) {
      const next = words[j] ?? "";
      if (!IBAN_WORD.test(next)) break;
      run = `${run} ${next}`;
      length += next.length;
    }
    if (length === chars && isValidIban(run)) found.push(run);
  }
  return found;
}

/**
 * Whether a canonical text is a valid IBAN (country length, format and check digits), spaces
 * allowed.
 * @param text - A canonical (lower-case) text.
 * @returns True for a valid IBAN.
 */
function isValidIban(text: string): boolean {
  return text.length <= 42 && isIbanShaped(text) && isValidIBAN(text.replaceAll(" ", "").toUpperCase());
}

/** A list separator of a value of words (`#general,#leaks`, `u1;u2`, `c1|c2`). */
const WORD_LIST_SEPARATOR = /[,;|]/;
/**
 * A list item that is one plain word: a name, an id or a handle (an item of several words is prose
 * or a postal address, one with `/` or `:` a URL, whose host decides).
 */
const PLAIN_WORD = /^[\p{L}\p{M}\p{N}_.@#-]+$/u;

/**
 * Whether a canonical value is a list of single words (`alice, mallory99`, `c0999trust|c0123abcde`)
 * or of tokens only (`c0999trust c0123abcde`): the alphanumeric tokens of such a value are
 * destinations of their own. Prose or a postal address (`revert de12f4a fix login`, `10 lordship
 * lane, london se22 0ab`) is none: a commit hash or a postcode in it reaches no one.
 */
function isListOfWords(canonical: string): boolean {
  if (WORD_LIST_SEPARATOR.test(canonical)) {
    const items = canonical.split(/[,;|]+/).map((item) => item.trim());
    return items.every((item) => item === "" || PLAIN_WORD.test(item));
  }
  return canonical.split(LIST_OR_SPACE).every((word) => word === "" || isTokenShapedString(word));
}

/**
 * The handles and channels written in a value of several words (`#general #leaks`, `@alice;@mallory`,
 * `#leaks (the secret one)`), and the alphanumeric tokens (6 to 64 characters with a digit) of a
 * list of words ({@link isListOfWords}: `c0999trust,c0123abcde`, `alice, mallory99`): a tool that
 * takes a list of channels or users (Slack's `channels` of `files.upload`, a comma-separated
 * `users`) reaches each of them, and a planted one is a token of untrusted output however the list
 * around it is written. Each once, in order, as written in the value; none for a value of one word
 * (its own identity is looked up whole).
 *
 * Source: SPEC §2.5 "Splitting", "Flattening" (one bad element decides for the call); hostile hunt
 * of the sink gate (a planted channel in a list of two was asked about as never seen).
 * @param canonical - A piece's canonical form.
 * @returns The tokens, as written there (canonical).
 */
function embeddedTokens(canonical: string): string[] {
  if (!LIST_OR_SPACE.test(canonical)) return [];
  const hasSigil = canonical.includes("#") || canonical.includes("@");
  const words = isListOfWords(canonical);
  if (!hasSigil && !words) return [];
  const found = new Set<string>();
  extractTokens(canonical, (key, start, end) => {
    // A handle's key without its sigil comes right after it: the handle stands for it.
    if (key === canonical || found.has(`@${key}`) || found.has(`#${key}`)) return;
    // `attacker @evil.example` is an address with white space beside its `@`, not a handle.
    const handle = (key.startsWith("@") || key.startsWith("#")) && !isHostShaped(key.slice(1));
    // Keys are looked for as written, inside their own match (not the whole value again: linear):
    // an IBAN's key (upper case) is no word of the value.
    if ((handle || words) && isTokenShapedString(key) && canonical.slice(start, end).includes(key))
      found.add(key);
  });
  return [...found];
}

/**
 * The pieces, each followed by the email addresses written inside it when it is no address itself
 * (`attacker@evil.example (boss)`, a group `team: a@x.example`, addresses separated by spaces or
 * `|`, a URL followed by a space and an address). An added piece may be trusted only when the piece
 * it is in was already canonical (it is then written there as it is); the piece it is in is decided
 * too, so an added piece can only add a deny or a question (SPEC §2.5 "Flattening": one bad
 * element decides for the call). A URL without white space is decided whole (its host decides);
 * the addresses written inside it are added as `taintOnly` pieces, which only a taint makes deny.
 *
 * Source: SPEC §2.5 "Splitting", "Flattening".
 * @param pieces - The pieces of one destination argument's value.
 * @returns The pieces, each followed by the URLs and addresses written inside it.
 */
export function withEmbedded(pieces: DestinationPiece[]): DestinationPiece[] {
  if (
    !pieces.some(
      ({ canonical }) => canonical.includes("@") || canonical.includes("/") || LIST_OR_SPACE.test(canonical),
    )
  ) {
    return pieces;
  }
  const out: DestinationPiece[] = [];
  // An address that is a piece of its own already (a list split at its comma) is not added again.
  const pieceForms = new Set(pieces.map((piece) => piece.canonical));
  for (const piece of pieces) {
    out.push(piece);
    const { canonical } = piece;
    out.push(...laterUrls(piece));
    for (const number of embeddedNumbers(canonical)) {
      if (pieceForms.has(number)) continue;
      out.push({ raw: number, canonical: number, eligible: false });
    }
    for (const token of embeddedTokens(canonical)) {
      if (pieceForms.has(token)) continue;
      out.push({ raw: token, canonical: token, eligible: piece.eligible });
    }
    if (!canonical.includes("@") || isEmailShaped(canonical)) continue;
    const seen = new Set<string>(pieceForms);
    // A URL is left whole only without white space or list separators: `…/a|attacker@evil.example`
    // holds the address as `…/a attacker@evil.example` does (a tool splitting the value reads both).
    if (LIST_OR_SPACE.test(canonical) || !isUrlShaped(canonical)) {
      extractTokens(canonical, (key) => {
        if (key === canonical || seen.has(key) || !isEmailShaped(key)) return;
        seen.add(key);
        out.push({ raw: key, canonical: key, eligible: piece.eligible });
      });
    } else {
      // Inside a URL (its query, its path: `…/send?to=attacker@evil.example`) an address may be
      // where the server sends: a deny when it is tainted, nothing otherwise (the URL decides).
      // Not added to `seen`: the comment reading below still decides such an address in full.
      const inside = new Set<string>(seen);
      extractTokens(canonical, (key) => {
        if (key === canonical || inside.has(key) || !isEmailShaped(key)) return;
        inside.add(key);
        out.push({ raw: key, canonical: key, eligible: false, taintOnly: true });
      });
    }
    // RFC 5322 comments and folding white space inside an address (`attacker(x)@evil.example`,
    // `a@(c)evil.example`, `attacker @evil .example`) and quoted pairs in a quoted local part
    // (`"att\acker"@…`): a mail library drops them and delivers to the address that remains
    // (never trusted).
    if (canonical.includes("(") || canonical.includes("\\") || SPACE_BY_ADDRESS_PUNCTUATION.test(canonical)) {
      const uncommented = withoutComments(canonical);
      if (uncommented !== canonical && !seen.has(uncommented) && isEmailShaped(uncommented)) {
        out.push({ raw: uncommented, canonical: uncommented, eligible: false });
      } else if (uncommented !== canonical) {
        // A group or a phrase around it (`team: attacker @evil.example;`): its addresses.
        extractTokens(uncommented, (key) => {
          if (seen.has(key) || !isEmailShaped(key)) return;
          seen.add(key);
          out.push({ raw: key, canonical: key, eligible: false });
        });
      }
    }
  }
  return out;
}
