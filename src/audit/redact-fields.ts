/**
 * Secret-named fields written inside a string: the value after a secret name in JSON text
 * (`'{"password": "…"}'`, JSON inside a JSON string, a Python dict), in an assignment (a query
 * or fragment parameter, a form body, `API_KEY=…`, `--token=…`), in a header, YAML or INI line
 * (`Authorization: token …`, `password: …`, `aws_secret_access_key = …`) and after a long flag
 * (`--api-key …`). A tool takes its request body, headers or shell command as one string, so the
 * names that redact an argument's value must redact these values too. Edge (pure string work).
 *
 * Source: SPEC §3.5 ("values of arguments named like secrets … become `[redacted]`").
 * @module
 */

import { isCountName, isSecretName, SECRET_NAME_PART } from "../platform/secret-shapes.ts";
import { type TextPair, textPairs } from "./labelled-text.ts";

/** What a hidden value becomes (the same text as `REDACTED` of `redact.ts`, which imports this file). */
const HIDDEN = "[redacted]";

/**
 * A quoted name (JSON, a Python dict, JSON inside a JSON string: `\"name\"`, with at most 31
 * backslashes: each match is bounded, so a long run of backslashes stays linear), its `\u` escapes
 * included (`"\u0070assword"`), and its `:` or `=`.
 */
const QUOTED_NAME = /(\\{0,31})(["'])((?:[^"'\\\r\n=]|\\+u[0-9A-Fa-f]{4}){1,64})\1\2[ \t]*[:=][ \t]*/g;

/**
 * `name=value` where a name starts: at the start, after white space or `? & ; # , ( | ' " { [ : =`
 * (a query, a fragment, a form body, a shell assignment, `--name=value`, an `.npmrc` line
 * `//registry.npmjs.org/:_authToken=…`, `--from-literal=password=…`).
 */
const ASSIGNMENT = /(?<=^|[\s?&;#,(|'"{[:=])([A-Za-z0-9_.~%+-]{1,64})=(?!=)/g;
/** A bare assigned value: up to `& # ;`, white space, a quote or `<>`. */
const ASSIGNED_VALUE = /[^&#;\s"'<>]+/y;

/**
 * An unquoted name and its `:` (or an `=` with white space beside it: `name=value` is an
 * {@link ASSIGNMENT}) at the start of a line (after an optional `- `) or after `{ , ; ' " ( [`: a
 * header, a YAML or INI line, a JavaScript object. The look behind runs only where a name can start
 * (a letter or `_`): run at each character of a long run of blanks, it read back over the run from
 * each one.
 */
const BARE_NAME =
  /(?=[A-Za-z_])(?<=(?:^|[\r\n])[ \t]*(?:-[ \t]+)?|[{,;'"([][ \t]*)([A-Za-z_][A-Za-z0-9_.-]{0,63})(?:[ \t]*:(?![:=/])|[ \t]+=(?!=)|=(?=[ \t]))[ \t]*/g;

/**
 * An unquoted name and its `:` inside a line, after white space (`Settings: password: hunter2`,
 * an excerpt that starts mid-line), after `=` (`--header=Authorization: …`) or after a glued
 * `-H` (`curl -HX-Api-Key:…`): its value is one word (the rest of the line may be evidence).
 */
const INLINE_NAME = /(?<=[ \t=]|\s-H)([A-Za-z_][A-Za-z0-9_.-]{0,63})[ \t]*:(?![:=/])[ \t]*/g;
/**
 * An inline name's value: one word, up to white space, a quote, `, } ] ;` or `<>` — two after an
 * HTTP authorization scheme (`Authorization: token …`, `Bearer …`, `Basic …`), whose credential
 * is the second.
 */
const INLINE_VALUE =
  /(?:(?:token|bearer|basic|digest|bot|apikey|api-key|key|sso-key|otp|negotiate|hmac)[ \t]+(?=[^\s,}\]"'<>;]))?[^\s,}\]"'<>;]+/iy;

/** A long flag and the value after it (`--api-key VALUE`). */
const FLAG = /(?<=^|\s)(--[A-Za-z][A-Za-z0-9_-]{0,63})[ \t]+(?!-)/g;
/** A bare flag value: up to white space, a quote or `<>`. */
const FLAG_VALUE = /[^\s"'<>]+/y;

/** A short number: no secret under a token count's name ({@link isCountName}), a secret elsewhere. */
const SHORT_NUMBER = /^\d{1,6}$/;

/** A value that is no secret: a flag's word, a placeholder, a mask. */
const NOT_A_SECRET =
  /^(?:true|false|yes|no|on|off|none|null|undefined|\$\{[^}]*\}|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|\{env:\w+\}|<[^<>]*>|\*+)$/i;

/** An address: its domain stays in view. */
const ADDRESS = /^[^@\s]+(@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)$/;
/** A URL: its scheme and host stay in view. */
const URL_VALUE = /^([a-z][a-z0-9+.-]*:\/\/[^/?#\s]*)(.*)$/is;

/** A secret-named value that names a destination: the part that stays in view, and the part hidden. */
export interface DestinationParts {
  /** An address's `@domain`, a URL's scheme and authority (`https://evil.example/`). */
  readonly shown: string;
  /** An address's local part, a URL's path (after its `/`), query and fragment (empty when none). */
  readonly hidden: string;
  /** The value as written with {@link hidden} replaced by `[redacted]` (the value itself when empty). */
  readonly text: string;
}

/**
 * The parts of a secret-named value that is an address or a URL: its domain, or its scheme and
 * host, stay in view (`token=attacker@evil.example` or `redirect_uri: https://evil.example/cb`
 * must not hide where data goes — an upstream names its own parameters).
 *
 * Source: SPEC §3.5 (redaction), §2.5 (destinations are what the audit shows).
 * @param value - The value as written (trimmed).
 * @returns The parts, or undefined when the value is neither.
 * @example destinationParts("bob@evil.example")?.text // => "[redacted]@evil.example"
 */
export function destinationParts(value: string): DestinationParts | undefined {
  const address = ADDRESS.exec(value);
  if (address !== null) {
    const shown = address[1] ?? "";
    return { shown, hidden: value.slice(0, value.length - shown.length), text: `${HIDDEN}${shown}` };
  }
  const url = URL_VALUE.exec(value);
  if (url === null) return undefined;
  const shown = url[1] ?? "";
  const rest = url[2] ?? "";
  if (rest === "" || rest === "/") return { shown, hidden: "", text: value };
  const slash = rest.startsWith("/") ? "/" : "";
  return { shown: `${shown}${slash}`, hidden: rest.slice(slash.length), text: `${shown}${slash}${HIDDEN}` };
}

/**
 * What a secret-named value is shown as: `[redacted]`, except that an address keeps its domain
 * and a URL its scheme and host ({@link destinationParts}).
 * @param value - The value as written (without its quotes).
 * @returns The value to write; the value itself when it is no secret.
 */
function shownAs(value: string, name: string): string {
  const bare = value.trim();
  if (bare === "" || NOT_A_SECRET.test(bare) || (SHORT_NUMBER.test(bare) && isCountName(name))) return value;
  const parts = destinationParts(bare);
  if (parts === undefined) return HIDDEN;
  return parts.hidden === "" ? value : parts.text;
}

/**
 * Whether a string written after a secret-like name hides something, by the rule a field written
 * in a string is hidden by: not empty, not a word such as `true` or a placeholder such as
 * `${API_KEY}` or `$PW`, not a number of up to six digits under a token count's name
 * (`--max-tokens 1000`), not a URL of a host alone (`https://evil.example/`). An argv list's
 * element after a secret-named flag (`["psql", "--password", "…"]`) is judged by it, as
 * `"psql --password …"` is.
 *
 * Source: SPEC §3.5 ("values of arguments named like secrets … become `[redacted]`").
 * @param value - The value as written.
 * @param name - The name it is under (a flag, dashes and all).
 * @returns True when `redactSecretFields` would hide all or part of it.
 * @example isSecretFieldValue("hunter2", "--password") // => true
 */
export function isSecretFieldValue(value: string, name: string): boolean {
  return shownAs(value, name) !== value;
}

/**
 * Whether a number under a secret-like name is no secret: a count of language-model tokens of up
 * to six digits (`max_tokens: 1000`), as the same value written in a string is (`max_tokens=1000`).
 * Under any other secret-like name (`password`, `pin`, `otp`, `token`) the number is the secret.
 *
 * Source: SPEC §3.5.
 * @param value - A JSON number.
 * @param name - The name it is under.
 * @returns True when it stays in view.
 */
export function isPlainNumber(value: number, name: string): boolean {
  return SHORT_NUMBER.test(String(value)) && isCountName(name);
}

/**
 * Where a quoted string that starts at an offset ends (after its closing quote), or the text's end.
 * @param text - The text.
 * @param from - The offset after the opening quote.
 * @param close - The closing quote with the backslashes before it (`"`, `\"`).
 * @returns The offset after the closing quote, and whether there was one.
 */
function stringEnd(text: string, from: number, close: string): { end: number; closed: boolean } {
  if (close.length === 1) {
    for (let at = from; at < text.length; at++) {
      if (text[at] === "\\") at++;
      else if (text[at] === close) return { end: at + 1, closed: true };
    }
    return { end: text.length, closed: false };
  }
  for (let at = text.indexOf(close, from); at !== -1; at = text.indexOf(close, at + 1)) {
    if (text[at - 1] !== "\\") return { end: at + close.length, closed: true };
  }
  return { end: text.length, closed: false };
}

/**
 * Where an object or list that starts at an offset ends (strings of the same quoting skipped), or
 * the text's end.
 * @param text - The text.
 * @param from - The offset of its `{` or `[`.
 * @param quote - The strings' quote with its backslashes (`"`, `\"`).
 * @returns The offset after its closing bracket.
 */
function nestedEnd(text: string, from: number, quote: string): number {
  let depth = 0;
  for (let at = from; at < text.length; at++) {
    const ch = text[at];
    if (text.startsWith(quote, at)) at = stringEnd(text, at + quote.length, quote).end - 1;
    else if (ch === "{" || ch === "[") depth++;
    else if ((ch === "}" || ch === "]") && --depth === 0) return at + 1;
  }
  return text.length;
}

/** A bare JSON or JavaScript value (a number, `true`, an unquoted word). */
const BARE_VALUE = /[^\s,}\]"'\\]+/y;
/** A bare header or YAML value: up to the end of the line, a quote, `, } ; &` (a `${…}` kept whole). */
const LINE_VALUE =
  /(?:\$\{[^}\r\n]*\}|(?!\\[nrt"'])[^\r\n"'},;&])*(?:\$\{[^}\r\n]*\}|(?!\\[nrt"'])[^\s"'},;&])/y;

/** An opening quote and the backslashes before it (a string inside a JSON string: `\\"`). */
const OPENING = /\\*["']/y;

/**
 * Whether a name is secret-like, a percent-escaped one read unescaped (`api%5Fkey`), and a JSON
 * name read with its `\u` escapes decoded (`"\u0070assword"` is `"password"` to a JSON parser).
 * @param name - A name as written.
 * @returns True when a value under it is a secret.
 */
function isSecretField(name: string): boolean {
  if (isSecretName(name)) return true;
  if (name.includes("\\u")) return isSecretField(decodeJsonEscapes(name));
  if (!name.includes("%") && !name.includes("+")) return false;
  try {
    return isSecretName(decodeURIComponent(name.replaceAll("+", " ")));
  } catch {
    return false; // a malformed escape: judged as written
  }
}

/** A JSON `\u` escape, with the backslashes of JSON inside a JSON string (`\\u0070`). */
const JSON_ESCAPE = /\\+u([0-9A-Fa-f]{4})/g;

/**
 * A name with its JSON `\u` escapes decoded (`\u0070assword` → `password`).
 * @param name - A name as written.
 * @returns The name a JSON parser reads.
 */
function decodeJsonEscapes(name: string): string {
  return name.replace(JSON_ESCAPE, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/**
 * Hides the value that starts at an offset, under a secret-like name: a string (quoted as the name
 * is, or with `"`/`'`; a missing closing quote: to the end), an object or a list (hidden whole), or
 * what `bare` finds.
 * @param text - The text.
 * @param start - Where the value starts.
 * @param name - The name it is under (for what is shown of it).
 * @param options - `escapes`: the backslashes before the name's quotes (JSON inside a JSON string);
 *   `bare`: how a value that is no string, object or list is found (sticky).
 * @returns Where the value ends and what it is written as, or undefined when there is none.
 */
function hiddenValueAt(
  text: string,
  start: number,
  name: string,
  options: { readonly escapes: string; readonly bare: RegExp },
): { readonly end: number; readonly value: string } | undefined {
  OPENING.lastIndex = start;
  const opening = OPENING.exec(text)?.[0];
  if (opening !== undefined) {
    const found = stringEnd(text, start + opening.length, opening);
    const inner = text.slice(start + opening.length, found.closed ? found.end - opening.length : found.end);
    const shown = shownAs(inner, name);
    return {
      end: found.end,
      value:
        shown === inner ? text.slice(start, found.end) : `${opening}${shown}${found.closed ? opening : ""}`,
    };
  }
  if (text[start] === "{" || text[start] === "[")
    return { end: nestedEnd(text, start, `${options.escapes}"`), value: HIDDEN };
  options.bare.lastIndex = start;
  const found = options.bare.exec(text);
  if (found === null) return undefined;
  return { end: start + found[0].length, value: shownAs(found[0], name) };
}

/** A text after a pass, and the offsets of the labels it keeps, moved as the pass moved them. */
interface Pass {
  readonly text: string;
  readonly kept: ReadonlySet<number>;
}

/** No offsets kept (the long-flag pass keeps none). */
const NO_OFFSETS: ReadonlySet<number> = new Set();

/** One value a pass replaced: where it stood, and how long its replacement is. */
interface Edit {
  readonly start: number;
  readonly end: number;
  readonly length: number;
}

/**
 * Offsets of a text moved to where they stand once some of its spans are replaced. An offset inside
 * a replaced span (past its start) is gone with it.
 * @param offsets - Offsets in the text.
 * @param edits - The replaced spans, in order, not overlapping.
 * @returns The offsets in the new text.
 */
function moved(offsets: ReadonlySet<number>, edits: readonly Edit[]): ReadonlySet<number> {
  if (edits.length === 0 || offsets.size === 0) return offsets;
  const out = new Set<number>();
  let index = 0;
  let shift = 0;
  for (const offset of [...offsets].sort((a, b) => a - b)) {
    for (let edit = edits[index]; edit !== undefined && edit.end <= offset; edit = edits[++index])
      shift += edit.length - (edit.end - edit.start);
    const edit = edits[index];
    if (edit === undefined || offset <= edit.start) out.add(offset + shift);
  }
  return out;
}

/**
 * Replaces the value after each secret-named name that a pattern finds (the name and what follows
 * it in group 0, the name in the last group), scanning on after each value (what a hidden object
 * holds is gone with it). A value is read by {@link hiddenValueAt}. A value that starts at an offset
 * in `kept` (a labelled pair's label, `labelled-text.ts`) is a name, and stays.
 * @param before - The text, and the offsets of values that stay.
 * @param names - A global pattern as above.
 * @param bare - How a value that is no string, object or list is found (sticky).
 * @returns The text with those values hidden, and the kept offsets as they stand in it.
 */
function hideAfterNames(before: Pass, names: RegExp, bare: RegExp): Pass {
  const { text, kept } = before;
  const edits: Edit[] = [];
  let out = "";
  let from = 0;
  names.lastIndex = 0;
  for (let match = names.exec(text); match !== null; match = names.exec(text)) {
    const name = match.at(-1) ?? "";
    if (!isSecretField(name)) continue;
    const start = match.index + match[0].length;
    if (kept.has(start)) continue;
    const escapes = match.length > 2 ? (match[1] ?? "") : "";
    const hidden = hiddenValueAt(text, start, name, { escapes, bare });
    if (hidden === undefined) continue;
    out += `${text.slice(from, start)}${hidden.value}`;
    edits.push({ start, end: hidden.end, length: hidden.value.length });
    from = hidden.end;
    names.lastIndex = Math.max(hidden.end, names.lastIndex);
  }
  return from === 0 ? before : { text: out + text.slice(from), kept: moved(kept, edits) };
}

/**
 * Hides the value of each labelled pair written in a text whose label is secret-like
 * (`labelled-text.ts`: `{"name":"X-Api-Key","value":"…"}`, `<add key="ApiKey" value="…"/>`).
 * @param text - The text.
 * @param pairs - Its pairs (`textPairs`).
 * @returns The text with those values hidden, and the offsets of the labels whose member name is
 *   secret-like (`"key": "ApiKey"`, `ParameterKey="DbPassword"`: names, not values) as they stand in it.
 */
function hidePairValues(text: string, pairs: readonly TextPair[]): Pass {
  const labels: ReadonlySet<number> = new Set(
    pairs.filter((pair) => pair.secretLabelName).map((pair) => pair.labelAt),
  );
  const edits: Edit[] = [];
  let out = "";
  let from = 0;
  for (const pair of pairs) {
    if (!pair.secret || pair.valueAt < from) continue;
    const hidden = hiddenValueAt(text, pair.valueAt, pair.name, { escapes: "", bare: BARE_VALUE });
    if (hidden === undefined) continue;
    out += `${text.slice(from, pair.valueAt)}${hidden.value}`;
    edits.push({ start: pair.valueAt, end: hidden.end, length: hidden.value.length });
    from = hidden.end;
  }
  return from === 0 ? { text, kept: labels } : { text: out + text.slice(from), kept: moved(labels, edits) };
}

/**
 * Hides the value of each secret-named field written in a text (see the module doc): JSON members
 * (a value that is an object or list hidden whole), assignments, header, YAML and INI lines (and
 * `name: word` inside a line), long flags. A value that is no secret (`true`, a number of up to six digits, a placeholder such as
 * `${API_KEY}`) stays; an address keeps its domain and a URL its scheme and host.
 *
 * Source: SPEC §3.5 (secret-named values are redacted; a field in a string is one).
 * @param text - Any string.
 * @param options - `namePart`: the quick test a text must pass to be searched for names (default
 *   `SECRET_NAME_PART`; the server identity passes recipe 1's, `IDENTITY_NAME_PART`).
 * @returns The text with those values replaced by `"[redacted]"`.
 * @example redactSecretFields('{"password":"hunter2"}') // => '{"password":"[redacted]"}'
 */
export function redactSecretFields(text: string, options: { readonly namePart?: RegExp } = {}): string {
  if (!(options.namePart ?? SECRET_NAME_PART).test(text)) return text;
  const separated = text.includes("=") || text.includes(":");
  // A pair's label is a name: the passes below keep it (the pairs are read once, and each pass
  // moves the offsets of their labels as it moves the text).
  let pass = hidePairValues(text, separated ? textPairs(text) : []);
  if (separated && (pass.text.includes('"') || pass.text.includes("'")))
    pass = hideAfterNames(pass, QUOTED_NAME, BARE_VALUE);
  if (pass.text.includes("=")) pass = hideAfterNames(pass, ASSIGNMENT, ASSIGNED_VALUE);
  if (separated) pass = hideAfterNames(pass, BARE_NAME, LINE_VALUE);
  if (pass.text.includes(":")) pass = hideAfterNames(pass, INLINE_NAME, INLINE_VALUE);
  if (pass.text.includes("--"))
    pass = hideAfterNames({ text: pass.text, kept: NO_OFFSETS }, FLAG, FLAG_VALUE);
  return pass.text;
}
