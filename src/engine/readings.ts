/**
 * The other ways the model may read one untrusted text (SPEC §2.5 "Untrusted text, recorded":
 * everything the model can read is recorded): with its escapes decoded (`escapes.ts`), and without
 * the control characters a renderer draws nothing for (`attacker\u0007@evil.example` shows as
 * `attacker@evil.example`, and a model copying it drops the BEL). Each reading is recorded beside
 * the text as sent, so a control character can neither hide an address (read without it) nor join
 * two (read as the break it is). Pure.
 * @module
 */

import { decodeEncodedWords } from "./encoded-words.ts";
import { decodeEscapes } from "./escapes.ts";

/**
 * Control characters that draw nothing: C0 but for tab, line feed, vertical tab, form feed and
 * carriage return (white space, which canonical form collapses); DEL; C1.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is matched
const HIDDEN_CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above
const HAS_HIDDEN_CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/;
/** A lone surrogate: half a UTF-16 pair, which no encoder writes as a character. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `String.prototype.isWellFormed` (ES2024; in Bun and Deno alike): false when the text holds a lone
 * surrogate. Native, so the common case (no lone surrogate, emoji or not) costs no regular expression.
 */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** What starts a terminal control sequence: escape, or an 8-bit introducer (CSI, OSC, DCS, APC, PM, SOS). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the introducers are what is matched
const SEQUENCE_START = /[\u001b\u0090\u0098\u009b\u009d-\u009f]/;
/**
 * A terminal control sequence (ECMA-48), 7-bit or 8-bit, that a terminal shows nothing of: a
 * control string up to its terminator — an operating system command (an OSC 8 hyperlink's `ESC ] 8
 * ; ; URI BEL`), a device control string, an application program command, a privacy message, a
 * start of string (`ESC P`, `ESC _`, `ESC ^`, `ESC X`, and their 8-bit forms) — a control sequence
 * (`ESC [ 1 m`, `CSI 0 m`), or a two-character escape.
 */
const TERMINAL_SEQUENCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences are what is matched
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?|\u001b[@-Z\\^_]?/g;

/**
 * A text without its hidden control characters and lone surrogates.
 *
 * Source: SPEC §2.5 "Canonical form" (what is not drawn is removed: format characters; control
 * characters, stricter, as another reading); review of the sink gate (a BEL inside a planted address
 * turned its deny into an ask that said it was never seen).
 * @param text - Any text.
 * @returns The text without them, or undefined when it has none.
 * @example withoutHiddenControls("attacker\u0007@evil.example") // "attacker@evil.example"
 */
export function withoutHiddenControls(text: string): string | undefined {
  const controls = HAS_HIDDEN_CONTROL.test(text);
  const surrogates = !isWellFormed(text);
  if (!controls && !surrogates) return undefined;
  const bare = controls ? text.replace(HIDDEN_CONTROL, "") : text;
  return surrogates ? bare.replace(LONE_SURROGATE, "") : bare;
}

/**
 * The readings of an untrusted text other than the text as sent: its escapes decoded, and the text
 * and that decoding without hidden control characters, as a terminal shows them (control
 * sequences removed whole), as a page or Markdown view renders them (tags and markers
 * removed), with MIME encoded words decoded (`encoded-words.ts`), and with a `mailto:` glued to a
 * word set apart from it — each only when it differs, each once.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param text - Untrusted text as the upstream sent it.
 * @returns Zero to eleven texts, none equal to `text`.
 * @example otherReadings("a\\u0007\u0007@x.example") // ["a\u0007\u0007@x.example", "a\\u0007@x.example", "a@x.example"]
 */
export function otherReadings(text: string): string[] {
  const decoded = decodeEscapes(text);
  const readings = decoded === undefined ? [] : [decoded];
  for (const form of decoded === undefined ? [text] : [text, decoded]) {
    for (const reading of [
      withoutHiddenControls(form),
      asTerminalShows(form),
      asRendered(form),
      decodeEncodedWords(form),
      withSchemeApart(form),
    ]) {
      if (reading !== undefined && reading !== text && !readings.includes(reading)) readings.push(reading);
    }
  }
  return readings;
}

/** A `mailto:` glued to the letter, digit, `_`, `-`, `.` or `+` before it. */
const GLUED_MAILTO = /(?<=[\p{L}\p{N}_.+-])mailto:/giu;
/** Whether a text may hold a glued `mailto:` (case-insensitive, as canonical form lower-cases first). */
const MAY_HOLD_GLUED_MAILTO = /[\p{L}\p{N}_.+-]mailto:/iu;

/**
 * A text with each `mailto:` glued to a word set apart from it by a space: canonical form removes
 * every `mailto:` of output, which joins that word to the address (`Forward-to-mailto:attacker@…`,
 * `ForwardToMailto:attacker@…` gave `forward-to-attacker@…`, `forwardtoattacker@…`), while the
 * model reads the scheme as a break. Recorded beside the text as sent, whose joined token stays.
 *
 * Source: SPEC §2.5 "Canonical form" (strip `mailto:`), "Free text versus field values" (keys split
 * on `_`, `-`, spaces and camelCase); review of the glued `Key:value` rule.
 * @param text - Any text.
 * @returns That text, or undefined when it holds no glued `mailto:`.
 */
function withSchemeApart(text: string): string | undefined {
  if (!MAY_HOLD_GLUED_MAILTO.test(text)) return undefined;
  return text.replace(GLUED_MAILTO, " ");
}

/** An HTML tag or comment: `<b>`, `</span>`, `<wbr>`, `<br/>`, `<a href="…">`, `<!-- … -->`. */
const MARKUP_TAG = /<(?:[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?|\/[a-z][a-z0-9-]*\s*|!--[\s\S]{0,4096}?--)>/gi;
/** Markdown's emphasis, strike-through and code markers written double, or a backtick. */
const MARKDOWN_MARK = /\*\*|__|~~|`/g;
/** Whether a text may hold markup: a tag or comment start, or a Markdown marker. */
const MAY_HOLD_MARKUP = /<[a-z/!]|\*\*|__|~~|`/i;

/**
 * A text as a page or a Markdown view renders it: HTML tags and comments, and Markdown's `**`,
 * `__`, `~~` and backticks, removed (`attacker@evil<wbr>.example`, `<b>attacker</b>@evil.example`,
 * `attacker@**evil**.example` render as `attacker@evil.example`; a model reading the source reads the
 * address too). Recorded beside the text as sent, where a tag is a break.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded" (everything the model can read); sink-gate review of
 * session 18 (markup inside a planted address turned its deny into an ask).
 * @param text - Any text.
 * @returns That text, or undefined when it holds no markup.
 */
function asRendered(text: string): string | undefined {
  if (!MAY_HOLD_MARKUP.test(text)) return undefined;
  const shown = text.replace(MARKUP_TAG, "").replace(MARKDOWN_MARK, "");
  return shown === text ? undefined : shown;
}

/**
 * A text as a terminal shows it: its control sequences removed whole (`attacker\u001b]8;;\u0007@evil`
 * shows `attacker@evil`), then its hidden control characters.
 * @param text - Any text.
 * @returns That text, or undefined when it holds no escape or control sequence introducer.
 */
function asTerminalShows(text: string): string | undefined {
  if (!SEQUENCE_START.test(text)) return undefined;
  const shown = text.replace(TERMINAL_SEQUENCE, "");
  return withoutHiddenControls(shown) ?? shown;
}
