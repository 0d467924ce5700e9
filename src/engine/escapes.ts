/**
 * Escapes in untrusted text (SPEC §2.5 "Untrusted text, recorded"): the model reads
 * `attacker\u0040evil.example`, `attacker\100evil.example` or a raw email's quoted-printable
 * `attacker=40evil.example` as an address, so recorded text that holds escapes is recorded a second
 * time with them decoded. Pure.
 * @module
 */

/**
 * A backslash escape: `\u{1F600}`, `\u0040` (JSON, JavaScript, Python), `\x40`, two or three octal
 * digits (`\100`, `\56`: C, Python, shells), one of JSON's `\n \r \t \b \f`, or a backslash before
 * ASCII punctuation (`\"`, `\/`, `\\`, Markdown's `\@`).
 */
const ESCAPE =
  /\\(?:u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([0-7]{2,3})|([nrtbf])|([!-/:-@[-`{-~]))/g;
/**
 * Quoted-printable (RFC 2045 §6.7): runs of `=40` (hex in either case: decoders accept both) and
 * soft line breaks.
 */
const QUOTED_PRINTABLE = /(?:=[0-9A-Fa-f]{2})+|=\r?\n/g;
const MAY_HOLD_QUOTED_PRINTABLE = /=(?:[0-9A-Fa-f]{2}|\r?\n)/;
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * One run of quoted-printable bytes as text: UTF-8 when the bytes are UTF-8 (`=EF=BC=A0` is `＠`),
 * else each byte as Latin-1; a soft line break as nothing.
 */
function decodePrintable(run: string): string {
  if (run.charCodeAt(1) === 0x0d || run.charCodeAt(1) === 0x0a) return "";
  const bytes = new Uint8Array(run.length / 3);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = Number.parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
  try {
    return UTF8.decode(bytes);
  } catch {
    let latin1 = "";
    for (const byte of bytes) latin1 += String.fromCharCode(byte);
    return latin1;
  }
}
/** Escapes decoded again in the result (`\\u0040` → `\u0040` → `@`), like canonical form's rounds. */
const MAX_ROUNDS = 3;
const SINGLE: Readonly<Record<string, string>> = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f" };

function decodeOne(
  match: string,
  braced: string | undefined,
  unit: string | undefined,
  byte: string | undefined,
  octal: string | undefined,
  single: string | undefined,
  punctuation: string | undefined,
): string {
  if (braced !== undefined) {
    const code = Number.parseInt(braced, 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : match;
  }
  const hex = unit ?? byte;
  if (hex !== undefined) return String.fromCharCode(Number.parseInt(hex, 16));
  if (octal !== undefined) return String.fromCharCode(Number.parseInt(octal, 8));
  if (single !== undefined) return SINGLE[single] ?? match;
  return punctuation ?? match;
}

/**
 * Decodes the escapes of a text: quoted-printable's `=HH` and soft line breaks (a run of bytes read
 * as UTF-8 when it is, else as Latin-1), then backslash escapes, up to {@link MAX_ROUNDS}
 * rounds. Each change shortens the text, so the result is never longer than the input.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded" (everything the model can read is recorded).
 * @param text - Untrusted text as the upstream sent it.
 * @returns The decoded text, or undefined when it holds no escape (nothing to record twice).
 * @example decodeEscapes("attacker\\u0040evil.example") // "attacker@evil.example"
 * @example decodeEscapes("attacker=40evil.example") // "attacker@evil.example"
 */
export function decodeEscapes(text: string): string | undefined {
  const quoted = text.includes("=") && MAY_HOLD_QUOTED_PRINTABLE.test(text);
  if (!quoted && !text.includes("\\")) return undefined;
  let out = quoted ? text.replace(QUOTED_PRINTABLE, decodePrintable) : text;
  for (let round = 0; round < MAX_ROUNDS && out.includes("\\"); round += 1) {
    const next = out.replace(ESCAPE, decodeOne);
    if (next === out) break;
    out = next;
  }
  return out === text ? undefined : out;
}
