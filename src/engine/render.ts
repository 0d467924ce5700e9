/**
 * Safe rendering of untrusted strings in questions and reasons (SPEC §3.4). Pure.
 * @module
 */

const MAX_RENDERED = 200;

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
  const chars = Array.from(value);
  const cut = chars.length > MAX_RENDERED;
  let out = "";
  for (const ch of cut ? chars.slice(0, MAX_RENDERED) : chars) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (code < 0x20 || code === 0x7f || code > 0x7e) out += `\\u{${code.toString(16)}}`;
    else out += ch;
  }
  return `"${out}${cut ? "…" : ""}"`;
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
