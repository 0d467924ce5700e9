/**
 * The fixed marker that starts every question Bouncer puts to a human (`[bouncer]`), and the check
 * that flags an upstream's own elicitation pretending to be one of Bouncer's: such a request is still
 * relayed unchanged (SPEC §3.1), but it is logged so the human and the audit log can tell. Edge (pure).
 *
 * Source: SPEC §3.4 ("Bouncer's own questions start with a fixed marker (`[bouncer]`); a relayed
 * upstream elicitation that contains the marker is flagged").
 * @module
 */

import { type JsonObject, removeInvisible, renderUntrusted } from "../engine/index.ts";

/** The marker that starts the message of every elicitation Bouncer sends. */
export const BOUNCER_MARKER = "[bouncer]";

/**
 * Terminal escape sequences (CSI `ESC [ … final`, its one-character form U+009B, OSC `ESC ] … BEL or
 * ESC \`, and two-character `ESC X`): removed whole before looking for the marker, since a terminal
 * shows none of their characters.
 */
const ESCAPES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding escape sequences is the point
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]/gu;
/** Control characters (Cc): removed before looking for the marker. */
const CONTROLS = /\p{Cc}/gu;
/** Blank characters that are not white space to a regular expression (the Braille blank). */
const BLANKS = /\u2800/gu;
/** The marker, brackets and word, with white space inside the brackets. */
const MARKED = /\[\s*bouncer\s*\]/u;
/** Explicit bidi controls: embeddings, overrides and isolates can reorder what is shown. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/u;

/**
 * How a text may show Bouncer's marker: `marker` when it contains it, also disguised (compared after
 * Unicode NFKC — full-width brackets and letters — with terminal escape sequences, invisible
 * characters (`removeInvisible`) and control characters removed, case-folded, with white space
 * inside the brackets ignored); `bidi` when it holds an explicit bidi control beside a square bracket
 * (a right-to-left override shows `[recnuob]`, or part of a word reversed, as `[bouncer]`, and no
 * check can know every client's rendering); otherwise undefined. Look-alike letters of other scripts
 * are not folded.
 *
 * Source: SPEC §3.4.
 * @param text - Any text (an upstream's message, a key or string of its schema).
 * @returns `marker`, `bidi` or undefined.
 * @throws Never.
 */
export function markerDisguise(text: string): "marker" | "bidi" | undefined {
  const folded = removeInvisible(text.normalize("NFKC").replace(ESCAPES, ""))
    .replace(CONTROLS, "")
    .replace(BLANKS, " ")
    .toLowerCase();
  if (MARKED.test(folded)) return "marker";
  return BIDI.test(text) && /[[\]]/u.test(folded) ? "bidi" : undefined;
}

/**
 * Whether a text contains the marker or may be shown as it ({@link markerDisguise}).
 *
 * Source: SPEC §3.4.
 * @param text - Any text.
 * @returns True for `marker` and `bidi`.
 * @throws Never.
 */
export function containsBouncerMarker(text: string): boolean {
  return markerDisguise(text) !== undefined;
}

/**
 * Checks a server-to-client request the upstream is about to have relayed: an `elicitation/create`
 * whose message, schema or any other parameter (any key or string, as sent) contains the marker or
 * may be shown as it ({@link markerDisguise}) is flagged and logged. Call it
 * from the relay's `onUpstreamRequest` hook; the request is relayed either way.
 *
 * Source: SPEC §3.4, §3.1 (the upstream's own requests are relayed unchanged).
 * @param request - The upstream's request (method and params).
 * @param options - The upstream's name and the stderr logger.
 * @returns True when the request was flagged.
 * @throws Never.
 * @example
 * onUpstreamRequest: (request) => { flagMarkedElicitation(request, { server: "mail", log }) }
 */
export function flagMarkedElicitation(
  request: { readonly method: string; readonly params: JsonObject },
  options: { readonly server: string; readonly log: (message: string) => void },
): boolean {
  if (request.method !== "elicitation/create") return false;
  let found: "marker" | "bidi" | undefined;
  try {
    // Every key and string of the params, as sent (JSON text would escape control characters).
    JSON.stringify(request.params, (key: string, value: unknown) => {
      found ??= markerDisguise(key) ?? (typeof value === "string" ? markerDisguise(value) : undefined);
      return found === undefined ? value : undefined;
    });
  } catch {
    return false;
  }
  if (found === undefined) return false;
  const message = Object.hasOwn(request.params, "message") ? request.params.message : undefined;
  const shown = typeof message === "string" ? renderUntrusted(message) : "(no message)";
  const what =
    found === "marker"
      ? `contains Bouncer's marker "${BOUNCER_MARKER}"`
      : `holds bidi control characters beside a bracket, which can show as Bouncer's marker "${BOUNCER_MARKER}"`;
  options.log(
    `Warning: upstream ${renderUntrusted(options.server)} sent an elicitation that ${what}; it does not come from Bouncer and approves nothing in Bouncer: ${shown}`,
  );
  return true;
}
