/**
 * The URLs written inside a destination value after its start (SPEC §2.5 "Splitting", "Identity",
 * failing closed): a tool that splits the value, or finds URLs in it, posts to each. Each is read
 * from the value as written — a URL is parsed on the raw value, never on a percent-decoded form —
 * and only what decoding alone reveals is read from the canonical form (taint only). Pure.
 * @module
 */

import { canonicalize } from "./canonical.ts";
import type { DestinationPiece } from "./destination-pieces.ts";
import { isUrlShaped } from "./identity.ts";

/**
 * White space (also U+0085 and the information separators U+001C–U+001F, which Python's
 * `str.split()` splits on) and list separators: where a value holds several words.
 *
 * Source: SPEC §2.5 "Splitting".
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the separators Python splits on are the point
export const LIST_OR_SPACE = /[\s\u0085\u001c-\u001f|,;]+/;
/**
 * A bare `//` before a dotted host, not after a scheme's `:` (`x://`): where a scheme-less URL
 * starts inside a value.
 */
const BARE_START = /(?<![A-Za-z0-9+.-]:)\/\/(?=[\p{L}\p{N}_-]+\.)/gu;
/** Whether a UTF-16 code is an ASCII letter. */
function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Whether a UTF-16 code may stand in a scheme (RFC 3986: letters, digits, `+`, `.`, `-`). */
function isSchemeCode(code: number): boolean {
  return (
    isAsciiLetter(code) || (code >= 0x30 && code <= 0x39) || code === 0x2b || code === 0x2e || code === 0x2d
  );
}

/** Whether position `at` follows a `%`, or a `%` and one hex digit (inside a percent escape). */
function inPercentEscape(text: string, at: number): boolean {
  if (text.charCodeAt(at - 1) === 0x25) return true;
  return text.charCodeAt(at - 2) === 0x25 && /[0-9A-Fa-f]/.test(text[at - 1] ?? "");
}

/** What one scan of a value remembers between its searches (`from` only grows). */
interface UrlStartCache {
  /** The next bare `//` found, if still ahead. */
  bare: number | undefined;
  /** From where no bare `//` is left. */
  noneFrom: number;
  /** The next scheme's start found, if still ahead. */
  scheme: { index: number; length: number } | undefined;
  /** From where no scheme is left. */
  noSchemeFrom: number;
}

/**
 * The next place at or after `from` where a URL starts inside a value: a scheme's `://` — its
 * scheme starting at an ASCII letter that is no letter of a percent escape (`%2chttps://` is
 * `,https://`, not the scheme `chttps`), written out, not a Unicode class whose case folding also
 * takes the Kelvin sign and the long s — or a bare `//` before a dotted host. Found from each `://`
 * backwards, so a long run of scheme characters is walked once, not once per position (a regular
 * expression starting at every letter of a long hex word was quadratic).
 * @param text - A value.
 * @param from - Where to search from (never less than at the call before with the same cache).
 * @param cache - What the scan found before (empty at first).
 * @returns The start and the length of what starts the URL (`https://`, `//`), or undefined.
 */
function nextUrlStart(
  text: string,
  from: number,
  cache: UrlStartCache,
): { index: number; length: number } | undefined {
  // The scheme found last is found again only once the search has passed its start (a later `from`
  // leaves the same leftmost start), and none is found again past where none was left.
  if (cache.scheme !== undefined && cache.scheme.index >= from) return pick(text, from, cache, cache.scheme);
  if (from >= cache.noSchemeFrom) return pick(text, from, cache, undefined);
  let scheme: { index: number; length: number } | undefined;
  for (let colon = text.indexOf("://", from); colon !== -1; colon = text.indexOf("://", colon + 1)) {
    let run = colon;
    while (run > from && isSchemeCode(text.charCodeAt(run - 1))) run -= 1;
    for (let at = run; at < colon; at += 1) {
      if (isAsciiLetter(text.charCodeAt(at)) && !inPercentEscape(text, at)) {
        scheme = { index: at, length: colon + 3 - at };
        break;
      }
    }
    if (scheme !== undefined) break;
  }
  cache.scheme = scheme;
  if (scheme === undefined) cache.noSchemeFrom = from;
  return pick(text, from, cache, scheme);
}

/**
 * The earlier of a scheme's start and the next bare `//` at or after `from`.
 * @param text - A value.
 * @param from - Where the search is.
 * @param cache - The scan's cache.
 * @param scheme - The next scheme's start, if any.
 * @returns The start and the length of what starts the URL, or undefined.
 */
function pick(
  text: string,
  from: number,
  cache: UrlStartCache,
  scheme: { index: number; length: number } | undefined,
): { index: number; length: number } | undefined {
  // The bare `//` found last is found again only once the search has passed it: `from` only grows
  // (searching the rest of a value for it at every scheme was quadratic in a value of many URLs).
  if (cache.bare !== undefined && cache.bare < from) cache.bare = undefined;
  if (cache.bare === undefined && cache.noneFrom > from) {
    BARE_START.lastIndex = from;
    const found = BARE_START.exec(text);
    if (found === null) cache.noneFrom = from;
    else cache.bare = found.index;
  }
  const bare = cache.bare;
  return bare !== undefined && (scheme === undefined || bare < scheme.index)
    ? { index: bare, length: 2 }
    : scheme;
}

/** What ends a URL written inside a value: the separators above, quotes and brackets of any script. */
const URL_END =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the separators Python splits on are the point
  /[\s\u0085\u001c-\u001f|,;"'`<>()[\]{}^*\u2018-\u201f\u00ab\u00bb\u2039\u203a\u300c-\u300f]/gu;
/** Characters a sentence ends a URL with (`…/c.`, `…/c!`), dropped. */
const TRAILING = new Set([".", ",", ":", ";", "!", "?"]);

/**
 * A URL as a tool would read it: trailing sentence punctuation dropped, a host's trailing dots
 * dropped (`evil.example./c` is `evil.example/c` to DNS), `//host/…` read as `https://host/…`.
 * Linear (loops, no backtracking).
 * @param text - The candidate.
 * @returns The URL, or undefined when it is none.
 */
function readUrl(text: string): string | undefined {
  let end = text.length;
  while (end > 0 && TRAILING.has(text[end - 1] ?? "")) end -= 1;
  let url = text.slice(0, end);
  if (url.startsWith("//")) url = `https:${url}`;
  const scheme = url.indexOf("://");
  const hostStart = scheme === -1 ? 0 : scheme + 3;
  let hostEnd = hostStart;
  while (hostEnd < url.length && !"/?#:".includes(url[hostEnd] ?? "/")) hostEnd += 1;
  let dots = hostEnd;
  while (dots > hostStart && url[dots - 1] === ".") dots -= 1;
  if (dots !== hostEnd) url = url.slice(0, dots) + url.slice(hostEnd);
  return url !== "" && isUrlShaped(url) ? url : undefined;
}

/**
 * Calls `add` with each URL candidate of a text after its start: wherever a scheme's `://` (or
 * `//host.`) appears — after a separator, a quote, `url=`, `!`, `1.`, `•` or anything else — and,
 * in a text of several words, each later word that is no `//` URL. Linear in the text's length.
 * @param text - A value, as written or canonical.
 * @param add - Receives each candidate as found, and the URL read from it.
 */
function scanUrls(text: string, add: (candidate: string, url: string) => void): void {
  const visit = (candidate: string): void => {
    const url = readUrl(candidate);
    if (url !== undefined) add(candidate, url);
  };
  // After the value's own scheme (its identity is its first URL), wherever a scheme starts; from
  // the very start when the value as a whole is no URL (`https://evil.example (upload endpoint)`:
  // its identity is then no URL, and a tool taking its first word or URL still reaches that host).
  const whole = parsesAsUrl(text);
  const from = whole ? (/^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0].length ?? 1) : 0;
  for (const candidate of urlCandidates(text, from)) visit(candidate);
  if (LIST_OR_SPACE.test(text)) {
    const words = text.split(LIST_OR_SPACE);
    const first = words[0] === "" ? 1 : 0;
    for (const word of words.slice(whole ? first + 1 : first)) if (!word.includes("//")) visit(word);
  }
}

/**
 * Whether a value as a whole is a URL its identity is read from (URL-shaped, and the WHATWG parser
 * takes it, scheme-less ones as `https://`).
 * @param text - A value.
 * @returns True when its first URL is its own identity.
 */
function parsesAsUrl(text: string): boolean {
  if (!isUrlShaped(text)) return false;
  try {
    new URL(/^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The texts from each place a URL starts inside a value ({@link nextUrlStart}) up to the next
 * separator, quote or bracket, in order, none overlapping. Linear in the text's length.
 *
 * Source: SPEC §2.5 "Splitting", "Identity".
 * @param text - A value.
 * @param start - Where to start (after the value's own scheme, or 0).
 * @returns The candidates.
 * @example urlCandidates("see https://a.example/x, //b.example/y", 0) // ["https://a.example/x", "//b.example/y"]
 */
export function urlCandidates(text: string, start: number): string[] {
  const found: string[] = [];
  let from = start;
  const cache: UrlStartCache = {
    bare: undefined,
    noneFrom: Number.POSITIVE_INFINITY,
    scheme: undefined,
    noSchemeFrom: Number.POSITIVE_INFINITY,
  };
  for (let m = nextUrlStart(text, from, cache); m !== undefined; m = nextUrlStart(text, from, cache)) {
    URL_END.lastIndex = m.index;
    const end = URL_END.exec(text)?.index ?? text.length;
    found.push(text.slice(m.index, end));
    from = Math.max(end, m.index + 1);
  }
  return found;
}

/**
 * The canonical URL a decoding reader takes from a URL as written: its canonical form, and that
 * form up to the first separator decoding put in it (`…/s?q=a%20b` is read `…/s?q=a` too).
 */
function decodedReadings(canonical: string): string[] {
  // `search`, not `URL_END.exec`: the scan that calls this is using URL_END's lastIndex.
  const stop = canonical.search(URL_END);
  const head = stop === -1 ? undefined : readUrl(canonical.slice(0, stop));
  return head === undefined ? [canonical] : [canonical, head];
}

/**
 * The URLs written in a value after its start (see {@link scanUrls}). The value's identity is its
 * first URL (the rest parses into its path), but a tool that splits the value, or finds URLs in it,
 * posts to each. Each is a destination of its own — on the same host too, since trust can be a
 * path prefix (`https://hooks.slack.com/services/T0CORP/*`) — read from the value as written
 * (SPEC §2.5 "Identity": never from a percent-decoded form; `https://a.example/x,
 * https://hooks.corp.example%2f@evil.example/` reaches `evil.example`) and trusted only as written
 * in an already-canonical value. When the value is not already canonical, its canonical form is
 * scanned too, for URLs that only decoding shows (`https%3a%2f%2fevil.example`): one that no URL as
 * written gives when decoded is `decoded` — taint only, never trusted, never approved as a URL or
 * its site (SPEC §2.5 "Flattening": one bad element decides for the call). Linear in the value's
 * length.
 *
 * Source: SPEC §2.5 "Splitting", "Identity", "Flattening"; review of the sink gate (a later URL was
 * read from its percent-decoded form).
 * @param piece - One piece of a destination argument, or a whole value. A `decoded` piece's URLs are
 *   `decoded` too.
 * @param options - `asWrittenOnly`: scan the value as written only.
 * @returns The pieces of the later URLs (usually none).
 * @example laterUrls({ raw: "https://a.example/ https://b.example/", canonical: "https://a.example/ https://b.example/", eligible: true })[0]?.raw // "https://b.example/"
 */
export function laterUrls(
  piece: DestinationPiece,
  options: { readonly asWrittenOnly?: boolean } = {},
): DestinationPiece[] {
  const found: DestinationPiece[] = [];
  const seen = new Set<string>();
  const covered = new Set<string>();
  const mark = piece.decoded === true ? { decoded: true as const } : {};
  scanUrls(piece.raw, (candidate, url) => {
    if (seen.has(url)) return;
    seen.add(url);
    const canonical = canonicalize(url, { destination: true });
    for (const reading of decodedReadings(canonical)) covered.add(reading);
    const eligible = piece.eligible && url === candidate && canonical === url.toLowerCase();
    found.push({ raw: url, canonical, eligible, ...mark });
  });
  if (piece.eligible || options.asWrittenOnly === true) return found;
  scanUrls(piece.canonical, (_candidate, url) => {
    const canonical = url.toLowerCase();
    if (seen.has(url) || covered.has(canonical)) return;
    seen.add(url);
    found.push({ raw: url, canonical, eligible: false, decoded: true });
  });
  return found;
}
