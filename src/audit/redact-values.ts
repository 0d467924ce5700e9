/**
 * The values of a call's secret-named arguments, hidden wherever an audit record's text quotes them:
 * a reason names a destination as written, its address or host, its end, or one piece of a value
 * split at commas, and quotes excerpts of output in canonical form (SPEC §2.5, §3.4), so each of
 * those forms is redacted, not only the whole value.
 * Edge (pure apart from `node:crypto` through `redact.ts`).
 *
 * Source: SPEC §3.5 ("Redaction applies to `args`, `reason` and `evidence`: values of arguments
 * named like secrets … become `[redacted]`").
 * @module
 */

import { canonicalize, renderUntrusted, renderUntrustedEnd } from "../engine/index.ts";
import { isSecretName, MAX_DEPTH, REDACTED, redactText } from "./redact.ts";

/** Values under secret-named keys shorter than this are not searched for in other text. */
const MIN_SECRET_VALUE = 4;
/** Pieces of a secret value shorter than this are not searched for on their own. */
const MIN_SECRET_PIECE = 8;

/**
 * The scalar values that `redactJson` hides because of their key (`password`, `api_key`...), and the
 * keys of objects under such a key, at any depth (the engine flattens and quotes a destination at
 * any depth, keys included: SPEC §2.5 "Flattening"), as text: what a reason or evidence may quote and
 * must not show either — except a value that another, not secret-named, argument holds where the
 * record's `args` show it (the record's `args` show it there anyway; an agent passing the recipient
 * again as `token` would otherwise blank it out of the reason). Iterative: no nesting runs out of
 * stack.
 *
 * Source: SPEC §3.5.
 * @param value - Tool arguments.
 * @returns The secret values (strings, numbers as text, keys) of at least 4 characters that no other
 *   argument shows.
 */
export function secretValues(value: unknown): string[] {
  const found = new Set<string>();
  const others: string[] = [];
  const stack: { item: unknown; under: boolean; depth: number }[] = [{ item: value, under: false, depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { item, under, depth } = next;
    if (typeof item === "string" || typeof item === "number") {
      const text = String(item);
      if (under) {
        if (text.length >= MIN_SECRET_VALUE) found.add(text);
      } else if (depth <= MAX_DEPTH) others.push(text); // deeper, `redactJson` shows only a marker
      continue;
    }
    if (typeof item !== "object" || item === null) continue;
    // Children go on the stack last first, so values are found in document order.
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i -= 1) stack.push({ item: item[i], under, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(item);
    if (under) for (const key of keys) if (key.length >= MIN_SECRET_VALUE) found.add(key);
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i] as string;
      stack.push({ item: Reflect.get(item, key), under: under || isSecretName(key), depth: depth + 1 });
    }
  }
  if (found.size === 0) return [];
  // A value the record's `args` show anyway under another key (the recipient passed again as
  // `token`) hides nothing by being redacted: it would only blank what the reason says. `args` show
  // values token-redacted and cut at 1 KiB; a short secret counts as shown only as a whole value
  // (`date` inside `update` shows nothing).
  const shown = others.map((text) => redactText(text).toLowerCase());
  return [...found].filter((secret) => {
    const lower = secret.toLowerCase();
    return !shown.some(
      (text) => text === lower || (lower.length >= MIN_SECRET_PIECE && text.includes(lower)),
    );
  });
}

/**
 * The texts a record may hold a secret value as before any rendering: as written, and in each
 * canonical form the engine computes (SPEC §2.5: NFKC, invisible characters removed, lower case,
 * whitespace collapsed, percent-encoding and entities decoded) — an excerpt of recorded output is
 * canonical text, a destination's identity its canonical form.
 * @param secret - A value from {@link secretValues}.
 * @returns The distinct texts, the secret first.
 */
function writtenForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  forms.add(canonicalize(secret));
  forms.add(canonicalize(secret, { output: true }));
  forms.add(canonicalize(secret, { destination: true }));
  return [...forms];
}

/**
 * Every form in which a message may show a secret value: each of its {@link writtenForms} as
 * written, as JSON, as rendered (escaped, cut at 200 characters: a reason quotes an excerpt or a
 * destination rendered, SPEC §3.4), its rendered end, and each piece of at least 8 characters
 * between separators (an address behind a display name, one of several recipients, a URL's host or
 * query).
 * @param secret - A value from {@link secretValues}.
 * @returns The forms of at least 4 characters, longest first.
 */
function formsOf(secret: string): string[] {
  const forms = new Set<string>();
  for (const written of writtenForms(secret)) {
    forms.add(written);
    forms.add(JSON.stringify(written).slice(1, -1));
    forms.add(renderUntrusted(written).slice(1, -1).replace(/…$/, ""));
    forms.add(renderUntrustedEnd(written).slice(1, -1).replace(/^…/, ""));
    addPieces(forms, written);
  }
  return [...forms].filter((form) => form.length >= MIN_SECRET_VALUE).sort((a, b) => b.length - a.length);
}

/**
 * Adds each piece of at least 8 characters of a value between separators, and each such piece's
 * ASCII host form (a reason names a host in punycode, lower case).
 * @param forms - Where the pieces go.
 * @param value - One written form of a secret.
 */
function addPieces(forms: Set<string>, value: string): void {
  for (const piece of value.split(/[\s,;<>()"'|[\]{}/?&=#]+/)) {
    const trimmed = piece.replace(/^[.:@-]+|[.:@-]+$/g, "");
    if (trimmed.length >= MIN_SECRET_PIECE) forms.add(trimmed);
    const host = asciiHost(trimmed.includes("@") ? trimmed.slice(trimmed.lastIndexOf("@") + 1) : trimmed);
    if (host !== undefined && host.length >= MIN_SECRET_PIECE) forms.add(host);
  }
}

/** A dotted host in its ASCII form (`bücher.example` → `xn--bcher-kva.example`), if the text is one. */
function asciiHost(text: string): string | undefined {
  if (!text.includes(".") || /[\s/]/.test(text)) return undefined;
  try {
    return new URL(`http://${text}/`).hostname;
  } catch {
    return undefined;
  }
}

/** A word character: a form is replaced only where it does not continue a word (`date` in `update`). */
const WORD = /[\p{L}\p{N}_]/u;

/**
 * Replaces a form wherever it occurs; a short one (under 8 characters: `date`) only where it does
 * not continue a word (`update`), a longer one anywhere (`-ps3cretpass`).
 */
function replaceWhole(text: string, form: string): string {
  const short = form.length < MIN_SECRET_PIECE;
  let out = "";
  let from = 0;
  for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) {
    const before = text[at - 1] ?? "";
    const after = text[at + form.length] ?? "";
    const glued =
      short &&
      ((WORD.test(form[0] ?? "") && WORD.test(before)) || (WORD.test(form.at(-1) ?? "") && WORD.test(after)));
    if (glued || at < from) continue;
    out += `${text.slice(from, at)}${REDACTED}`;
    from = at + form.length;
  }
  return out + text.slice(from);
}

/**
 * Replaces each secret value in a text with `"[redacted]"` — as written and in canonical form (an
 * excerpt of output is canonical: lower case, NFKC), each as a question or reason renders it
 * (non-ASCII escaped), by its pieces, and by any 12 characters of it in any case (a cut start, an
 * ending window, a lower-cased host); a short one only where it does not continue a word — then
 * redacts tokens as `redactText` does.
 *
 * Source: SPEC §3.5 (redaction of `reason` and `evidence`), §3.4 (rendering).
 * @param text - A reason, an excerpt, or any text that may quote the arguments.
 * @param secrets - From {@link secretValues}.
 * @returns The text with no form of a secret value left in it.
 */
export function redactTextOf(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    for (const form of formsOf(secret)) out = replaceWhole(out, form);
    for (const written of windowedForms(secret)) out = redactWindows(out, written);
  }
  return redactText(out);
}

/**
 * The forms of a secret whose windows are looked for: each of its {@link writtenForms}, and each as
 * rendered where rendering escapes something (a non-ASCII letter shown as `\u{e4}`), without a
 * repeat in another case (windows are found in any case).
 * @param secret - A value from {@link secretValues}.
 * @returns The distinct forms.
 */
function windowedForms(secret: string): string[] {
  const forms = new Map<string, string>();
  for (const written of writtenForms(secret)) {
    for (const form of [written, renderUntrusted(written.slice(0, MAX_WINDOWED)).slice(1, -1)]) {
      const key = form.toLowerCase();
      if (!forms.has(key)) forms.set(key, form);
    }
  }
  return [...forms.values()];
}

/** Characters of a secret that, found anywhere in a text (any case), are redacted there. */
const SECRET_WINDOW = 12;
/** Characters of a secret looked for by windows at most (a longer one: its first part). */
const MAX_WINDOWED = 256;

/**
 * Redacts every run of 12 or more characters of a secret found in a text, in any case: what a
 * message shows of a secret inside a longer value — its start before a cut, its middle in an
 * ending window, a host lower-cased as the identity writes it. Overlapping finds merge.
 */
function redactWindows(text: string, secret: string): string {
  if (secret.length < SECRET_WINDOW) return text;
  // Lower case must keep every offset (it does not for a few letters, `İ`): else case counts.
  const folded = text.toLowerCase();
  const caseless = folded.length === text.length;
  const lower = caseless ? folded : text;
  const wanted = caseless ? secret.slice(0, MAX_WINDOWED).toLowerCase() : secret.slice(0, MAX_WINDOWED);
  const spans: [number, number][] = [];
  for (let i = 0; i + SECRET_WINDOW <= wanted.length; i += 1) {
    const window = wanted.slice(i, i + SECRET_WINDOW);
    for (let at = lower.indexOf(window); at !== -1; at = lower.indexOf(window, at + 1)) {
      spans.push([at, at + SECRET_WINDOW]);
    }
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let from = 0;
  let [start, end] = spans[0] as [number, number];
  for (const [s, e] of spans.slice(1)) {
    if (s <= end) end = Math.max(end, e);
    else {
      out += `${text.slice(from, start)}${REDACTED}`;
      from = end;
      [start, end] = [s, e];
    }
  }
  return `${out}${text.slice(from, start)}${REDACTED}${text.slice(end)}`;
}
