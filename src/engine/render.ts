/**
 * Safe rendering of untrusted strings in questions and reasons (SPEC §3.4). Pure.
 * @module
 */

import { INVISIBLE_CLASS } from "./invisible.ts";

/** Code points shown at most. */
const MAX_RENDERED = 200;
/** Printable ASCII other than `"` and `\`: rendered as it is. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Renders an untrusted string for a human: a quoted JSON string cut at 200 characters, with control,
 * format (Cf) and non-ASCII characters written as `\u{…}`.
 *
 * Source: SPEC §3.4 "Rendering untrusted strings".
 * @param value - Any untrusted text (a destination, an excerpt, a description).
 * @returns The quoted, escaped rendering, e.g. `"a\u{200b}b@x.example"`; a cut value ends in `…` inside the quotes.
 * @example renderUntrusted("bob@partner.example") // => "\"bob@partner.example\""
 */
export function renderUntrusted(value: string): string {
  return renderUntrustedWithin(value, MAX_RENDERED);
}

/**
 * Shows a name as it is when it is plain printable ASCII, else rendered safely (SPEC §3.4).
 *
 * Source: SPEC §3.4 (rendering untrusted strings).
 * @param name - A tool, server, file or argument name.
 * @returns The name for a terminal.
 */
export function safeName(name: string): string {
  return /^[\x21-\x7e]+$/.test(name) ? name : renderUntrusted(name);
}

/**
 * Whether {@link renderUntrusted} shows a string whole (it is not cut at 200 characters).
 *
 * Source: SPEC §3.4 "Rendering untrusted strings".
 * @param value - Any untrusted text.
 * @returns True when the rendering holds every character.
 */
export function rendersWhole(value: string): boolean {
  if (value.length <= MAX_RENDERED) return true;
  let count = 0;
  for (const _ of value) if (++count > MAX_RENDERED) return false;
  return true;
}

/**
 * The end of an untrusted string as {@link renderUntrusted} renders it (trailing whitespace dropped),
 * for a value cut at 200 characters whose end matters (where a destination's padding hid it).
 *
 * Source: SPEC §3.4 "Rendering untrusted strings".
 * @param value - Any untrusted text.
 * @param codePoints - How many code points to keep (default 60).
 * @returns e.g. `"…<x1@evil.example>"`, or the whole trimmed value rendered when it is short.
 */
export function renderUntrustedEnd(value: string, codePoints = 60): string {
  const chars = [...value.trimEnd()];
  if (chars.length <= codePoints) return renderUntrusted(chars.join(""));
  return `"…${renderUntrusted(chars.slice(-codePoints).join("")).slice(1)}`;
}

/**
 * {@link renderUntrusted} with another limit (a terminal can show more than a client's form).
 *
 * Source: SPEC §3.4 "Rendering untrusted strings".
 * @param value - Any untrusted text.
 * @param max - Code points shown at most.
 * @returns The quoted, escaped rendering; a cut value ends in `…` inside the quotes.
 */
export function renderUntrustedWithin(value: string, max: number): string {
  if (value.length <= max && PLAIN.test(value)) return `"${value}"`;
  let out = "";
  let at = 0;
  for (let count = 0; count < max && at < value.length; count += 1) {
    const code = value.codePointAt(at) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    if (code === 0x22) out += '\\"';
    else if (code === 0x5c) out += "\\\\";
    else if (code < 0x20 || code === 0x7f || code > 0x7e) out += `\\u{${code.toString(16)}}`;
    else out += value.slice(at, at + width);
    at += width;
  }
  return `"${out}${at < value.length ? "…" : ""}"`;
}

/**
 * Renders an untrusted host name: as {@link renderUntrusted}, followed by its punycode form when that
 * differs (SPEC §3.4 "hosts also in punycode").
 * @param host - A host name as the user or a tool wrote it.
 * @returns e.g. `"exаmple.com" (xn--exmple-4nf.com)`.
 */
export function renderHost(host: string): string {
  let ascii: string | undefined;
  try {
    ascii = new URL(`http://${host}/`).hostname;
  } catch {
    ascii = undefined;
  }
  const shown = renderUntrusted(host);
  return ascii !== undefined && ascii !== host.toLowerCase() ? `${shown} (${ascii})` : shown;
}

/** Control (Cc), line and paragraph separator and invisible characters (`invisible.ts`). */
const CONTROLS = new RegExp(`[\\p{Cc}\\p{Zl}\\p{Zp}${INVISIBLE_CLASS}]`, "gu");

/**
 * Escapes the characters of an untrusted text that a terminal would act on or hide — control (Cc),
 * invisible (format (Cf: zero-width and bidi controls), default-ignorable: fillers, variation
 * selectors, …), line and paragraph separators — as `\u{…}`, leaving everything else as it is (no
 * quotes, no cut: for prose such as a server's stderr, and for sentences that already hold
 * {@link renderUntrusted} values, whose escapes stay as they are).
 *
 * Source: SPEC §3.4 "Rendering untrusted strings".
 * @param text - Untrusted text.
 * @param options - `keepNewlines`: leave line feeds as they are (for multi-line text); `keepTabs`:
 *   leave tabs (a file's indentation in a diff).
 * @returns The text, safe to print.
 * @example escapeControls("a\u001b[2Jb") // => "a\\u{1b}[2Jb"
 */
export function escapeControls(
  text: string,
  options: { readonly keepNewlines?: boolean; readonly keepTabs?: boolean } = {},
): string {
  const keepNewlines = options.keepNewlines === true;
  const keepTabs = options.keepTabs === true;
  return text.replace(CONTROLS, (ch) =>
    (keepNewlines && ch === "\n") || (keepTabs && ch === "\t")
      ? ch
      : `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`,
  );
}
