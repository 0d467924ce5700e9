/**
 * Redaction of what the audit log stores (`args`, `reason`, `evidence`): values of secret-named
 * arguments and token-shaped strings become `"[redacted]"`, and strings over 1 KiB are cut and carry
 * their SHA-256. Edge (uses `node:crypto`).
 *
 * Source: SPEC §3.5 ("Redaction applies to `args`, `reason` and `evidence`").
 * @module
 */

import { createHash } from "node:crypto";
import type { JsonValue } from "../engine/index.ts";
import { isSecretPair, labelledPair } from "../platform/labelled-pairs.ts";
import { cachedByName } from "../platform/name-cache.ts";
import {
  anyOf,
  isSecretName,
  TOKEN_PREFIX_SOURCE,
  TOKEN_SHAPES,
  URL_PASSWORD,
} from "../platform/secret-shapes.ts";
import { destinationParts, isPlainNumber, isSecretFieldValue, redactSecretFields } from "./redact-fields.ts";
import { ARGS_KEYS, argvFlagSecrets, hideSpans, redactFlagSecrets, siblingProgram } from "./secret-flags.ts";

export { isSecretName };

/** What a redacted value or token becomes. */
export const REDACTED = "[redacted]";

/** Strings longer than this many UTF-8 bytes are cut (SPEC §3.5: 1 KiB). */
export const MAX_STRING_BYTES = 1024;

/** Nesting deeper than this is replaced by a marker rather than walked. */
export const MAX_DEPTH = 64;

/**
 * What is redacted wherever it occurs in a string: the token shapes (`secret-shapes.ts`, the rule
 * `init` masks by too) and a password in a URL's user info. Each pattern is global; the match (and
 * only the match) is replaced, so the text around a token stays readable. Exported for the tests
 * that check {@link redactTokens}' quick search against replacing with each pattern.
 */
export const TOKEN_PATTERNS: readonly RegExp[] = [...TOKEN_SHAPES, URL_PASSWORD];

/**
 * {@link TOKEN_PATTERNS} as two searches, case-sensitive and case-insensitive: a string neither
 * finds holds no token, so {@link redactTokens} returns it as it is without running each
 * replacement. Built from the patterns themselves so they cannot drift apart.
 */
const ANY_TOKEN: readonly RegExp[] = anyOf(TOKEN_PATTERNS);

/**
 * Strings up to this many characters are first searched with {@link ANY_TOKEN} (one search is
 * cheaper than fifteen replacements on short strings; on long ones the replacements' own scans are
 * faster).
 */
const PREFILTER_MAX_CHARS = 256;

/**
 * Cuts a string to at most {@link MAX_STRING_BYTES} UTF-8 bytes (on a character boundary) and appends
 * a marker with the full length and the SHA-256 of the (already token-redacted) string.
 * @param text - Any string.
 * @returns The text unchanged when short enough, else `<prefix>…[cut N bytes sha256:<hex>]`.
 */
export function cutLongString(text: string): string {
  if (text.length * 3 <= MAX_STRING_BYTES) return text;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= MAX_STRING_BYTES) return text;
  let end = MAX_STRING_BYTES;
  // Step back over UTF-8 continuation bytes so no character is split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  const prefix = bytes.subarray(0, end).toString("utf8");
  const digest = createHash("sha256").update(bytes).digest("hex");
  return `${prefix}…[cut ${bytes.length} bytes sha256:${digest}]`;
}

/**
 * Replaces every token-shaped substring (`secret-shapes.ts`: GitHub, OpenAI/Anthropic, Slack, AWS,
 * JWT, `Bearer …`, Google, Stripe, GitLab, npm, Hugging Face, PEM private keys...), each URL
 * password, and the value of each secret-named field written in the string (a query parameter, a
 * JSON member, an assignment, a header or YAML line, a long flag: `redact-fields.ts`) by `"[redacted]"`.
 *
 * Source: SPEC §3.5 ("strings shaped like known tokens").
 * @param text - Any string.
 * @param options - `namePart`: the quick test of secret-named fields (`redactSecretFields`; the
 *   server identity passes recipe 1's).
 * @returns The text with tokens replaced; unchanged when it holds none.
 */
export function redactTokens(text: string, options: { readonly namePart?: RegExp } = {}): string {
  let out = text;
  if (text.length > PREFILTER_MAX_CHARS || ANY_TOKEN.some((search) => search.test(text))) {
    for (const pattern of TOKEN_PATTERNS) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, REDACTED);
    }
  }
  return redactFlagSecrets(redactSecretFields(out, options));
}

/**
 * The start of a token where a rendering cut the text it stood in (SPEC §3.4: a reason shows an
 * untrusted value cut at 200 characters, ending in `…`): a service prefix, in any case, and what
 * follows of the token up to the `…` (`ghp_abcdefghijklmnopqrst…`); and a URL's password cut before
 * its `@`. Too short to match {@link TOKEN_PATTERNS}, it would still show most of a secret.
 */
const CUT_TOKEN = new RegExp(
  `(?<![A-Za-z0-9_-])((?:${TOKEN_PREFIX_SOURCE}|bearer\\s+)[A-Za-z0-9_.~+/=-]+)(?=…)|(?<=\\b[a-z][a-z0-9+.-]*:\\/\\/[^\\s/:@]*:)(?!\\d+…)[^\\s/@…]+(?=…)`,
  "gi",
);

/** A cut token start shorter than this (prefix included) is left alone: `sk-a…` shows no secret. */
const MIN_CUT_TOKEN = 8;

/**
 * Replaces the start of a token that a cut (`…`) ends by `"[redacted]"`: what a reason shows of a
 * token in a value cut at 200 characters. A reason writes every non-ASCII character of an untrusted
 * value escaped (SPEC §3.4), so a `…` in it is a cut.
 *
 * Source: SPEC §3.5 ("token-shaped strings in `reason` are redacted"), §3.4 (rendering).
 * @param text - A reason.
 * @returns The text with each cut token start replaced; unchanged when it holds no `…`.
 */
export function redactCutTokens(text: string): string {
  if (!text.includes("…")) return text;
  CUT_TOKEN.lastIndex = 0;
  return text.replace(CUT_TOKEN, (stub: string, token: string | undefined) =>
    token === undefined || stub.length >= MIN_CUT_TOKEN ? REDACTED : stub,
  );
}

/**
 * Redacts a free-text string: every token-shaped substring becomes `"[redacted]"`, then the result is
 * cut when over 1 KiB (the SHA-256 is of the redacted text, so a hash never verifies a secret).
 *
 * Source: SPEC §3.5.
 * @param text - A reason, an excerpt, an argument value.
 * @returns The redacted text.
 */
export function redactText(text: string): string {
  return cutLongString(redactTokens(text));
}

/**
 * Redacts a JSON-like value for the audit log: strings through {@link redactText}; the whole value of
 * any object key that {@link isSecretName} matches (at any depth) becomes `"[redacted]"`; keys are
 * token-redacted too. Keys are hostile (STYLE #6): the copy is built on null-prototype objects, so a
 * key named `__proto__` stays an ordinary key. Values that are not JSON (functions, `undefined`) are
 * dropped from objects and become `null` in lists; nesting deeper than 64 levels becomes a marker.
 *
 * Source: SPEC §3.5.
 * @param value - Tool arguments, evidence, or any JSON value.
 * @param redactString - How each string value is redacted (default {@link redactText}; the audit
 *   line passes one that also hides the call's secret-named values, `redact-values.ts`).
 * @returns A redacted deep copy.
 */
export function redactJson(value: unknown, redactString: (text: string) => string = redactText): JsonValue {
  return redactAt(value, 0, redactString) ?? null;
}

/**
 * Recursive step of {@link redactJson}.
 * @param value - The value at this depth.
 * @param depth - Nesting depth so far.
 * @param redactString - How a string value is redacted.
 * @param program - For a list under `args` beside a `command` member: that program (`argvFlagSecrets`).
 * @returns The redacted value, or `undefined` for a value JSON cannot hold.
 */
function redactAt(
  value: unknown,
  depth: number,
  redactString: (text: string) => string,
  program?: string,
): JsonValue | undefined {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string") return redactString(value);
  if (typeof value !== "object") return undefined;
  if (depth >= MAX_DEPTH) return "[too deep]";
  if (Array.isArray(value)) {
    const secretAt = secretListNames(value);
    const flagged = argvFlagSecrets(value, program);
    return value.map((item: unknown, i) => {
      const name = secretAt.get(i);
      const spans = flagged.get(i);
      if (name !== undefined) return secretValue(item, name, redactString);
      if (spans !== undefined) return redactString(hideSpans(item as string, spans));
      return redactAt(item, depth + 1, redactString) ?? null;
    });
  }
  const out: { [key: string]: JsonValue } = Object.create(null);
  const keys = Object.keys(value);
  const isSecret = secretMembers(value, keys);
  const sibling = siblingProgram(value);
  for (const key of keys) {
    const item: unknown = Reflect.get(value, key);
    const redacted = isSecret(key)
      ? secretValue(item, key, redactString)
      : redactAt(item, depth + 1, redactString, ARGS_KEYS.has(key) ? sibling : undefined);
    if (redacted === undefined) continue;
    const clean = redactKey(key);
    let outKey = clean;
    for (let n = 2; Object.hasOwn(out, outKey); n++) outKey = `${clean} #${n}`;
    out[outKey] = redacted;
  }
  return out;
}

/**
 * Which members of an object hold secrets: those with a secret-like name — except in a labelled
 * pair (`labelled-pairs.ts`), as HTTP, Kubernetes, CI and CloudFormation tools pass headers,
 * variables and parameters (`{"name": "DB_PASSWORD", "value": "…"}`, `{"key": "X-Api-Key",
 * "value": "…"}`, `{"headerName": "Authorization", "headerValue": "…"}`, `{"ParameterKey":
 * "DbPassword", "ParameterValue": "…"}`), where the label is shown (a `key` member there is a name,
 * not a key) and the value is a secret when a label is secret-like or its own name is.
 *
 * Source: SPEC §3.5 ("values of arguments named like secrets"): the label is the name.
 * @param object - An object of the value redacted.
 * @param keys - Its own keys.
 * @returns From a member's key to whether its value is hidden.
 */
export function secretMembers(object: object, keys: readonly string[]): (key: string) => boolean {
  const pair = labelledPair(keys, (key) => typeof Reflect.get(object, key) === "string");
  if (pair === undefined) return isSecretName;
  const secretValue =
    isSecretPair(pair, (key) => String(Reflect.get(object, key))) || isSecretName(pair.value);
  return (key) => (key === pair.label ? false : key === pair.value ? secretValue : isSecretName(key));
}

/** A list element that is a flag alone (`--password`, `-token`): its name, dashes and all. */
const LIST_FLAG = /^--?[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** No secret names found in a list (shared: most lists have none). */
const NO_NAMES: ReadonlyMap<number, string> = new Map();

/**
 * The secrets of a list and the name each is under: the second of a pair written as a list
 * (`["Authorization", "token …"]`: two strings, the first a secret-like name), and in any other
 * list (an argv: `["psql", "--password", "…", "--api-key", "…"]`) each element after a flag alone
 * whose name is secret-like ({@link isSecretName}), unless that element is a flag itself or no
 * secret by the rule a flag's value in a string is judged by ({@link isSecretFieldValue}:
 * `--max-tokens 1000`, `--password ${PW}` stay) — what `"psql --password …"` written as one string
 * hides. A number there is a secret unless a short count (`--max-tokens`, 1000). `--token=…` in
 * one element is a string's assignment, redacted as such.
 *
 * Source: SPEC §3.5 ("values of arguments named like secrets … become `[redacted]`"); review s18
 * finding A2 (an argv list's flag values were logged in clear).
 * @param list - A list of the value redacted.
 * @returns From the index of each secret to the name it is under (empty when none).
 */
export function secretListNames(list: readonly unknown[]): ReadonlyMap<number, string> {
  const [first, second] = list;
  if (list.length === 2 && typeof first === "string" && typeof second === "string" && isSecretName(first))
    return new Map([[1, first]]);
  let found: Map<number, string> | undefined;
  for (let i = 0; i < list.length - 1; i += 1) {
    const flag = list[i];
    if (typeof flag !== "string" || !LIST_FLAG.test(flag) || !isSecretName(flag)) continue;
    const next = list[i + 1];
    const secret =
      typeof next === "string"
        ? !LIST_FLAG.test(next) && isSecretFieldValue(next, flag)
        : typeof next === "number" && !(Number.isFinite(next) && isPlainNumber(next, flag));
    if (!secret) continue;
    found ??= new Map();
    found.set(i + 1, flag);
    i += 1; // the value is no flag
  }
  return found ?? NO_NAMES;
}

/**
 * What the value of a secret-named key becomes: `"[redacted]"`, except a boolean or null (no
 * secret), a number of up to six digits under a token count's name (`max_tokens: 1000`; under
 * `password` or `pin` the number is the secret), and an address or
 * URL, which keeps its domain or its scheme and host (`redactSecretFields` shows them so inside a
 * string too): an upstream that names its sink `auth_email` or `token_endpoint` must not keep
 * where data went out of the log.
 *
 * Source: SPEC §3.5.
 * @param value - The value under the key.
 * @param name - The key (a labelled pair's label, a listed pair's first string, an argv's flag).
 * @param redactString - How the shown part's string is redacted (token shapes, URL passwords).
 * @returns What the audit log stores.
 */
function secretValue(value: unknown, name: string, redactString: (text: string) => string): JsonValue {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number")
    return Number.isFinite(value) && isPlainNumber(value, name) ? value : REDACTED;
  if (typeof value !== "string") return REDACTED;
  const parts = destinationParts(redactString(value).trim());
  return parts === undefined ? REDACTED : parts.text;
}

/**
 * {@link redactText} of an object key, remembered (keys repeat from call to call).
 * @param key - An object key.
 * @returns The key as the audit log stores it.
 */
const redactKey: (key: string) => string = cachedByName((key) => redactText(key));
