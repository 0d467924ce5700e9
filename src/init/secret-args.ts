/**
 * Secrets in an entry's command line: which arguments hold one (a secret-named flag's value, a
 * token, a `Bearer` credential, a URL's password, a secret-named `NAME=value`, query parameter or
 * header), and the warnings `init` gives for literal secrets in an entry. Pure.
 *
 * Source: SPEC §5.2 ("A unified diff is shown with secrets masked"), field case F11.
 * @module
 */

import { hasTokenShape, isPlaceholder, isSecretName } from "./secrets.ts";
import type { ConfigEntry, Span } from "./types.ts";

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
  if (hasTokenShape(value)) return true; // a `Bearer` credential too
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
