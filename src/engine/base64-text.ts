/**
 * Base64 payloads of MCP results that a client may decode and show as text (SPEC §2.5 "Untrusted
 * text, recorded"): an embedded resource's `blob`, or an image's `data` of a textual type such as
 * `image/svg+xml`. Pure (web-standard `atob` and `TextDecoder` only).
 * @module
 */

/**
 * Media types, after `type/`, whose bytes are text: `+json`, `/xml`, `+yaml`, JSON Lines
 * (`x-ndjson`, `jsonl`, `json-seq`), a mailbox (`mbox`) and the like.
 */
const TEXTUAL_SUBTYPE =
  /(?:^|[+.-])(?:json|ndjson|jsonl|jsonlines|json-seq|xml|yaml|csv|html|markdown|javascript|ecmascript|x-www-form-urlencoded|x-sh|sql|graphql|toml|rtf|mbox)$/;

/**
 * Whether a MIME type names text: `text/*`, `message/*` (an email), or a subtype such as
 * `application/json`, `image/svg+xml`, `application/x-yaml`, `application/x-ndjson`. Parameters
 * (`; charset=…`) do not change the answer.
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
 * Decodes base64 (standard or URL-safe alphabet, whitespace and missing padding allowed) as text,
 * invalid bytes replaced: as UTF-8 always, and as well in the encoding a byte-order mark or the
 * MIME type's `charset=` names (UTF-16, Latin-1, Shift JIS, … — any WHATWG label) when that differs.
 * Both readings are returned, since a client may honour the charset or ignore it; an unknown label
 * is ignored.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param data - The base64 text.
 * @param mimeType - The declared MIME type, if any (its `charset` parameter is read).
 * @returns The decoded readings (UTF-8 first), or undefined when `data` is not base64.
 * @example decodeBase64Text("aGk=") // ["hi"]
 */
export function decodeBase64Text(data: string, mimeType?: string): string[] | undefined {
  const bytes = decodeBase64Bytes(data);
  if (bytes === undefined) return undefined;
  const readings = [new TextDecoder().decode(bytes)];
  const other = bomEncoding(bytes) ?? charsetOf(mimeType);
  if (other === undefined) return readings;
  try {
    const decoder = new TextDecoder(other);
    if (decoder.encoding !== "utf-8") readings.push(decoder.decode(bytes));
  } catch {
    // A label no decoder knows: the UTF-8 reading stands.
  }
  return readings;
}

/** The encoding a byte-order mark names (UTF-16 either way; UTF-8's is the default reading). */
function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

/** The `charset` parameter of a MIME type (`text/plain; charset="UTF-16"` → `UTF-16`). */
function charsetOf(mimeType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(mimeType ?? "");
  return match?.[1];
}

/**
 * Base64 (either alphabet, padding optional) to bytes, or undefined when it is not base64.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param data - The base64 text.
 * @returns The bytes, or undefined.
 */
export function decodeBase64Bytes(data: string): Uint8Array | undefined {
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
 * Whether an untyped base64 payload decodes to text, judged by its first 3 KiB: a UTF-16 byte-order
 * mark, or no NUL and at most one control byte in 32 (binary data is skipped, not decoded whole as
 * text).
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param data - Base64 text.
 * @returns True when it looks like text.
 */
export function looksLikeText(data: string): boolean {
  const head = decodeBase64Bytes(data.replace(/\s+/g, "").slice(0, 4096));
  if (head === undefined) return false;
  if (bomEncoding(head) !== undefined) return true;
  let controls = 0;
  for (const byte of head) {
    if (byte === 0) return false;
    if ((byte < 9 || (byte > 13 && byte < 32) || byte === 127) && ++controls * 32 > head.length) return false;
  }
  return true;
}
