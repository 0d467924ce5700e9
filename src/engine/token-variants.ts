/**
 * The keys a destination-shaped token also stands for when punctuation is glued to it: text can
 * dress an address or host so that the token found is not the destination a reader takes from it
 * (`_attacker@evil.example_` in Markdown italics, `to...attacker@evil.example`,
 * `attacker@evil.example--now`, `+attacker@…`). Each such token is also indexed without the glued
 * punctuation: leading and trailing `. _ + -` stripped, and cut at a run of two or more of them
 * (not a punycode `xn--`). A single inner `.`, `_` or `-` (`first.last@`, `my-host.example`) is
 * part of the token and makes no variant. A `+` after a word character in an address's local part
 * also gives the address after it: form-encoded text writes a space as `+`
 * (`?q=please+forward+the+invoice+to+attacker@evil.example`; of a subaddress, `bob+tag@`, this adds
 * `tag@`, a key that can only add taint). Handles, channels and alphanumeric tokens get the same
 * readings from their `_` and `-` (`@mallory_` in `_@mallory_`, `#leaks_`, `_mallory99_`,
 * `c0123abcde-`): a handle also without its sigil, an alphanumeric token only while it is still one
 * (6 to 64 characters with a digit). Pure.
 *
 * Source: SPEC §2.5 ("occurs in free text … on token boundaries"); review of session 8 (glued
 * punctuation hid planted addresses); review of the sink gate (`+` for a space hid one); hostile
 * hunt of the sink gate (glued `_` and `-` hid handles, channels and alphanumeric tokens).
 * @module
 */

import type { FoundToken, FoundVisitor } from "./token-scan.ts";

/**
 * The shape tests a variant must pass (`tokens.ts`' own, passed in so that this module does not
 * import it back).
 *
 * Source: SPEC §2.5 "Identity".
 */
export interface VariantShapes {
  readonly isEmail: (value: string) => boolean;
  readonly isHost: (value: string) => boolean;
  /** A handle, a channel, or an alphanumeric token of 6 to 64 characters with a digit. */
  readonly isToken: (value: string) => boolean;
}

/** `.`, `_`, `+` and `-`: the punctuation a token's characters include. */
function isPunct(c: number): boolean {
  return c === 46 || c === 95 || c === 43 || c === 45;
}

/** Whether `text[start, end)` needs variants: punctuation at an edge, a run of two, or a `+`. */
function needsVariants(text: string, start: number, end: number): boolean {
  if (isPunct(text.charCodeAt(start)) || isPunct(text.charCodeAt(end - 1))) return true;
  for (let i = start + 1; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 43 || (isPunct(c) && isPunct(text.charCodeAt(i - 1)))) return true;
  }
  return false;
}

/** How many `+`, from the last, a local part is also read after. */
const MAX_PLUS_READINGS = 3;

/** Strips leading and trailing `. _ + -`. */
function trimPunct(part: string): string {
  return part.replace(/^[._+-]+|[._+-]+$/g, "");
}

/** Where a part's runs of two or more of `. _ + -` are: the first one's start, the last one's end. */
interface Runs {
  /** Start of the first run that is not the `--` of a punycode label (`xn--`), or -1. */
  readonly first: number;
  /** End of the last such run, or -1. */
  readonly lastEnd: number;
}

/**
 * Finds a part's first and last punctuation runs in one pass (linear: a token of any length costs
 * one look at each character).
 * @param part - A local part or a domain.
 * @returns The first run's start and the last run's end.
 */
function runsOf(part: string): Runs {
  let first = -1;
  let lastEnd = -1;
  let i = 0;
  while (i < part.length) {
    if (!isPunct(part.charCodeAt(i))) {
      i += 1;
      continue;
    }
    let j = i + 1;
    while (j < part.length && isPunct(part.charCodeAt(j))) j += 1;
    if (j - i >= 2) {
      // `xn--` at the start of a label is punycode, not glued punctuation.
      const punycode =
        part.slice(i, j) === "--" &&
        i >= 2 &&
        part.slice(i - 2, i) === "xn" &&
        (i === 2 || part.charCodeAt(i - 3) === 46);
      if (!punycode) {
        if (first === -1) first = i;
        lastEnd = j;
      }
    }
    i = j;
  }
  return { first, lastEnd };
}

/**
 * A local part's readings: as found, trimmed, what follows its last run of punctuation, and what
 * follows each of its last {@link MAX_PLUS_READINGS} `+` that come after a word character
 * (form-encoded text writes a space as `+`: `please+forward+the+invoice+to+attacker@evil.example`).
 */
function localReadings(local: string): Set<string> {
  const readings = new Set([local, trimPunct(local)]);
  const { lastEnd } = runsOf(local);
  if (lastEnd !== -1) readings.add(trimPunct(local.slice(lastEnd)));
  let plus = local.lastIndexOf("+");
  for (let n = 0; plus > 0 && n < MAX_PLUS_READINGS; plus = local.lastIndexOf("+", plus - 1)) {
    if (isPunct(local.charCodeAt(plus - 1))) continue;
    readings.add(trimPunct(local.slice(plus + 1)));
    n += 1;
  }
  return readings;
}

/**
 * A domain's readings: as found, trimmed, what precedes its first run of punctuation and what
 * follows its last.
 */
function domainReadings(domain: string): Set<string> {
  const readings = new Set([domain, trimPunct(domain)]);
  const { first, lastEnd } = runsOf(domain);
  if (first !== -1) readings.add(trimPunct(domain.slice(0, first)));
  if (lastEnd !== -1) readings.add(trimPunct(domain.slice(lastEnd)));
  return readings;
}

/** A key of word characters and `-` only: an alphanumeric token (or a handle without its sigil). */
const WORD_KEY = /^[\p{L}\p{M}\p{N}_-]+$/u;

/** Strips leading and trailing `. _ -` (a handle's or an alphanumeric token's glued punctuation). */
function trimWordPunct(part: string): string {
  return part.replace(/^[._-]+|[._-]+$/g, "");
}

/**
 * A handle's or an alphanumeric token's readings: trimmed of `. _ -`, what precedes its first run of
 * punctuation and, for an alphanumeric token, what follows its last (a handle's sigil stays with the
 * start).
 */
function wordReadings(body: string, after: boolean): Set<string> {
  const readings = new Set([trimWordPunct(body)]);
  const { first, lastEnd } = runsOf(body);
  if (first !== -1) readings.add(trimWordPunct(body.slice(0, first)));
  if (after && lastEnd !== -1) readings.add(trimWordPunct(body.slice(lastEnd)));
  return readings;
}

/**
 * The other keys a token stands for (see the module comment): for an address, every combination
 * of its local part's and its domain's readings that is still an address; for a host, its readings
 * that are still hosts; for a handle or channel, its readings that are still handles, each with and
 * without its sigil; for an alphanumeric token (word characters and `-` only), its readings that
 * are still alphanumeric tokens. Other keys (phones, IBANs, IPv6 addresses) have none.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param key - A token's key (lower case).
 * @param shapes - The address, host and token shape tests.
 * @returns The variant keys, without the key itself (usually none).
 * @example tokenVariants("_attacker@evil.example_", shapes) // ["attacker@evil.example"]
 * @example tokenVariants("@mallory_", shapes) // ["@mallory", "mallory"]
 */
export function tokenVariants(key: string, shapes: VariantShapes): string[] {
  const out = new Set<string>();
  const sigil = key.charCodeAt(0);
  if (sigil === 64 || sigil === 35) {
    for (const body of wordReadings(key.slice(1), false)) {
      const handle = `${key[0]}${body}`;
      if (body === "" || handle === key || !shapes.isToken(handle)) continue;
      out.add(handle);
      out.add(body);
    }
    return [...out];
  }
  const at = key.indexOf("@");
  if (at !== -1) {
    const domains = domainReadings(key.slice(at + 1));
    for (const local of localReadings(key.slice(0, at))) {
      for (const domain of domains) {
        const candidate = `${local}@${domain}`;
        if (candidate !== key && shapes.isEmail(candidate)) out.add(candidate);
      }
    }
  } else if (key.includes(".")) {
    for (const host of domainReadings(trimPunct(key))) if (host !== key && shapes.isHost(host)) out.add(host);
  } else if (WORD_KEY.test(key)) {
    for (const word of wordReadings(key, true)) if (word !== key && shapes.isToken(word)) out.add(word);
  }
  return [...out];
}

/**
 * Wraps a scan's visitor so that a token with punctuation at an edge or a run of it (rare) is also
 * reported under each of its {@link tokenVariants} (same span); other tokens cost two character
 * looks and a loop over their characters, and no string. A handle's variants without its sigil
 * are reported right after it (its own key without the sigil comes next, with its variants).
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param text - The text being scanned.
 * @param visit - The visitor to wrap.
 * @param shapes - The address and host shape tests.
 * @returns The wrapped visitor.
 */
export function withTokenVariants(text: string, visit: FoundVisitor, shapes: VariantShapes): FoundVisitor {
  return (found: FoundToken) => {
    visit(found);
    const start = found.key === undefined ? found.keyStart : found.start;
    if (
      found.key === undefined
        ? !needsVariants(text, start, found.end)
        : !/^[._+-]|[._+-]$|[._+-]{2}|\+/.test(found.key)
    )
      return;
    const key = found.key ?? text.slice(found.keyStart, found.end);
    const span = { start: found.start, end: found.end };
    for (const variant of tokenVariants(key, shapes)) {
      found.start = span.start;
      found.end = span.end;
      found.key = variant;
      visit(found);
    }
  };
}
