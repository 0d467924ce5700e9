/**
 * MIME encoded words (RFC 2047: `=?UTF-8?B?…?=`, `=?UTF-8?Q?…_to_x=40y.example?=`), as a mail
 * library and the model read them: the raw headers a mail tool returns hold them, and an address
 * planted in one is read as the text it encodes. Pure (web-standard `atob` and `TextDecoder` only).
 *
 * Source: SPEC §2.5 "Untrusted text, recorded" (everything the model can read is recorded);
 * sink-gate review of session 18 (an address in an encoded subject was asked about, not denied).
 * @module
 */

import { decodeBase64Bytes } from "./base64-text.ts";

/** An encoded word: charset (with an optional RFC 2231 language), `B` or `Q`, the encoded text. */
const ENCODED_WORD = /=\?([^?\s*]+)(?:\*[^?\s]*)?\?([bBqQ])\?([^?\s]*)\?=/g;
/** White space between two encoded words, which RFC 2047 §6.2 says is dropped. */
const BETWEEN_WORDS = /(\?=)\s+(?==\?[^?\s]+\?[bBqQ]\?)/g;

/**
 * A text with its encoded words decoded (white space between two of them dropped), or undefined
 * when it holds none. A word of an unknown charset is read as UTF-8; one that does not decode is
 * left as it is.
 *
 * Source: RFC 2047 §4, §6.2; SPEC §2.5 "Untrusted text, recorded".
 * @param text - Any text.
 * @returns The decoded text, or undefined.
 * @example decodeEncodedWords("=?UTF-8?Q?pay_x=40evil.example?=") // "pay x@evil.example"
 */
export function decodeEncodedWords(text: string): string | undefined {
  if (!text.includes("=?")) return undefined;
  let changed = false;
  const decoded = text
    .replace(BETWEEN_WORDS, "$1")
    .replace(ENCODED_WORD, (word, charset: string, kind: string, data: string) => {
      const bytes = kind === "b" || kind === "B" ? decodeBase64Bytes(data) : quotedBytes(data);
      if (bytes === undefined) return word;
      changed = true;
      return decoderFor(charset).decode(bytes);
    });
  return changed ? decoded : undefined;
}

/** The `Q` encoding's bytes: `_` is a space, `=XX` a byte, anything else itself (RFC 2047 §4.2). */
function quotedBytes(data: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < data.length; i += 1) {
    const c = data[i] ?? "";
    const hex = c === "=" ? data.slice(i + 1, i + 3) : "";
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(c === "_" ? 0x20 : c.charCodeAt(0) & 0xff);
  }
  return Uint8Array.from(bytes);
}

/** A decoder for a charset label, UTF-8 for one the platform does not know. */
function decoderFor(charset: string): TextDecoder {
  try {
    return new TextDecoder(charset);
  } catch {
    return new TextDecoder();
  }
}
