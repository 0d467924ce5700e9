/**
 * Secrets in client configs: what looks like a token and what names a secret (one rule with the
 * audit log's, `secret-shapes.ts`), what is only a placeholder the client expands, and how output is
 * masked. `bouncer init` never prints an `env` value, a header value or a token-shaped string, and
 * warns (without the value) when a config holds a literal secret. Pure.
 *
 * Source: SPEC §5.2 ("A unified diff is shown with secrets masked"), field case F11.
 * @module
 */

import { hasTokenShape, isSecretName, TOKEN_PREFIX_SOURCE, TOKEN_SHAPES } from "../platform/secret-shapes.ts";
import type { Span } from "./types.ts";

/** What a masked value is shown as. */
export const MASK = "********";

export { hasTokenShape, isSecretName };

/**
 * Whether a value is a placeholder the client (or the user) fills in, not a literal secret:
 * `${VAR}`, `${env:VAR}`, `${input:id}`, `{env:VAR}`, `$VAR`, `%VAR%`, `<YOUR_KEY>`, `[REDACTED]`, empty.
 *
 * Source: SPEC §5.2, field case F11.
 * @param value - An env value or argument.
 * @returns True for a placeholder.
 */
export function isPlaceholder(value: string): boolean {
  const text = value.trim();
  return (
    text === "" ||
    /^\$\{[^}]*\}$/.test(text) ||
    /^\{env:[A-Za-z_][A-Za-z0-9_]*\}$/.test(text) ||
    /^\$[A-Za-z_][A-Za-z0-9_]*$/.test(text) ||
    /^%[A-Za-z_][A-Za-z0-9_]*%$/.test(text) ||
    /^<[^<>]*>$/.test(text) ||
    /^\[[A-Z0-9_ -]*\]$/.test(text)
  );
}

/**
 * The ranges not already inside one of `known` (so a range is masked once).
 *
 * Source: SPEC §5.2 ("secrets masked").
 * @param spans - Candidate ranges.
 * @param known - Ranges already marked.
 * @returns The candidates no known range contains.
 */
export function outside(spans: readonly Span[], known: readonly Span[]): Span[] {
  return spans.filter((span) => !known.some((k) => k.start <= span.start && span.end <= k.end));
}

/**
 * Replaces the given ranges of a text by {@link MASK} (keeping surrounding quotes), then masks every
 * token-shaped substring.
 *
 * Source: SPEC §5.2, field case F11.
 * @param text - A config text.
 * @param spans - Ranges to hide (overlaps allowed).
 * @returns The text safe to print.
 */
export function maskText(text: string, spans: readonly Span[]): string {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let out = "";
  let cursor = 0;
  for (const span of sorted) {
    if (span.end <= cursor) continue;
    const start = Math.max(span.start, cursor);
    out += text.slice(cursor, start);
    const value = text.slice(start, span.end);
    const quote = /^["']/.exec(value)?.[0] ?? "";
    out += value.length >= 2 && quote !== "" && value.endsWith(quote) ? `${quote}${MASK}${quote}` : MASK;
    cursor = span.end;
  }
  return maskTokens(out + text.slice(cursor));
}

/**
 * The start of a token kept when masking: its service prefix, the `Bearer`/`Basic` scheme or a PEM
 * key's header (it says which service, nothing secret).
 */
const TOKEN_PREFIX = new RegExp(
  `^(?:${TOKEN_PREFIX_SOURCE}|(?:Bearer|Basic)\\s+|-----BEGIN[A-Z ]*PRIVATE KEY-----)`,
  "i",
);

/**
 * Masks token-shaped substrings (the token shapes the audit log redacts, `secret-shapes.ts`),
 * keeping the service prefix (`ghp_********`, `Bearer ********`).
 *
 * Source: SPEC §5.2, field case F11.
 * @param text - Any text.
 * @returns The text with tokens hidden.
 */
export function maskTokens(text: string): string {
  if (!hasTokenShape(text)) return text;
  let out = text;
  for (const pattern of TOKEN_SHAPES) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, (token) => `${TOKEN_PREFIX.exec(token)?.[0] ?? ""}${MASK}`);
  }
  return out;
}

/**
 * Masks every occurrence of known secret values (at least 4 characters, longest first) and tokens,
 * e.g. in a server's stderr before it is shown.
 *
 * Source: SPEC §5.2, field case F11.
 * @param text - Any text.
 * @param values - Values to hide (env values).
 * @returns The text safe to print.
 */
export function maskValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const value of [...values].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length)) {
    out = out.split(value).join(MASK);
  }
  return maskTokens(out);
}
