/**
 * Secrets in an entry's command line: which arguments hold one (a secret-named flag's value, `-k`'s
 * value, a token, a `Bearer` credential, a URL's password, a secret-named `NAME=value`, query
 * parameter or header, a secret-named key or labelled pair of a JSON-valued argument, and what the
 * audit log hides without a secret-like name: `curl -u user:…`, `mysql -p…`, `<apiKey>…</apiKey>`,
 * `secret-flags.ts`), and the warnings `init` gives for literal secrets in an entry. Pure.
 *
 * Source: SPEC §5.2 ("A unified diff is shown with secrets masked"), field case F11.
 * @module
 */

import { argvFlagSecrets, flagSecrets } from "../audit/secret-flags.ts";
import { isSecretPair, labelledPair } from "../platform/labelled-pairs.ts";
import { splitShellCommand } from "../policy/shell-words.ts";
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

/**
 * `NAME=value` inside an argument (`-e API_KEY=…`, `sh -c "TOKEN=… exec …"`, `a=1,token=…`). The
 * value may be quoted as a shell quotes it: `TOKEN='…'` (to the next `'`), `export API_KEY="…"` (to
 * the next `"` not escaped by `\`); a quote left open runs to the argument's end.
 */
const ASSIGNMENT =
  /(?:^|[\s;&|'"(,])([A-Za-z_][A-Za-z0-9_.-]*)=('[^']*'?|"(?:[^"\\]|\\.)*"?|[^\s'";&|),]+)/gs;
/** The quotes around a quoted assigned value, and a `\` escape inside double quotes. */
const QUOTED_VALUE = /^(?:'([^']*)'?|"((?:[^"\\]|\\.)*)"?)$/s;
/**
 * A flag: its dashes (1), its name (2), and its value written in the same argument, after `=` (3)
 * or after white space (4: `--token X` as one element, a client's args split by hand).
 */
const FLAG = /^(--?)([A-Za-z][A-Za-z0-9_.-]*)(?:=(.*)|[ \t]+(\S.*?)\s*)?$/s;
/** Short flags whose value is a secret by convention (`-k KEY`: the API key of many CLIs). */
const SECRET_SHORT_FLAGS: ReadonlySet<string> = new Set(["k"]);
/** An argument that starts as JSON, and one whose value after its first `=` does. */
const JSON_START = /^\s*[[{]/;
const AFTER_EQUALS = /^[^=]*=\s*[[{]/;
/** How deep JSON held in a string of a JSON-valued argument is looked into (`"{\"env\":\"{…}\"}"`). */
const MAX_JSON_LEVELS = 3;
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
/** A header-shaped argument `Name: value` (`X-API-Key: …`), also after a flag's `=` (`--header=…`). */
const HEADER = /^\s*(?:--?[A-Za-z][A-Za-z0-9_-]*=)?([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(\S.*)$/s;

/**
 * An assigned value as the shell reads it: without its quotes, a `\"` inside double quotes read as
 * `"` (`'S3cret'` → `S3cret`, `"a\"b"` → `a"b`); an unquoted value as written.
 * @param value - The value as written after `=`.
 * @returns The value.
 */
function unquoted(value: string): string {
  const quoted = QUOTED_VALUE.exec(value);
  if (quoted === null) return value;
  return quoted[1] ?? (quoted[2] ?? "").replace(/\\(.)/gs, "$1");
}

/**
 * The literal values of secret-named `name=value` pairs the pattern finds (quotes taken off, see
 * {@link unquoted}; an empty value, a placeholder, path, boolean or short number is none).
 * @param pattern - A global pattern with the name in group 1 and the value in group 2.
 * @param text - The argument.
 * @returns The values, in order.
 */
function secretPairValues(pattern: RegExp, text: string): string[] {
  const values: string[] = [];
  for (const match of text.matchAll(pattern)) {
    const value = unquoted(match[2] ?? "");
    if (value !== "" && isSecretName(match[1] ?? "") && isLiteralSecret(value)) values.push(value);
  }
  return values;
}

/**
 * Whether some `name=value` pair the pattern finds has a secret's name and a literal value.
 * @param pattern - A global pattern with the name in group 1 and the value in group 2.
 * @param text - The argument.
 * @returns True when one does.
 */
function hasSecretPair(pattern: RegExp, text: string): boolean {
  return secretPairValues(pattern, text).length > 0;
}

/**
 * The JSON text an argument holds, if any: the whole argument, or what follows its first `=`
 * (`--config={…}`, `CONFIG={…}`), when that starts with `{` or `[` and parses.
 * @param value - One argument.
 * @returns The parsed value, or undefined.
 */
function jsonOf(value: string): unknown {
  // Looked at without copying first: every string of a large config comes here.
  const text = JSON_START.test(value)
    ? value
    : AFTER_EQUALS.test(value)
      ? value.slice(value.indexOf("=") + 1)
      : "";
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // not JSON (or nested too deep to parse): judged as plain text
  }
}

/**
 * The secrets of a JSON-valued argument (`{"apiKey":"…"}`, as `mcp-server-x '{"token": …}'` takes its
 * settings): each literal string or number under a secret-named key at any depth (a list inherits
 * its key; not a placeholder, path, boolean or short number) or in the value member of a labelled
 * pair whose label is secret-like (`{"name": "Authorization", "value": …}`, `labelled-pairs.ts`;
 * its label is a name), and each string that holds a secret itself (JSON inside it included, up to
 * {@link MAX_JSON_LEVELS} levels).
 *
 * Source: SPEC §5.2 ("secrets masked"), field case F11; the review of JSON-valued arguments.
 * @param value - One argument.
 * @param level - How many JSON levels enclose it (0 for an argument).
 * @returns The secret values, as text; none when the argument is not JSON.
 */
function jsonSecrets(value: string, level = 0): string[] {
  if (level >= MAX_JSON_LEVELS) return [];
  const parsed = jsonOf(value);
  if (parsed === undefined || typeof parsed !== "object" || parsed === null) return [];
  const found: string[] = [];
  const stack: { readonly node: unknown; readonly named: boolean }[] = [{ node: parsed, named: false }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { node, named } = item;
    if (Array.isArray(node)) {
      for (const child of node) stack.push({ node: child, named });
    } else if (typeof node === "object" && node !== null) {
      // A labelled pair (`{"name": "Authorization", "value": …}`): the label names the value.
      const keys = Object.keys(node);
      const pair = labelledPair(keys, (key) => typeof Reflect.get(node, key) === "string");
      const secretPair = pair !== undefined && isSecretPair(pair, (key) => String(Reflect.get(node, key)));
      for (const key of keys) {
        const byName = key === pair?.label ? false : isSecretName(key) || (secretPair && key === pair?.value);
        stack.push({ node: Reflect.get(node, key), named: named || byName });
      }
    } else if (typeof node === "number" || typeof node === "string") {
      const text = String(node);
      if (named && isLiteralSecret(text)) found.push(text);
      else if (typeof node === "string" && secretInText(node, level + 1)) found.push(node);
    }
  }
  return found;
}

/**
 * Whether one argument holds a secret in itself: a token shape, a `Bearer` credential, a URL's
 * password, a secret-named `NAME=value` assignment, query parameter or `Name: value` header with a
 * literal value (not a placeholder; `--header=Name: value` too), a password the audit log hides by
 * its flag or element (`curl -u bob:…`, `mysql -p…`, `<apiKey>…</apiKey>`: `flagSecrets`), or, in
 * a JSON-valued argument, a literal value under a secret-named key or labelled by a secret-like
 * name ({@link jsonSecrets}).
 *
 * Source: SPEC §5.2 ("secrets masked"), field case F11.
 * @param value - One element of `args` (or the command).
 * @returns True when it holds one.
 * @example isSecretArg("BRAVE_API_KEY=abc123") // => true
 * @example isSecretArg('{"apiKey":"abc123"}') // => true
 */
export function isSecretArg(value: string): boolean {
  return secretInText(value, 0);
}

/**
 * The literal values after secret-named flags inside an argument that is a command line of its own
 * (`sh -c "exec npx srv --api-key S3cret"`, `--token=S3cret`, `-k S3cret`): its words split as a
 * shell splits them, or at white space and shell operators where it holds some. A placeholder,
 * path, boolean or short number is none. An argument of one word has none (the flag rules of the
 * list apply to it).
 *
 * Source: SPEC §5.2 ("secrets masked"), field case F11; review of session 18 (a flag's secret in
 * `sh -c` was shown in the diff and copied to the stash).
 * @param value - One argument.
 * @returns The values, in order.
 */
function commandFlagSecrets(value: string): string[] {
  if (!/\S\s+\S/.test(value)) return [];
  const words = splitShellCommand(value) ?? value.split(/[\s;&|()]+/).filter((word) => word !== "");
  const found: string[] = [];
  words.forEach((word, index) => {
    const flag = FLAG.exec(word);
    const name = flag?.[2];
    const short = flag?.[1] === "-" && name !== undefined && SECRET_SHORT_FLAGS.has(name);
    if (name === undefined || !(isSecretName(name) || short)) return;
    const joined = flag?.[3];
    const secret = joined ?? words[index + 1];
    if (secret !== undefined && secret !== "" && !secret.startsWith("-") && isLiteralSecret(unquoted(secret)))
      found.push(unquoted(secret));
  });
  return found;
}

/**
 * {@link isSecretArg} at a JSON level (a string inside a JSON-valued argument is level 1).
 * @param value - The text.
 * @param level - How many JSON levels enclose it.
 * @returns True when it holds a secret.
 */
function secretInText(value: string, level: number): boolean {
  if (hasTokenShape(value)) return true; // a `Bearer` credential too
  const password = USERINFO.exec(value)?.[1];
  if (password !== undefined && !isPlaceholder(password)) return true;
  if (hasSecretPair(ASSIGNMENT, value) || hasSecretPair(QUERY, value)) return true;
  if (commandFlagSecrets(value).length > 0) return true;
  // What the audit log hides without a secret-like name: `curl -u bob:…`, `mysql -p…`, `<apiKey>…</apiKey>`.
  if (flagSecrets(value).length > 0) return true;
  const header = HEADER.exec(value);
  if (header !== null && isSecretName(header[1] ?? "") && isLiteralSecret(header[2] ?? "")) return true;
  return jsonSecrets(value, level).length > 0;
}

/**
 * Ranges of arguments that hold secrets: the value after a secret-named flag (`--api-key X`) or `-k`,
 * a `--token=X` argument or one element `--token X` (flag and value in one), any element that holds
 * one itself ({@link isSecretArg}), and an element holding a password of the command line the list
 * makes (`["mysql", "-pS3cret"]`, `["curl", "-u", "bob:S3cret"]`: `argvFlagSecrets`).
 *
 * Source: SPEC §5.2, field case F11.
 * @param items - The elements of an `args` array, decoded, with their ranges.
 * @param options - `literalValues`: count a flag's value only when it is literal (not a
 *   placeholder, path, boolean or short number), for warnings; masking counts every value.
 *   `command`: the entry's command, when the items do not start with it (the program a short
 *   flag belongs to: `-u bob:…` is curl's).
 * @returns The ranges to mask.
 */
export function secretArgSpans(
  items: readonly { readonly value: unknown; readonly span: Span }[],
  options: { readonly literalValues?: boolean; readonly command?: string } = {},
): Span[] {
  const spans: Span[] = [];
  // Masking takes any value after a secret-named flag; a warning only a literal one.
  const counts = (value: unknown): boolean =>
    options.literalValues !== true || (typeof value === "string" && isLiteralSecret(value));
  items.forEach((item, index) => {
    if (typeof item.value !== "string") return;
    const flag = FLAG.exec(item.value);
    const name = flag?.[2];
    const short = flag?.[1] === "-" && name !== undefined && SECRET_SHORT_FLAGS.has(name);
    if (name !== undefined && (isSecretName(name) || short)) {
      const next = items[index + 1];
      const joined = flag?.[3] ?? flag?.[4];
      if (joined !== undefined) {
        if (counts(joined)) spans.push(item.span);
      } else if (next !== undefined && counts(next.value)) spans.push(next.span);
    }
    if (isSecretArg(item.value)) spans.push(item.span);
  });
  // A password of the command line the list makes (`["mysql", "-pS3cret"]`, `["curl", "-u", "bob:S3cret"]`).
  for (const index of argvFlags(
    items.map((item) => item.value),
    options.command,
  ).keys()) {
    const item = items[index];
    if (item !== undefined) spans.push(item.span);
  }
  return spans;
}

/**
 * The passwords of the command line an argument list makes (`argvFlagSecrets`), the entry's command
 * first when it is given apart (`{"command": "curl", "args": ["-u", "bob:…"]}`: `-u` is curl's).
 * @param args - The arguments (an element that is no string makes the list no argv).
 * @param command - The entry's command, when `args` does not start with it.
 * @returns From the index of each argument holding one to where each stands in it.
 */
function argvFlags(
  args: readonly unknown[],
  command: string | undefined,
): ReadonlyMap<number, readonly { readonly start: number; readonly end: number }[]> {
  // A command of several words (`npx pkg`), or none, is no program's name: the list is judged alone.
  if (command === undefined || !/^\S+$/.test(command)) return argvFlagSecrets(args);
  const found = new Map<number, readonly { readonly start: number; readonly end: number }[]>();
  for (const [index, spans] of argvFlagSecrets([command, ...args]))
    if (index > 0) found.set(index - 1, spans);
  return found;
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
 * alone — the value of a `NAME=value` assignment (also one inside `sh -c "…"`, without its
 * quotes) or a secret-named `Name: value` header, a URL's password, a password after its flag
 * (`-pS3cret`, `-u bob:S3cret`), the secret values of a JSON-valued argument.
 *
 * Source: SPEC §5.2 ("secrets masked"), field case F11.
 * @param args - An entry's arguments, placeholders filled in.
 * @param options - `command`: the entry's command, when `args` does not start with it (the
 *   program a short flag belongs to).
 * @returns The values (possibly overlapping; {@link maskValues} masks the longest first).
 */
export function secretArgValues(
  args: readonly string[],
  options: { readonly command?: string } = {},
): string[] {
  const items = args.map((value, index) => ({ value, span: { start: index, end: index + 1 } }));
  const values: string[] = [];
  for (const { start } of secretArgSpans(items, options)) {
    const arg = args[start] ?? "";
    values.push(arg);
    const assigned = /^[^=:\s]+\s*[=:]\s*(.+)$/s.exec(arg)?.[1];
    if (assigned !== undefined) values.push(assigned);
    const spaced = FLAG.exec(arg)?.[4];
    if (spaced !== undefined) values.push(spaced);
    const password = USERINFO.exec(arg)?.[1];
    if (password !== undefined) values.push(password);
    values.push(...secretPairValues(ASSIGNMENT, arg));
    values.push(...commandFlagSecrets(arg));
    values.push(...flagSecrets(arg).map(({ start, end }) => arg.slice(start, end)));
    const header = HEADER.exec(arg);
    if (header !== null && isSecretName(header[1] ?? "")) values.push(header[2] ?? "");
    values.push(...jsonSecrets(arg));
  }
  for (const [index, found] of argvFlags(args, options.command))
    for (const { start, end } of found) values.push((args[index] ?? "").slice(start, end));
  return values;
}
