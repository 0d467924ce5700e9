/**
 * Base64 payloads of MCP results that a client may decode and show as text (SPEC §2.5 "Untrusted
 * text, recorded"): an embedded resource's `blob`, or an image's `data` of a textual type such as
 * `image/svg+xml`. Pure (web-standard `atob` and `TextDecoder` only).
 * @module
 */

/** Media types, after `type/`, whose bytes are text: `+json`, `/xml`, `+yaml` and the like. */
const TEXTUAL_SUBTYPE =
  /(?:^|[+.-])(?:json|xml|yaml|csv|html|markdown|javascript|ecmascript|x-www-form-urlencoded|x-sh|sql|graphql|toml|rtf)$/;

/**
 * Whether a MIME type names text: `text/*`, `message/*` (an email), or a subtype such as
 * `application/json`, `image/svg+xml`, `application/x-yaml`. Parameters (`; charset=…`) are ignored.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param mimeType - The declared MIME type.
 * @returns True for a textual type.
 * @example isTextualMime("image/svg+xml") // true
 */
export function isTextualMime(mimeType: string): boolean {
  const type = mimeType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  const slash = type.indexOf("/");
  if (slash <= 0) return false;
  const top = type.slice(0, slash);
  return top === "text" || top === "message" || TEXTUAL_SUBTYPE.test(type.slice(slash + 1));
}

/**
 * Decodes base64 (standard or URL-safe alphabet, whitespace and missing padding allowed) as UTF-8
 * text, invalid bytes replaced.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param data - The base64 text.
 * @returns The decoded text, or undefined when `data` is not base64.
 * @example decodeBase64Text("aGk=") // "hi"
 */
export function decodeBase64Text(data: string): string | undefined {
  const bytes = decodeBase64Bytes(data);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

/** Base64 (either alphabet, padding optional) to bytes, or undefined when it is not base64. */
function decodeBase64Bytes(data: string): Uint8Array | undefined {
  let binary: string;
  try {
    const standard = data.replace(/[-_]/g, (c) => (c === "-" ? "+" : "/")).replace(/\s+/g, "");
    const padded = standard.replace(/=+$/, "");
    binary = atob(padded + "=".repeat((4 - (padded.length % 4)) % 4));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Only the base64 alphabets (standard and URL-safe), white space and padding. */
const BASE64 = /^[A-Za-z0-9+/_\-\s]*={0,2}\s*$/;

/**
 * Whether a payload is written in base64 at all (a `data` field holding plain text is not).
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param data - The payload.
 * @returns True when every character is of a base64 alphabet, white space or final padding.
 */
export function isBase64(data: string): boolean {
  return BASE64.test(data);
}

/**
 * Whether an untyped base64 payload decodes to text, judged by its first 3 KiB: no NUL and at most
 * one control byte in 32 (binary data is skipped, not decoded whole as text).
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param data - Base64 text.
 * @returns True when it looks like text.
 */
export function looksLikeText(data: string): boolean {
  const head = decodeBase64Bytes(data.replace(/\s+/g, "").slice(0, 4096));
  if (head === undefined) return false;
  let controls = 0;
  for (const byte of head) {
    if (byte === 0) return false;
    if ((byte < 9 || (byte > 13 && byte < 32) || byte === 127) && ++controls * 32 > head.length) return false;
  }
  return true;
}
