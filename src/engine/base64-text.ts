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
  let binary: string;
  try {
    binary = atob(data.replace(/[-_]/g, (c) => (c === "-" ? "+" : "/")));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}
