/**
 * Secrets in client configs: what looks like a token, what is only a placeholder the client expands,
 * and how output is masked. `bouncer init` never prints an `env` value, a header value or a
 * token-shaped string, and warns (without the value) when a config holds a literal secret. Pure.
 *
 * Source: SPEC §5.2 ("A unified diff is shown with secrets masked"), field case F11.
 * @module
 */

import type { ConfigEntry, Span } from "./types.ts";

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
const BEARER_PATTERN = /(?<=\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;

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
 * Warnings for literal secrets in an entry (env values; the command and arguments, see
 * {@link hasSecretArgs}), naming the server and the key but never the value.
 *
 * Source: field case F11 ("warns (without printing the value) when it sees a literal token").
 * @param entry - A config entry.
 * @returns Zero or more warnings.
 */
export function literalSecretWarnings(entry: ConfigEntry): string[] {
  const warnings: string[] = [];
  for (const [key, value] of entry.env) {
    if (isPlaceholder(value)) continue;
    if (hasTokenShape(value) || isSecretName(key)) {
      warnings.push(
        `Server "${entry.label}": env "${key}" holds a literal secret (value not shown): prefer a placeholder the client expands`,
      );
    }
  }
  const args =
    entry.wrapped === undefined
      ? [entry.command ?? "", ...(entry.args ?? [])]
      : [entry.wrapped.command, ...entry.wrapped.args];
  // The rule that withholds the stash, for literal values (`--api-key ${API_KEY}` is a placeholder).
  if (hasSecretArgs(args, { literalValues: true })) {
    warnings.push(`Server "${entry.label}": an argument holds a literal secret (value not shown)`);
  }
  return warnings;
}

/** `NAME=value` inside an argument (`-e API_KEY=…`, `sh -c "TOKEN=… exec …"`). */
const ASSIGNMENT = /(?:^|[\s;&|'"(])([A-Za-z_][A-Za-z0-9_.-]*)=([^\s'";&|)]+)/g;
/** A URL's `user:password@` (the scheme anchored at its start: linear on long arguments). */
const USERINFO = /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/\s:@]*:([^/\s@]+)@/;
/**
 * A value that is not a secret itself: a path (`/run/key.pem`, `~/x`, `./x`, `C:\\x` — with a second
 * separator or an extension, and none of base64's `+` or `=`), a boolean, or a number of at most six
 * digits. A base64 key may start with `/`; a long number may be a token.
 */
const NOT_A_SECRET =
  /^(?:(?:~?\/|\.\.?\/|[A-Za-z]:[\\/])(?=[^+=]*$)(?=.*(?:[\\/].*[\\/]|\.[A-Za-z0-9]{1,5}$))|(?:true|false|yes|no|on|off|none|null)$|\d{1,6}$)/i;
/** An HTTP authorization scheme before a credential (`Bearer ${TOKEN}` is a placeholder). */
const AUTH_SCHEME = /^(?:Bearer|Basic|Token)\s+/i;

/**
 * Whether the value of a secret-named pair is literal: not a placeholder, path, boolean or number.
 * @param value - The value.
 * @returns True when it may be a secret.
 */
function isLiteralSecret(value: string): boolean {
  const bare = value.replace(AUTH_SCHEME, "");
  return !isPlaceholder(bare) && !NOT_A_SECRET.test(bare);
}
/** A query parameter `name=value`. */
const QUERY = /[?&]([A-Za-z0-9_.-]+)=([^&#\s]+)/g;
/** A header-shaped argument `Name: value` (`X-API-Key: …`). */
const HEADER = /^\s*([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(\S.*)$/s;

/**
 * Whether some `name=value` pair the pattern finds has a secret's name and a literal value.
 * @param pattern - A global pattern with the name in group 1 and the value in group 2.
 * @param text - The argument.
 * @returns True when one does.
 */
function hasSecretPair(pattern: RegExp, text: string): boolean {
  for (const match of text.matchAll(pattern)) {
    if (isSecretName(match[1] ?? "") && isLiteralSecret(match[2] ?? "")) return true;
  }
  return false;
}

/**
 * Whether one argument holds a secret in itself: a token shape, a `Bearer` credential, a URL's
 * password, or a secret-named `NAME=value` assignment, query parameter or `Name: value` header with a
 * literal value (not a placeholder).
 *
 * Source: SPEC §5.2 ("secrets masked"), field case F11.
 * @param value - One element of `args` (or the command).
 * @returns True when it holds one.
 * @example isSecretArg("BRAVE_API_KEY=abc123") // => true
 */
export function isSecretArg(value: string): boolean {
  if (hasTokenShape(value)) return true;
  BEARER_PATTERN.lastIndex = 0;
  if (BEARER_PATTERN.test(value)) return true;
  const password = USERINFO.exec(value)?.[1];
  if (password !== undefined && !isPlaceholder(password)) return true;
  if (hasSecretPair(ASSIGNMENT, value) || hasSecretPair(QUERY, value)) return true;
  const header = HEADER.exec(value);
  return header !== null && isSecretName(header[1] ?? "") && isLiteralSecret(header[2] ?? "");
}

/**
 * Ranges of arguments that hold secrets: the value after a secret-named flag (`--api-key X`), a
 * `--token=X` argument, and any element that holds one itself ({@link isSecretArg}).
 *
 * Source: SPEC §5.2, field case F11.
 * @param items - The elements of an `args` array, decoded, with their ranges.
 * @param options - `literalValues`: count a flag's value only when it is literal (not a
 *   placeholder, path, boolean or short number), for warnings; masking counts every value.
 * @returns The ranges to mask.
 */
export function secretArgSpans(
  items: readonly { readonly value: unknown; readonly span: Span }[],
  options: { readonly literalValues?: boolean } = {},
): Span[] {
  const spans: Span[] = [];
  // Masking takes any value after a secret-named flag; a warning only a literal one.
  const counts = (value: unknown): boolean =>
    options.literalValues !== true || (typeof value === "string" && isLiteralSecret(value));
  items.forEach((item, index) => {
    if (typeof item.value !== "string") return;
    const flag = /^--?([A-Za-z][A-Za-z0-9_.-]*)(=.*)?$/s.exec(item.value);
    if (flag?.[1] !== undefined && isSecretName(flag[1])) {
      const next = items[index + 1];
      if (flag[2] !== undefined) {
        if (counts(flag[2].slice(1))) spans.push(item.span);
      } else if (next !== undefined && counts(next.value)) spans.push(next.span);
    }
    if (isSecretArg(item.value)) spans.push(item.span);
  });
  return spans;
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
 * Whether an argument list holds a secret: a value after a secret-named flag, or an element that
 * holds one itself ({@link isSecretArg}). Such an entry gets no stash, so that the secret is not
 * copied to a second place (field case F11).
 *
 * Source: SPEC §5.2, field case F11.
 * @param args - An entry's command and arguments.
 * @param options - `literalValues`: a flag's value counts only when literal (for warnings).
 * @returns True when one of them is a secret.
 */
export function hasSecretArgs(
  args: readonly string[],
  options: { readonly literalValues?: boolean } = {},
): boolean {
  const items = args.map((value, index) => ({ value, span: { start: index, end: index + 1 } }));
  return secretArgSpans(items, options).length > 0;
}

/**
 * The secret values an argument list holds, to hide wherever they may be echoed (a server's
 * stderr): each argument {@link secretArgSpans} marks, and within it the part a server would print
 * alone — the value of a `NAME=value` assignment or a `Name: value` header, a URL's password.
 *
 * Source: SPEC §5.2 ("secrets masked"), field case F11.
 * @param args - An entry's arguments, placeholders filled in.
 * @returns The values (possibly overlapping; {@link maskValues} masks the longest first).
 */
export function secretArgValues(args: readonly string[]): string[] {
  const items = args.map((value, index) => ({ value, span: { start: index, end: index + 1 } }));
  const values: string[] = [];
  for (const { start } of secretArgSpans(items)) {
    const arg = args[start] ?? "";
    values.push(arg);
    const assigned = /^[^=:\s]+\s*[=:]\s*(.+)$/s.exec(arg)?.[1];
    if (assigned !== undefined) values.push(assigned);
    const password = USERINFO.exec(arg)?.[1];
    if (password !== undefined) values.push(password);
  }
  return values;
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
