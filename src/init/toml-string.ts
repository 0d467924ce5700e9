/**
 * TOML basic strings: encoding a value for Codex's `config.toml` (control characters and DEL
 * escaped, everything else as is) and decoding a quoted key. Pure.
 *
 * Source: SPEC §5.2 (Codex `config.toml`); TOML 1.0 "String" (escapes).
 * @module
 */

/**
 * Encodes a string as a TOML basic string (control characters and DEL escaped, the rest as is).
 *
 * Source: SPEC §5.2.
 * @param value - Any string.
 * @returns The literal, quotes included.
 */
export function tomlString(value: string): string {
  const named: Record<string, string> = {
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
  };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
  const escaped = value.replace(/[\u0000-\u001f\u007f"\\]/g, (char) =>
    Object.hasOwn(named, char)
      ? (named[char] ?? char)
      : `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `"${escaped}"`;
}

/**
 * Decodes a TOML basic string literal (with its quotes): `\b \t \n \f \r \e \" \\ \xHH \uHHHH \UHHHHHHHH`.
 *
 * Source: SPEC §5.2.
 * @param literal - The literal, e.g. `"a\tb"`.
 * @returns The string value.
 */
export function decodeBasicString(literal: string): string {
  const escapes: Record<string, string> = {
    b: "\b",
    t: "\t",
    n: "\n",
    f: "\f",
    r: "\r",
    e: "\u001b",
    '"': '"',
    "\\": "\\",
  };
  let out = "";
  for (let i = 1; i < literal.length - 1; i++) {
    const char = literal[i] ?? "";
    if (char !== "\\") {
      out += char;
      continue;
    }
    const code = literal[++i] ?? "";
    const hexLength = code === "x" ? 2 : code === "u" ? 4 : code === "U" ? 8 : 0;
    if (hexLength > 0) {
      out += String.fromCodePoint(Number.parseInt(literal.slice(i + 1, i + 1 + hexLength), 16));
      i += hexLength;
    } else {
      out += Object.hasOwn(escapes, code) ? escapes[code] : code;
    }
  }
  return out;
}
