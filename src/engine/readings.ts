/**
 * The other ways the model may read one untrusted text (SPEC §2.5 "Untrusted text, recorded":
 * everything the model can read is recorded): with its escapes decoded (`escapes.ts`), and without
 * the control characters a renderer draws nothing for (`attacker\u0007@evil.example` shows as
 * `attacker@evil.example`, and a model copying it drops the BEL). Each reading is recorded beside
 * the text as sent, so a control character can neither hide an address (read without it) nor join
 * two (read as the break it is). Pure.
 * @module
 */

import { decodeEscapes } from "./escapes.ts";

/**
 * Control characters that draw nothing: C0 but for tab, line feed, vertical tab, form feed,
 * carriage return (white space, which canonical form collapses) and escape (whose sequences
 * canonical form removes as a whole); DEL; C1.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is matched
const HIDDEN_CONTROL = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above
const HAS_HIDDEN_CONTROL = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f\u007f-\u009f]/;

/**
 * A text without its hidden control characters.
 *
 * Source: SPEC §2.5 "Canonical form" (what is not drawn is removed: format characters; control
 * characters, stricter, as another reading); review of the sink gate (a BEL inside a planted address
 * turned its deny into an ask that said it was never seen).
 * @param text - Any text.
 * @returns The text without them, or undefined when it has none.
 * @example withoutHiddenControls("attacker\u0007@evil.example") // "attacker@evil.example"
 */
export function withoutHiddenControls(text: string): string | undefined {
  return HAS_HIDDEN_CONTROL.test(text) ? text.replace(HIDDEN_CONTROL, "") : undefined;
}

/**
 * The readings of an untrusted text other than the text as sent: its escapes decoded, and the text
 * and that decoding without hidden control characters — each only when it differs.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param text - Untrusted text as the upstream sent it.
 * @returns Zero to three texts, none equal to `text`.
 * @example otherReadings("a\\u0007\u0007@x.example") // ["a\u0007\u0007@x.example", "a\\u0007@x.example", "a@x.example"]
 */
export function otherReadings(text: string): string[] {
  const decoded = decodeEscapes(text);
  const readings = decoded === undefined ? [] : [decoded];
  const bare = withoutHiddenControls(text);
  if (bare !== undefined) readings.push(bare);
  const decodedBare = decoded === undefined ? undefined : withoutHiddenControls(decoded);
  if (decodedBare !== undefined && decodedBare !== bare) readings.push(decodedBare);
  return readings;
}
