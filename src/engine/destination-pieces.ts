/**
 * Splitting one flattened destination string into destinations (SPEC §2.5 "Splitting"): address
 * lists, `mailto:` URLs, and — for a gated call's argument, failing closed — a URL followed by a
 * list and the addresses written inside a value that is no address (`embedded-addresses.ts`). Pure.
 * @module
 */

import { canonicalize } from "./canonical.ts";
import { displayNameAddresses, withEmbedded } from "./embedded-addresses.ts";
import { isUrlShaped } from "./identity.ts";
import { laterUrls } from "./later-urls.ts";
import { withoutHiddenControls } from "./readings.ts";
import { isEmailShaped, isPhoneShaped } from "./token-shapes.ts";

/**
 * One destination after splitting: its raw piece, canonical form, and whether it may be trusted.
 *
 * Source: SPEC §2.5 "Which arguments are destinations", "Flattening", "Splitting".
 */
export interface DestinationPiece {
  /**
   * The raw value, trimmed; for a piece of a list, the piece as written in the raw value where that
   * splits at the same place, else (`decoded`) as written in the canonical list.
   */
  readonly raw: string;
  readonly canonical: string;
  /** SPEC §2.5: the raw form, trimmed and case-folded, already equals its canonical form. */
  readonly eligible: boolean;
  /**
   * True when `raw` is not the value as written but a piece only its canonical form holds (a list
   * split at a decoded separator, a URL only decoding shows): its identity is read from the
   * canonical form, for taint only (SPEC §2.5 "Identity": a URL is parsed on the raw value), so it
   * is never trusted, nor approved as a URL or a site.
   */
  readonly decoded?: true;
  /**
   * True for a destination written inside another that is decided as a whole (an address in a
   * URL's query, `https://relay.example/send?to=attacker@evil.example`): it can only deny, never
   * ask — it objects only when tainted (free text of untrusted output, SPEC §2.5), so a trusted or
   * asked-about URL carrying an ordinary address decides as before.
   */
  readonly taintOnly?: true;
}

/** Splits on `,` and `;` outside double quotes and angle brackets. */
function splitList(text: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let angle = false;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === "<" && !quoted) angle = true;
    else if (ch === ">" && !quoted) angle = false;
    else if ((ch === "," || ch === ";") && !quoted && !angle) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

function isAddress(part: string): boolean {
  const reduced = canonicalize(part, { destination: true });
  return isEmailShaped(reduced) || isPhoneShaped(reduced);
}

/**
 * Whether the items of a field value split at `,` or `;` are a list of addresses (SPEC §2.5 "Free
 * text versus field values": an occurrence is a field value only when it is the whole scalar, and
 * a list of addresses is read as its addresses): every item is an address or a phone number
 * (`Name <addr>` too), an empty group (`undisclosed-recipients:;`) or a group's first address
 * (`team: a@…`), the group's name at most {@link GROUP_NAME_WORDS} words. A name or a note beside
 * an address is none (`Bob Smith, bob@…`, `Forward all invoices to, a@evil.example`: which is which
 * cannot be told), so such a list is free text.
 *
 * Source: SPEC §2.5; reviews of session 18 (prose items made a planted address a field value;
 * a rule for short names let short prose through).
 * @param items - The items, trimmed, none empty.
 * @returns True when the list's addresses are field values.
 */
function isAddressList(items: readonly string[]): boolean {
  let addresses = 0;
  for (const item of items) {
    if (isAddress(item)) addresses += 1;
    else if (!isGroupItem(item)) return false;
  }
  return addresses > 0;
}

/** Most words of a group's name in an address list of output (`undisclosed-recipients`, `Sales Team`). */
const GROUP_NAME_WORDS = 2;

/**
 * Whether a list item is an empty group (`undisclosed-recipients:`) or a group's first address
 * (`team: a@…`), its name at most {@link GROUP_NAME_WORDS} words.
 * @param part - One item, trimmed.
 * @returns True for a group item.
 */
function isGroupItem(part: string): boolean {
  const group = /^([^@:]*):\s*(.*)$/.exec(part);
  if (group === null) return false;
  if ((group[1] ?? "").trim().split(/\s+/).length > GROUP_NAME_WORDS) return false;
  return group[2] === "" || isAddress(group[2] ?? "");
}

/** A `mailto:` URL, also as `Name <mailto:…>` or percent-encoded: what `canonicalize` strips. */
function isMailto(trimmed: string): boolean {
  return /^(?:[^<>]*<\s*)?mailto:/.test(canonicalize(trimmed));
}

/**
 * `a@x?cc=b@y&subject=…` (a `mailto:` URL after canonicalisation) → the addresses of its path and its
 * `to`/`cc`/`bcc` fields. For a destination (`sink`), failing closed, also every address-shaped
 * piece of any other field and every piece of a field that is no `name=value` header field
 * (`a@x?,b@y`: a mail library may split that on the comma, so nothing after the `?` is dropped
 * unseen), and a destination's query splits at `;` as at `&`. Recorded output needs no more: what is
 * not a piece is indexed as free text.
 */
function mailtoParts(canonical: string, sink: boolean): string[] | undefined {
  const at = canonical.indexOf("?");
  if (at === -1) return undefined;
  const head = splitList(canonical.slice(0, at));
  if (!head.every(isAddress)) return undefined;
  const parts = [...head];
  // A destination's query splits at `;` too: readers that take `;` for `&` (Python's `parse_qs`
  // with `separator=";"`, older Rack) read `?subject=x;cc=evil@…` as a `cc` field.
  for (const field of canonical.slice(at + 1).split(sink ? /[&;]/ : "&")) {
    const eq = field.indexOf("=");
    const name = (eq === -1 ? field : field.slice(0, eq)).trim();
    const value = eq === -1 ? "" : field.slice(eq + 1);
    if (["to", "cc", "bcc"].includes(name)) parts.push(...splitList(value));
    else if (!sink) continue;
    else if (!/^[a-z][a-z0-9-]*$/.test(name)) parts.push(...splitList(field));
    else parts.push(...splitList(value).filter(isAddress));
  }
  return parts;
}

/**
 * Options of {@link destinationPieces}.
 *
 * Source: SPEC §2.5 "Splitting".
 */
export interface PieceOptions {
  /**
   * Split a destination argument of a gated call (true) rather than a field value of recorded
   * output (default false). A destination fails closed: a `?` splits only a `mailto:` URL (whose
   * other query fields keep their addresses), a URL followed by `,addr` is split (and stays a
   * piece as a whole), and addresses written inside a piece that is no address are added as pieces
   * of their own (trusted only as written in an already-canonical value). For output these would
   * turn free text into field values, so they apply to destinations only.
   */
  readonly sink?: boolean;
}

/**
 * Splits one flattened destination string into destinations: an address list (`a@x.example,
 * b@y.example`, `;`-separated, `Name <addr>` items) becomes one destination per address, and a
 * `mailto:` URL one per address of its path and its `to`/`cc`/`bcc` query fields. Pieces that are
 * empty after canonicalisation are dropped; a value that splits into none is one piece as a
 * whole. With `sink` (a gated call's argument), failing closed as {@link PieceOptions} says, and a
 * value holding hidden control characters (`readings.ts`) gives the pieces of its reading without
 * them too, never trusted; otherwise URL-shaped values are never split.
 *
 * Source: SPEC §2.5 "Splitting", "Canonical form" (trust only for already-canonical raw values),
 * "Flattening" (one bad element decides for the call).
 * @param raw - A flattened destination string (or a field value of recorded output).
 * @param options - `sink` for a destination argument of a gated call.
 * @returns The destinations it holds (none when it is empty).
 * @example destinationPieces("a@evil.example, boss@corp.example").map((p) => p.canonical) // ["a@evil.example", "boss@corp.example"]
 */
export function destinationPieces(raw: string, options: PieceOptions = {}): DestinationPiece[] {
  const pieces = piecesOf(raw, options);
  if (options.sink !== true) return pieces;
  // A destination holding control characters a renderer draws nothing for reaches, read without
  // them, what the model may have copied (`attacker\u0007@evil.example`): those pieces too, for
  // taint only (SPEC §2.5: canonicalisation may widen taint, never grant trust).
  const bare = withoutHiddenControls(raw);
  if (bare === undefined) return pieces;
  const hidden = piecesOf(bare, options).map((piece) => ({
    ...piece,
    eligible: false,
    decoded: true as const,
  }));
  return [...pieces, ...hidden];
}

/** {@link destinationPieces} of one reading of the value. */
function piecesOf(raw: string, options: PieceOptions): DestinationPiece[] {
  const sink = options.sink === true;
  const finish = sink ? withEmbedded : (pieces: DestinationPiece[]): DestinationPiece[] => pieces;
  const trimmed = raw.trim();
  const canonical = canonicalize(trimmed, { destination: true });
  if (canonical === "") return [];
  const self: DestinationPiece = { raw: trimmed, canonical, eligible: trimmed.toLowerCase() === canonical };
  const single = finish([self, ...(sink ? displayNameAddresses(trimmed) : [])]);
  if (!/[,;?]/.test(canonical) || (!sink && isUrlShaped(trimmed))) return single;
  const whole = canonical.replace(/^[^<>]*<([^<>]*[,;?][^<>]*)>$/, "$1");
  const listed = splitList(whole);
  const isList = listed.length > 1 || (listed.length === 1 && listed[0] !== whole);
  const mailto = sink && !(whole.includes("?") && isMailto(trimmed)) ? undefined : mailtoParts(whole, sink);
  const parts =
    mailto ?? (isList && (sink ? listed.some(isAddress) : isAddressList(listed)) ? listed : undefined);
  if (parts === undefined) return single;
  const wholeEligible = trimmed.toLowerCase() === whole;
  const written = wholeEligible ? undefined : writtenParts(trimmed);
  const split = parts.flatMap((part): DestinationPiece[] => {
    const piece = canonicalize(part, { destination: true });
    if (piece === "") return [];
    const named = sink ? displayNameAddresses(part) : [];
    const found = written?.get(piece);
    const asWritten = wholeEligible ? part : found?.raw;
    const at = asWritten === undefined ? { raw: part, decoded: true as const } : { raw: asWritten };
    // SPEC §2.5: a piece's own raw form, trimmed and case-folded, equals its canonical form — however
    // the space around it was written (`boss@corp.example  , x@y.example` as `… , …`).
    const eligible = wholeEligible ? piece === part : found?.eligible === true;
    return [{ ...at, canonical: piece, eligible }, ...named];
  });
  // A non-empty value that splits into nothing (`mailto:?`, `mailto:?cc=`) is one destination as a
  // whole: empty only when it flattens to no non-empty string (SPEC §2.5 "Flattening").
  if (split.length === 0) return single;
  // A URL split at a list separator stays a destination as a whole too: a separator in its
  // userinfo (`https://hooks.corp.example,x@evil.example`) must not hide the host it reaches.
  if (sink && isUrlShaped(trimmed)) return finish([self, ...split]);
  // A URL that is a piece only once decoded (`a@x.example%2chttps://…`): the URLs written in the
  // value are read as written too, and stand for the decoded pieces they are.
  if (!sink || !split.some((p) => p.decoded === true && mayHoldUrl(p.canonical))) return finish(split);
  const urls = laterUrls(self, { asWrittenOnly: true });
  const shown = new Set(urls.map((p) => p.canonical));
  return finish([...split.filter((p) => p.decoded !== true || !shown.has(p.canonical)), ...urls]);
}

/** Whether a canonical piece is, or holds, a URL. */
function mayHoldUrl(canonical: string): boolean {
  return canonical.includes("//") || isUrlShaped(canonical);
}

/** A piece of a list as written (the first part of its canonical form), and whether it may be trusted. */
interface WrittenPart {
  readonly raw: string;
  /** Every part of this canonical form is written as it (case aside), in no `Name <list>`. */
  readonly eligible: boolean;
}

/**
 * The pieces of a list as written: the trimmed raw value split at its own separators (each part
 * trimmed), by their canonical form (the first one of each). A piece of the canonical list that is
 * one of them has its raw text, so that its URL is parsed as written (SPEC §2.5 "Identity"), and may
 * be trusted when it is written as its canonical form: a list whose only change is the white space
 * between its items (`a@x.example  , b@y.example`) trusts what `a@x.example , b@y.example` does,
 * never a piece another part spells otherwise (`boss@corp.examp%6ce`).
 */
function writtenParts(trimmed: string): Map<string, WrittenPart> {
  const byCanonical = new Map<string, WrittenPart>();
  const list = trimmed.replace(/^[^<>]*<([^<>]*[,;][^<>]*)>$/, "$1");
  const bracketed = list !== trimmed;
  for (const part of splitList(list)) {
    const canonical = canonicalize(part, { destination: true });
    const asCanonical = !bracketed && part.toLowerCase() === canonical;
    const first = byCanonical.get(canonical);
    byCanonical.set(canonical, {
      raw: first?.raw ?? part,
      eligible: (first === undefined || first.eligible) && asCanonical,
    });
  }
  return byCanonical;
}
