/**
 * JSON text that is safe to print on a terminal: what `JSON.stringify` leaves raw that a terminal
 * acts on or hides — C1 controls (U+0080–U+009F: `CSI`, `OSC`), DEL, format characters (bidi
 * overrides, zero-width), default-ignorables, line and paragraph separators — written as `\uXXXX`
 * escapes, which any JSON reader reads back as the same characters: every `--json` output. Edge (pure
 * string work).
 *
 * Source: SPEC §5.6 (`bouncer audit`), §3.4 ("Rendering untrusted strings": a crafted record must
 * not drive the terminal); issue: `--json` printed a hostile tool name's U+009B raw.
 * @module
 */

import { INVISIBLE_CLASS } from "../engine/invisible.ts";

/** What `JSON.stringify` writes raw and a terminal acts on or hides (a line feed is its own layout). */
const RAW_CONTROLS = new RegExp(`(?!\\n)[\\p{Cc}\\p{Zl}\\p{Zp}${INVISIBLE_CLASS}]`, "gu");

/**
 * `JSON.stringify`, with every character a terminal would act on or hide escaped as `\uXXXX` (a
 * character beyond U+FFFF as its two UTF-16 escapes).
 *
 * Source: SPEC §5.6, §3.4.
 * @param value - A JSON value (an audit record, a summary).
 * @param indent - Spaces per level, as `JSON.stringify`'s third argument (default none: one line).
 * @returns The JSON text, equal to `JSON.stringify`'s once parsed.
 * @example terminalJson({ tool: "run\u009b2J" }) // => '{"tool":"run\\u009b2J"}'
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(RAW_CONTROLS, (ch) => {
    let out = "";
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return out;
  });
}
