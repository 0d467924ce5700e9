/**
 * The canonical form of destinations and recorded output (SPEC §2.5 "Canonical form"). Pure.
 *
 * One round: percent-decode (invalid sequences left as they are) → HTML entities decoded (output
 * only) → Unicode NFKC → remove invisible characters (`invisible.ts`: format (Cf), zero-width and
 * bidi controls, fillers, variation selectors) → trim,
 * lower-case, collapse whitespace → strip `mailto:`; for destinations also `Name <addr>` → `addr`.
 * Rounds repeat until the value no longer changes, at most three.
 * @module
 */

import { removeInvisible } from "./invisible.ts";
import { UNSPACED_SCRIPT_CLASS } from "./scripts.ts";

const MAX_ROUNDS = 3;
/** Layers of percent-encoding or entities undone inside one round (each layer shortens the text). */
const MAX_LAYERS = 8;

/**
 * Which canonical form to compute.
 *
 * Source: SPEC §2.5 "Canonical form".
 */
export interface CanonicalOptions {
  /** Recorded output: HTML entities are decoded and every `mailto:` is removed. */
  readonly output?: boolean;
  /** A destination value: a leading `mailto:` is stripped and `Name <addr>` becomes `addr`. */
  readonly destination?: boolean;
}

const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g;
/** Numeric references may carry any number of leading zeros (HTML reads `&#00000064;` as `@`). */
const ENTITY = /&(?:#0*([0-9]{1,7});?|#[xX]0*([0-9a-fA-F]{1,6});?|([A-Za-z][A-Za-z0-9]{1,31});)/g;
/** `Name <addr>`: a display name (words or quoted strings, no unquoted list separator) and `<addr>`. */
const NAME_ADDR = /^(?:"[^"]*"|[^<>",;])*?\s*<\s*([^<>\s][^<>]*?)\s*>$/;

const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map([
  ["amp", "&"],
  ["AMP", "&"],
  ["lt", "<"],
  ["LT", "<"],
  ["gt", ">"],
  ["GT", ">"],
  ["quot", '"'],
  ["QUOT", '"'],
  ["apos", "'"],
  ["nbsp", "\u00a0"],
  ["commat", "@"],
  ["period", "."],
  ["colon", ":"],
  ["semi", ";"],
  ["comma", ","],
  ["sol", "/"],
  ["bsol", "\\"],
  ["num", "#"],
  ["percnt", "%"],
  ["plus", "+"],
  ["equals", "="],
  ["lowbar", "_"],
  ["hyphen", "\u2010"],
  ["dash", "\u2010"],
  ["excl", "!"],
  ["quest", "?"],
  ["lpar", "("],
  ["rpar", ")"],
  ["lsqb", "["],
  ["rsqb", "]"],
  ["lcub", "{"],
  ["rcub", "}"],
  ["verbar", "|"],
  ["ast", "*"],
  ["dollar", "$"],
  ["tilde", "~"],
  ["grave", "`"],
  ["Hat", "^"],
  ["zwj", "\u200d"],
  ["zwnj", "\u200c"],
  ["lrm", "\u200e"],
  ["rlm", "\u200f"],
  ["shy", "\u00ad"],
  ["ensp", "\u2002"],
  ["emsp", "\u2003"],
  ["thinsp", "\u2009"],
  ["NewLine", "\n"],
  ["Tab", "\t"],
]);

/** Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there does not start one. */
function utf8Length(bytes: readonly number[], i: number): number {
  const b0 = bytes[i] ?? 0;
  const cont = (j: number, lo = 0x80, hi = 0xbf): boolean => {
    const b = bytes[i + j];
    return b !== undefined && b >= lo && b <= hi;
  };
  if (b0 < 0x80) return 1;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (b0 === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b0 >= 0xe1 && b0 <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b0 === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** Decodes one run of `%XX` triplets; bytes that are not valid UTF-8 keep their `%XX` text. */
function decodeRun(run: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < run.length; i += 3) bytes.push(Number.parseInt(run.slice(i + 1, i + 3), 16));
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const length = utf8Length(bytes, i);
    if (length === 0) {
      out += run.slice(i * 3, i * 3 + 3);
      i += 1;
      continue;
    }
    const b0 = bytes[i] ?? 0;
    let code = length === 1 ? b0 : b0 & (0xff >> (length + 1));
    for (let j = 1; j < length; j += 1) code = (code << 6) | ((bytes[i + j] ?? 0) & 0x3f);
    out += String.fromCodePoint(code);
    i += length;
  }
  return out;
}

function decodeEntity(match: string, dec?: string, hex?: string, name?: string): string {
  if (name !== undefined) return NAMED_ENTITIES.get(name) ?? match;
  const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? "", 16);
  const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
  return valid ? String.fromCodePoint(code) : match;
}

/** Applies `step` until the text stops changing (at most {@link MAX_LAYERS} times). */
function untilStable(
  text: string,
  layer: { readonly marker: string; readonly step: (text: string) => string },
): string {
  const { marker, step } = layer;
  let current = text;
  for (let layer = 0; layer < MAX_LAYERS && current.includes(marker); layer += 1) {
    const next = step(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * Percent-decodes a string: every run of `%XX` is decoded as UTF-8, and sequences that are not valid
 * UTF-8 are left exactly as written. Nested encodings (`%2541`) are undone layer by layer.
 *
 * Source: SPEC §2.5 "Canonical form" ("percent-decode (invalid sequences left as they are)").
 * @param text - Any text.
 * @returns The decoded text.
 * @example percentDecode("a%40b%ZZ%C3") // "a@b%ZZ%C3"
 */
export function percentDecode(text: string): string {
  return untilStable(text, { marker: "%", step: (t) => t.replace(PERCENT_RUN, decodeRun) });
}

/**
 * Decodes HTML character references: decimal and hexadecimal ones, and the named ones that matter
 * for addresses and invisible characters (`&commat;`, `&amp;`, `&zwj;`, …). Unknown names stay.
 *
 * Source: SPEC §2.5 "Canonical form" ("HTML entities decoded (output only)").
 * @param text - Recorded output text.
 * @returns The decoded text.
 */
export function decodeHtmlEntities(text: string): string {
  return untilStable(text, { marker: "&", step: (t) => t.replace(ENTITY, decodeEntity) });
}

/** Any character outside ASCII (NFKC and the invisible characters only concern those). */
const NON_ASCII = /[\u0080-\uffff]/;
/**
 * A run of non-ASCII characters with the character before it (which a combining mark may compose
 * with). ASCII characters are NFKC starters that nothing after them composes into, so normalising
 * these runs alone equals normalising the whole text, in time proportional to the non-ASCII part.
 */
const NON_ASCII_RUN = /[^\u0080-\uffff]?[\u0080-\uffff]+/g;

function normalizeRun(run: string): string {
  return removeInvisible(run.normalize("NFKC"));
}
/**
 * U+3002 (NFKC also gives it for U+FF61) between two letters, marks or digits, neither of a script
 * written without spaces (there it ends a sentence: `です。次`).
 */
const IDEOGRAPHIC_DOT = new RegExp(
  `(?<=[\\p{L}\\p{M}\\p{N}])(?<![${UNSPACED_SCRIPT_CLASS}])\u3002(?=[\\p{L}\\p{M}\\p{N}])(?![${UNSPACED_SCRIPT_CLASS}])`,
  "gu",
);
/** What a further round could still decode in a round's output (left by a later step of the round). */
const UNDECODED = /%[0-9a-fA-F]{2}|mailto:/;
const ENTITY_START = /&(?:#|[A-Za-z])/;

/**
 * Whether a round's output is already canonical, without running another whole round: percent-
 * encoding and entities are undone to a fixed point within a round, so only what a later step left
 * behind (a `%XX` or entity that NFKC or a removal produced, a `mailto:`) or a non-ASCII run that a
 * second NFKC pass would still change can make a further round differ.
 */
function settled(out: string, options: CanonicalOptions): boolean {
  if (UNDECODED.test(out)) return false;
  if (options.output === true && ENTITY_START.test(out)) return false;
  if (!NON_ASCII.test(out)) return true;
  NON_ASCII_RUN.lastIndex = 0;
  for (let m = NON_ASCII_RUN.exec(out); m !== null; m = NON_ASCII_RUN.exec(out)) {
    if (normalizeRun(m[0]).toLowerCase() !== m[0] || /\s/.test(m[0].slice(1))) return false;
  }
  return true;
}

/**
 * Every run of white space other than a single space (what `/\s+/g` → `" "` changes): a space
 * followed by more white space, or a run starting with another white-space character. Single spaces
 * between words are not matched, so prose is not rebuilt space by space.
 */
const WHITESPACE_TO_COLLAPSE = / \s+|[^\S ]\s*/g;

/**
 * A terminal escape sequence (ECMA-48): a control sequence (`ESC [ … m`, colours) or a
 * two-character escape. What renders such text shows the characters around it run together
 * (`\u001b[1mattacker@evil.example` reads `attacker@evil.example`), so canonical form removes it
 * (stricter than SPEC §2.5, which removes format characters only: it can widen taint, never grant
 * trust, since a destination holding one is not in canonical form). An operating system command's
 * introducer and terminator (`ESC ]`, `BEL`, `ESC \\`) become spaces: its text (a hyperlink's
 * URL) stays, to be indexed.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences are what is matched
const TERMINAL_ESCAPE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|(\]|\\)|[@-Z^_])|(\u0007)/g;

function round(text: string, options: CanonicalOptions): string {
  let out = percentDecode(text);
  if (options.output === true) out = decodeHtmlEntities(out);
  if (out.includes("\u001b"))
    out = out.replace(TERMINAL_ESCAPE, (_, osc, bell) => ((osc ?? bell) ? " " : ""));
  if (NON_ASCII.test(out)) {
    out = out.replace(NON_ASCII_RUN, normalizeRun);
    // An ideographic full stop between two letters or digits is a host's dot (IDNA maps it:
    // `evil。example` is `evil.example` to a URL parser); in prose between ideographs it stays.
    out = out.replace(IDEOGRAPHIC_DOT, ".");
  }
  out = out.toLowerCase();
  // Output: every `mailto:` goes before whitespace is collapsed, so the round ends collapsed.
  if (options.output === true) out = out.replaceAll("mailto:", "");
  out = out.replace(WHITESPACE_TO_COLLAPSE, " ").trim();
  if (options.destination === true) {
    if (out.startsWith("mailto:")) out = out.replace(/^(?:mailto:\s*)+/, "");
    if (out.endsWith(">")) out = out.replace(NAME_ADDR, "$1");
  }
  return out;
}

/** Anything but a space and printable ASCII other than `%`, `&` and `A`–`Z` (output text). */
const NOT_PLAIN_OUTPUT = /[^\x20-\x24\x27-\x40\x5b-\x7e]/;
/**
 * Anything but printable ASCII other than `%` and `&`, and white space (tab to carriage return):
 * output text without such a character has nothing to decode or normalise.
 */
const NOT_ASCII_TEXT_OUTPUT = /[^\t-\r\x20-\x24\x27-\x7e]/;
/** The same for destinations, where `&` stays (entities are decoded in output only). */
const NOT_PLAIN_DESTINATION = /[^\x20-\x24\x26-\x40\x5b-\x7e]/;

/**
 * Whether a value is already its own canonical form, by a test that reads it once: printable ASCII
 * with no upper case, nothing to decode (`%`, and for output `&`), single spaces between words only,
 * no `mailto:`, and for a destination no closing `>`. A round changes nothing in such a value (no
 * step applies), so canonicalising it returns it as it is.
 */
function isPlainCanonical(value: string, options: CanonicalOptions): boolean {
  const notPlain = options.output === true ? NOT_PLAIN_OUTPUT : NOT_PLAIN_DESTINATION;
  if (notPlain.test(value)) return false;
  const last = value.length - 1;
  if (value.charCodeAt(0) === 32 || value.charCodeAt(last) === 32 || value.includes("  ")) return false;
  if (value.includes("mailto:")) return false;
  return options.destination !== true || value.charCodeAt(last) !== 62;
}

/**
 * Computes the canonical form of a destination or of recorded output, repeating the round until
 * the value no longer changes (at most three rounds).
 *
 * Source: SPEC §2.5 "Canonical form".
 * @param value - A raw destination value or a piece of untrusted output.
 * @param options - `output` for recorded text, `destination` for destination values.
 * @returns The canonical form (possibly empty).
 * @example canonicalize("Bob <MAILTO:Bob%40X.example>", { destination: true }) // "bob@x.example"
 */
export function canonicalize(value: string, options: CanonicalOptions = {}): string {
  if (isPlainCanonical(value, options)) return value;
  if (options.output === true && options.destination !== true && !NOT_ASCII_TEXT_OUTPUT.test(value)) {
    // Nothing to decode or normalise: one round is case and white space, and it settles (no `%`,
    // `&` or non-ASCII character, and no `mailto:` to remove that could leave another behind). Not
    // for a destination too: its round also reduces `Name <addr>` to `addr`.
    const lower = value.toLowerCase();
    if (!lower.includes("mailto:")) return lower.replace(WHITESPACE_TO_COLLAPSE, " ").trim();
  }
  let current = value;
  for (let i = 0; i < MAX_ROUNDS; i += 1) {
    const next = round(current, options);
    if (next === current || settled(next, options)) return next;
    current = next;
  }
  return current;
}
