/**
 * Secrets in client configs: what looks like a token, what is only a placeholder the client expands,
 * and how output is masked. `bouncer init` never prints an `env` value, a header value or a
 * token-shaped string, and warns (without the value) when a config holds a literal secret. Pure.
 *
 * Source: SPEC §5.2 ("A unified diff is shown with secrets masked"), field case F11.
 * @module
 */

import type { Span } from "./types.ts";

/** What a masked value is shown as. */
export const MASK = "********";

/** Token shapes of well-known services (prefix kept when masking, the rest hidden). */
const TOKEN_SOURCE = [
  "gh[pousr]_[A-Za-z0-9]{20,}",
  "github_pat_[A-Za-z0-9_]{20,}",
  "sk-[A-Za-z0-9_-]{16,}",
  "xox[abposr]-[A-Za-z0-9-]{10,}",
  "xapp-[A-Za-z0-9-]{10,}",
  "glpat-[A-Za-z0-9_-]{20,}",
  "npm_[A-Za-z0-9]{36}",
  "AKIA[0-9A-Z]{16}",
  "AIza[0-9A-Za-z_-]{35}",
  String.raw`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
  "[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
  "hf_[A-Za-z0-9]{30,}",
  String.raw`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`,
  String.raw`ya29\.[A-Za-z0-9_-]{20,}`,
  "lin_api_[A-Za-z0-9]{20,}",
  "pplx-[A-Za-z0-9]{20,}",
].join("|");

/** Token-shaped substrings, not glued to a preceding word character. */
const TOKEN_PATTERN = new RegExp(`(?<![A-Za-z0-9_])(?:${TOKEN_SOURCE})`, "g");

/** `Bearer <credential>` in a header value or an argument. */
export const BEARER_PATTERN = /(?<=\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;

/** Words that make an env key or a flag name a secret's name. */
const SECRET_WORDS: ReadonlySet<string> = new Set([
  "token",
  "secret",
  "password",
  "passwd",
  "pwd",
  "key",
  "apikey",
  "auth",
  "authorization",
  "credential",
  "credentials",
  "cookie",
  "pat",
  "private",
]);

/**
 * Whether a string contains a token-shaped value (GitHub, OpenAI/Anthropic, Slack, GitLab, npm, AWS,
 * Google keys, JWTs).
 *
 * Source: SPEC §5.2, field case F11.
 * @param value - Any string.
 * @returns True when a token shape occurs in it.
 */
export function hasTokenShape(value: string): boolean {
  TOKEN_PATTERN.lastIndex = 0;
  return TOKEN_PATTERN.test(value);
}

/**
 * Whether a name (env key, flag) names a secret: one of its words (split on `_`, `-`, `.` and
 * camelCase) is token, secret, password, key, auth, credential, cookie, pat, ...
 *
 * Source: SPEC §5.2, field case F11.
 * @param name - An env key or a flag without dashes.
 * @returns True for secret-like names (`GITHUB_PERSONAL_ACCESS_TOKEN`, `apiKey`, `KALI_API_KEY`).
 */
export function isSecretName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  // `PGPASSWORD`, `MYSQL_PWD`-style words: a secret word at the end of a longer one counts too.
  return words.some((word) => SECRET_WORDS.has(word) || /(?:password|passwd|secret|token)$/.test(word));
}

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

/** The service prefix of a token, kept when masking (it says which service, nothing secret). */
const TOKEN_PREFIX =
  /^(?:gh[pousr]_|github_pat_|sk-|xox[abposr]-|xapp-|glpat-|npm_|AKIA|AIza|eyJ|[sr]k_(?:live|test)_|hf_|SG\.|ya29\.|lin_api_|pplx-)/;

/**
 * Masks token-shaped substrings and `Bearer` credentials, keeping the service prefix (`ghp_********`).
 *
 * Source: SPEC §5.2, field case F11.
 * @param text - Any text.
 * @returns The text with tokens hidden.
 */
export function maskTokens(text: string): string {
  return text
    .replace(TOKEN_PATTERN, (token) => `${TOKEN_PREFIX.exec(token)?.[0] ?? ""}${MASK}`)
    .replace(BEARER_PATTERN, MASK);
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
