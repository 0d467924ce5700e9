/**
 * Finding and hiding the forms of known secret values in a text: each form replaced whole (a short
 * one only where it does not continue a word), and any 12 characters of a secret in any case. No
 * engine: `redact-values.ts` adds the engine's canonical and rendered forms for audit records, and
 * the upstream's stderr is hidden with the plain forms alone (`redact-env.ts`), before the engine
 * loads. Edge (pure apart from `node:crypto` through `redact.ts`).
 *
 * Source: SPEC §3.5 (redaction).
 * @module
 */

import { REDACTED } from "./redact.ts";

/** Values (and forms) shorter than this are not searched for in other text. */
export const MIN_SECRET_VALUE = 4;
/** Pieces of a secret value shorter than this are not searched for on their own. */
export const MIN_SECRET_PIECE = 8;
/** Characters of a secret looked for by windows at most (a longer one: its first part). */
export const MAX_WINDOWED = 256;
/** Characters of a secret that, found anywhere in a text (any case), are redacted there. */
const SECRET_WINDOW = 12;

/** What is looked for of one secret: forms replaced whole, and forms whose 12-character runs are. */
export interface SecretForms {
  /** Longest first, each of at least 4 characters. */
  readonly forms: readonly string[];
  readonly windowed: readonly string[];
  /** 12-character runs, lower-cased, not looked for (another argument shows them: {@link shownWindows}). */
  readonly skip?: ReadonlySet<string>;
}

/**
 * Adds each piece of at least 8 characters of a value between separators, and each such piece's
 * ASCII host form (a reason names a host in punycode, lower case).
 * @param forms - Where the pieces go.
 * @param value - One written form of a secret.
 */
export function addPieces(forms: Set<string>, value: string): void {
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

/**
 * The base64 forms of a value's UTF-8 bytes, standard and URL-safe, without their `=` padding (a
 * program that prints a credential encoded, an `Authorization: Basic` header or a config dump).
 * @param secret - A secret value.
 * @returns The two forms (one when they agree).
 */
function base64Forms(secret: string): string[] {
  let binary = "";
  for (const byte of new TextEncoder().encode(secret)) binary += String.fromCharCode(byte);
  const standard = btoa(binary).replace(/=+$/, "");
  return [standard, standard.replaceAll("+", "-").replaceAll("/", "_")];
}

/**
 * The forms of a value as a program prints it: as written, as inside a JSON string, its pieces, and
 * base64-encoded.
 *
 * Source: SPEC §3.5.
 * @param secret - A secret value.
 * @returns The forms of at least 4 characters, longest first, and the value for windows.
 */
export function plainForms(secret: string): SecretForms {
  const forms = new Set<string>([secret, JSON.stringify(secret).slice(1, -1), ...base64Forms(secret)]);
  addPieces(forms, secret);
  return { forms: longestFirst(forms), windowed: [secret] };
}

/**
 * The forms worth looking for, longest first.
 * @param forms - Candidate forms.
 * @returns Those of at least 4 characters, longest first.
 */
export function longestFirst(forms: Iterable<string>): string[] {
  return [...forms].filter((form) => form.length >= MIN_SECRET_VALUE).sort((a, b) => b.length - a.length);
}

/**
 * Replaces every form of each secret in a text with `"[redacted]"`: whole forms, then 12-character
 * runs of the windowed forms in any case.
 *
 * Source: SPEC §3.5.
 * @param text - Any text.
 * @param secrets - The forms of each secret.
 * @returns The text with none of the forms left in it.
 */
export function hideForms(text: string, secrets: readonly SecretForms[]): string {
  let out = text;
  for (const { forms, windowed, skip } of secrets) {
    for (const form of forms) out = replaceWhole(out, form);
    for (const form of windowed) out = redactWindows(out, form, skip);
  }
  return out;
}

/** A word character: a form is replaced only where it does not continue a word (`date` in `update`). */
const WORD = /[\p{L}\p{N}_]/u;

/**
 * Whether a form found at an offset continues a word there: only a short one (under 8 characters:
 * `date` in `update`) counts as glued, a longer one is found anywhere (`-ps3cretpass`).
 */
function glued(text: string, form: string, at: number): boolean {
  if (form.length >= MIN_SECRET_PIECE) return false;
  const before = text[at - 1] ?? "";
  const after = text[at + form.length] ?? "";
  return (
    (WORD.test(form[0] ?? "") && WORD.test(before)) || (WORD.test(form.at(-1) ?? "") && WORD.test(after))
  );
}

/**
 * Whether a form occurs in a text where {@link hideForms} would replace it (a short one not inside
 * a word: `evil` in `attacker@evil.example`, not `date` in `update`).
 *
 * Source: SPEC §3.5.
 * @param text - Any text.
 * @param form - A form of a secret.
 * @returns True when it occurs there.
 */
export function occursWhole(text: string, form: string): boolean {
  for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1))
    if (!glued(text, form, at)) return true;
  return false;
}

/**
 * The 12-character runs of a secret's windowed forms (lower-cased, their first 256 characters) that
 * occur in a text: what another argument shows anyway, so not looked for (`attacker@evi` of
 * `attacker@evil.example-xyz` when the recipient is `attacker@evil.example`).
 *
 * Source: SPEC §3.5.
 * @param text - Lower-cased text (what the record's `args` show).
 * @param windowed - The forms whose runs are looked for.
 * @returns The runs found in `text`.
 */
export function shownWindows(text: string, windowed: readonly string[]): Set<string> {
  const wanted = new Set<string>();
  for (const form of windowed) {
    const lower = form.slice(0, MAX_WINDOWED).toLowerCase();
    for (let i = 0; i + SECRET_WINDOW <= lower.length; i += 1) wanted.add(lower.slice(i, i + SECRET_WINDOW));
  }
  const found = new Set<string>();
  if (wanted.size === 0) return found;
  for (let i = 0; i + SECRET_WINDOW <= text.length; i += 1) {
    const window = text.slice(i, i + SECRET_WINDOW);
    if (wanted.has(window)) found.add(window);
  }
  return found;
}

/** Replaces a form wherever it occurs, a short one only where it does not continue a word. */
function replaceWhole(text: string, form: string): string {
  let out = "";
  let from = 0;
  for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) {
    if (at < from || glued(text, form, at)) continue;
    out += `${text.slice(from, at)}${REDACTED}`;
    from = at + form.length;
  }
  return out + text.slice(from);
}

/**
 * Redacts every run of 12 or more characters of a secret found in a text, in any case: what a
 * message shows of a secret inside a longer value — its start before a cut, its middle in an
 * ending window, a host lower-cased as the identity writes it. Overlapping finds merge; runs in
 * `skip` (lower-cased) are not looked for.
 */
function redactWindows(text: string, secret: string, skip?: ReadonlySet<string>): string {
  if (secret.length < SECRET_WINDOW) return text;
  // Lower case must keep every offset (it does not for a few letters, `İ`): else case counts.
  const folded = text.toLowerCase();
  const caseless = folded.length === text.length;
  const lower = caseless ? folded : text;
  const wanted = caseless ? secret.slice(0, MAX_WINDOWED).toLowerCase() : secret.slice(0, MAX_WINDOWED);
  const spans: [number, number][] = [];
  for (let i = 0; i + SECRET_WINDOW <= wanted.length; i += 1) {
    const window = wanted.slice(i, i + SECRET_WINDOW);
    if (skip !== undefined && skip.size > 0 && skip.has(caseless ? window : window.toLowerCase())) continue;
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
