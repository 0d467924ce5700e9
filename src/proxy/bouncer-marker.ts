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

/** Control characters (Cc): removed before looking for the marker. */
const CONTROLS = /\p{Cc}/gu;

/** The marker's word, also spelled backwards (a right-to-left override shows `[recnuob]` as `[bouncer]`). */
const MARKED = /\[\s*bouncer\s*\]|[[\]]\s*recnuob\s*[[\]]/u;

/**
 * Whether a text contains the marker, also when disguised: compared after Unicode NFKC (full-width
 * brackets and letters), with invisible characters (`removeInvisible`) and control characters
 * removed, case-folded, with whitespace inside the brackets ignored, and read backwards too (a bidi
 * override reverses what is shown). Look-alike letters of other scripts are not folded.
 *
 * Source: SPEC §3.4.
 * @param text - Any text (an upstream's message, a string of its schema).
 * @returns True when the marker occurs.
 * @throws Never.
 */
export function containsBouncerMarker(text: string): boolean {
  const folded = removeInvisible(text.normalize("NFKC")).replace(CONTROLS, "").toLowerCase();
  return MARKED.test(folded);
}

/**
 * Checks a server-to-client request the upstream is about to have relayed: an `elicitation/create`
 * whose message, schema or any other parameter contains the marker is flagged and logged. Call it
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
  let marked = false;
  try {
    // Every key and string of the params, as sent (JSON text would escape control characters).
    JSON.stringify(request.params, (key: string, value: unknown) => {
      marked ||= containsBouncerMarker(key) || (typeof value === "string" && containsBouncerMarker(value));
      return marked ? undefined : value;
    });
  } catch {
    return false;
  }
  if (!marked) return false;
  const message = Object.hasOwn(request.params, "message") ? request.params.message : undefined;
  const shown = typeof message === "string" ? renderUntrusted(message) : "(no message)";
  options.log(
    `Warning: upstream ${renderUntrusted(options.server)} sent an elicitation that contains Bouncer's marker "${BOUNCER_MARKER}"; it does not come from Bouncer and approves nothing in Bouncer: ${shown}`,
  );
  return true;
}
