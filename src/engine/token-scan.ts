/**
 * Destination-shaped tokens in ASCII canonical text, found by hand-written scanners that match
 * exactly what the token patterns of `tokens.ts` match (same tokens, same order) but build no match
 * objects or strings: each token is reported as offsets into the text. Used for every text without a
 * character above U+007F, which is nearly all output, for the shapes that occur often (addresses,
 * hosts, handles, alphanumeric tokens); phones and IBANs, rare in text, are found by their patterns.
 * Pure.
 * @module
 */

/**
 * One token found: the token is `text[start, end)`; its index key is `key` when set, otherwise
 * `text[keyStart, end)`. One object is reused for every token of a scan.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 */
export interface FoundToken {
  start: number;
  end: number;
  keyStart: number;
  key: string | undefined;
}

/**
 * Receives each token found (the object is reused: copy what must outlive the call).
 *
 * Source: SPEC §2.5 "Index, not rescans".
 */
export type FoundVisitor = (found: FoundToken) => void;

/**
 * A scan in progress: the text, the reused token, and the visitor.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 */
export interface Scan {
  readonly text: string;
  readonly found: FoundToken;
  readonly visit: FoundVisitor;
  /**
   * Called with a dotted match that is no host (its last label has no letter and it is no IPv4
   * address) but has `_` or `-` at an edge or a run of `. _ -` (`_203.0.113.5_`,
   * `evil.example._`): the caller reports the hosts it stands for without them.
   */
  readonly gluedDotted?: (start: number, end: number) => void;
}

/** The longest DNS name (RFC 1035: 253 characters written out); longer parent domains are not indexed. */
export const MAX_HOST_LENGTH = 253;

const DOT = 46;
const AT = 64;
const HASH = 35;
const DASH = 45;
const PLUS = 43;
const UNDERSCORE = 95;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

/** `\w` on ASCII text. */
function isWord(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === 95;
}

/** `[\w-]`: a host label, alphanumeric token or address domain character. */
function isLabel(c: number): boolean {
  return isWord(c) || c === DASH;
}

/** `[\p{L}\p{M}\p{N}._+-]`: an address's local part. */
function isLocal(c: number): boolean {
  return isWord(c) || c === DOT || c === PLUS || c === DASH;
}

/** Reports the token `text[found.start, found.end)` (set by the caller) under `text[keyStart, end)`. */
function emit(scan: Scan, keyStart: number): void {
  const { found } = scan;
  found.keyStart = keyStart;
  found.key = undefined;
  scan.visit(found);
}

/** The end of `label(.label)+` whose first `.` is at `dot`, or -1 when no label follows a dot. */
function dottedEnd(text: string, dot: number): number {
  let end = -1;
  let at = dot;
  while (text.charCodeAt(at) === DOT) {
    let next = at + 1;
    while (isLabel(text.charCodeAt(next))) next += 1;
    if (next === at + 1) break;
    end = next;
    at = next;
  }
  return end;
}

/**
 * Addresses, found from each `@` as `tokens.ts` does (back over the local part, then forward).
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param scan - The text, the reused token and the visitor.
 * @returns Nothing.
 */
export function scanEmails(scan: Scan): void {
  const { text } = scan;
  let resume = 0;
  for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", Math.max(at + 1, resume))) {
    let start = at;
    while (start > resume && isLocal(text.charCodeAt(start - 1))) start -= 1;
    if (start === at || isLocal(text.charCodeAt(start - 1))) continue;
    let label = at + 1;
    while (isLabel(text.charCodeAt(label))) label += 1;
    if (label === at + 1) continue;
    const end = dottedEnd(text, label);
    if (end === -1) continue;
    scan.found.start = start;
    scan.found.end = end;
    emit(scan, start);
    resume = end;
  }
}

/** `^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$` on `text[start, end)`. */
function isDottedQuad(text: string, start: number, end: number): boolean {
  let groups = 0;
  let at = start;
  while (at < end) {
    const from = at;
    while (at < end && isDigit(text.charCodeAt(at))) at += 1;
    if (at === from || at - from > 3) return false;
    groups += 1;
    if (at === end) break;
    if (text.charCodeAt(at) !== DOT) return false;
    at += 1;
    if (at === end) return false;
  }
  return groups === 4;
}

/** `_` or `-`. */
function isGlue(c: number): boolean {
  return c === UNDERSCORE || c === DASH;
}

/**
 * Whether `text[start, end)` has `_` or `-` at an edge, or two of `. _ -` in a row: punctuation
 * glued to a token rather than part of it (`token-variants.ts`).
 *
 * Source: SPEC §2.5 "Index, not rescans"; hostile hunt of the sink gate.
 * @param text - The text.
 * @param start - The match's start.
 * @param end - The match's end.
 * @returns True when the match may stand for a token without that punctuation.
 */
export function hasGluedPunct(text: string, start: number, end: number): boolean {
  if (isGlue(text.charCodeAt(start)) || isGlue(text.charCodeAt(end - 1))) return true;
  for (let i = start + 1; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if ((isGlue(c) || c === DOT) && (isGlue(text.charCodeAt(i - 1)) || text.charCodeAt(i - 1) === DOT))
      return true;
  }
  return false;
}

/** One dotted match: a host when its last label has a letter or it is an IPv4 address. */
function visitHost(scan: Scan, start: number, end: number): void {
  const { text } = scan;
  const lastDot = text.lastIndexOf(".", end - 1);
  let letter = false;
  for (let i = lastDot + 1; i < end && !letter; i += 1) letter = isLetter(text.charCodeAt(i));
  const quad = isDottedQuad(text, start, end);
  if (!letter && !quad) {
    if (scan.gluedDotted !== undefined && hasGluedPunct(text, start, end)) scan.gluedDotted(start, end);
    return;
  }
  scan.found.start = start;
  scan.found.end = end;
  emit(scan, start);
  if (quad) return;
  // Parent domains of at least two labels, longest first, none longer than a DNS name can be (as
  // `hostSuffixes`: 253 characters).
  const from = text.indexOf(".", Math.max(start, end - MAX_HOST_LENGTH - 1));
  for (let dot = from; dot !== -1 && dot !== lastDot; dot = text.indexOf(".", dot + 1)) {
    scan.found.start = start;
    scan.found.end = end;
    emit(scan, dot + 1);
  }
}

/**
 * `(?:(?<![\w.-])|(?<=(?<![\w-])\.))[\w-]+(?:\.[\w-]+)+`, found from each `.`: the label run
 * before it starts a match, also right after a `.` that follows no label character (`.evil.example`,
 * `to...evil.example`: the dots are glued to the host). Each host is reported with its parent
 * domains (as `hostSuffixes`).
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param scan - The text, the reused token and the visitor.
 * @returns Nothing.
 */
export function scanHosts(scan: Scan): void {
  const { text } = scan;
  let from = 0;
  for (let dot = text.indexOf("."); dot !== -1; ) {
    let start = dot;
    while (start > from && isLabel(text.charCodeAt(start - 1))) start -= 1;
    const before = text.charCodeAt(start - 1);
    // After a `.` only when no label character stands before it (`.evil.example`, `to...evil.example`).
    const glued = before === DOT && !isLabel(text.charCodeAt(start - 2));
    const end = start === dot || isLabel(before) || (before === DOT && !glued) ? -1 : dottedEnd(text, dot);
    if (end === -1) {
      dot = text.indexOf(".", dot + 1);
      continue;
    }
    visitHost(scan, start, end);
    from = end;
    dot = text.indexOf(".", end);
  }
}

/**
 * Whether the `.`, `_` and `-` right before `at` are glued to what follows: the run of them is at
 * the text's start, after a character that is no label character, `@` or `#`, or holds two dots in
 * a row (`_@mallory_`, `-#leaks`, ` .#leaks`, `to...#leaks`; not `bob_@x`, `a-#b` or `end.#x`).
 */
function gluedBefore(text: string, at: number): boolean {
  let i = at - 1;
  let dots = false;
  for (let c = text.charCodeAt(i); isGlue(c) || c === DOT; c = text.charCodeAt(i)) {
    dots ||= c === DOT && text.charCodeAt(i - 1) === DOT;
    i -= 1;
  }
  if (i === at - 1) return false;
  const c = text.charCodeAt(i);
  return dots || !(isLabel(c) || c === AT || c === HASH);
}

/**
 * `(?:(?<![\w.@#-])|(?<=(?<![\w.@#-])[._-]+)|(?<=\.\.[._-]*))[@#]\w(?:[\w.-]*\w)?`: handles and channels, with and
 * without their sigil, also right after `_` or `-` glued to them (Markdown's `_@mallory_`).
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param scan - The text, the reused token and the visitor.
 * @returns Nothing.
 */
export function scanHandles(scan: Scan): void {
  const { text } = scan;
  let nextAt = text.indexOf("@");
  let nextHash = text.indexOf("#");
  let from = 0;
  for (;;) {
    if (nextAt !== -1 && nextAt < from) nextAt = text.indexOf("@", from);
    if (nextHash !== -1 && nextHash < from) nextHash = text.indexOf("#", from);
    const p = nextAt === -1 ? nextHash : nextHash === -1 ? nextAt : Math.min(nextAt, nextHash);
    if (p === -1) return;
    from = p + 1;
    const before = text.charCodeAt(p - 1);
    if ((isLabel(before) || before === DOT || before === AT || before === HASH) && !gluedBefore(text, p))
      continue;
    if (!isWord(text.charCodeAt(p + 1))) continue;
    let end = p + 2;
    for (let i = p + 2; ; i += 1) {
      const c = text.charCodeAt(i);
      if (isWord(c)) end = i + 1;
      else if (c !== DOT && c !== DASH) break;
    }
    scan.found.start = p;
    scan.found.end = end;
    emit(scan, p);
    scan.found.start = p;
    scan.found.end = end;
    emit(scan, p + 1);
    from = end;
  }
}

/** Any ASCII digit (a quick way to the next run that may be an alphanumeric token). */
const DIGIT = /[0-9]/g;

/**
 * `(?<![\w-])[\w-]{6,64}(?![\w-])` with a digit: whole runs of 6 to 64 label characters, found from
 * each digit (the run around it), in text order.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param scan - The text, the reused token and the visitor.
 * @returns Nothing.
 */
export function scanAlphanumerics(scan: Scan): void {
  const { text } = scan;
  DIGIT.lastIndex = 0;
  while (DIGIT.test(text)) {
    const digit = DIGIT.lastIndex - 1;
    let start = digit;
    while (start > 0 && isLabel(text.charCodeAt(start - 1))) start -= 1;
    let end = digit + 1;
    while (isLabel(text.charCodeAt(end))) end += 1;
    const size = end - start;
    if (size >= 6 && size <= 64) {
      scan.found.start = start;
      scan.found.end = end;
      emit(scan, start);
    }
    DIGIT.lastIndex = end;
  }
}
