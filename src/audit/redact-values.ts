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
import { MAX_DEPTH, redactText, secretListNames, secretMembers } from "./redact.ts";
import { destinationParts, isPlainNumber } from "./redact-fields.ts";
import { ARGS_KEYS, argvFlagSecrets, hideSpans, siblingProgram } from "./secret-flags.ts";
import {
  addPieces,
  hideForms,
  longestFirst,
  MAX_WINDOWED,
  MIN_SECRET_PIECE,
  MIN_SECRET_VALUE,
  occursWhole,
  type SecretForms,
  shownWindows,
} from "./secret-forms.ts";

/** A call's secret-named values, and the other values its record's `args` show. */
export interface ArgumentSecrets {
  /** From {@link argumentSecrets}. */
  readonly secrets: string[];
  /** The values not under a secret-named key, as `args` show them (token-redacted, cut at 1 KiB). */
  readonly shown: string[];
}

/**
 * The scalar values that `redactJson` hides because of their key (`password`, `api_key`...), and the
 * keys of objects under such a key, at any depth (the engine flattens and quotes a destination at
 * any depth, keys included: SPEC §2.5 "Flattening"), as text: what a reason or evidence may quote and
 * must not show either — except a value that another, not secret-named, argument holds where the
 * record's `args` show it (the record's `args` show it there anyway; an agent passing the recipient
 * again as `token` would otherwise blank it out of the reason). With them, the values that the
 * record's `args` show (not under a secret-named key, at most 64 levels deep): no part of those is
 * hidden (`secretHider`'s `shown`), so an agent that passes `password: "evil"` cannot blank
 * `attacker@evil.example` out of the reason. Iterative: no nesting runs out of stack.
 *
 * Source: SPEC §3.5.
 * @param value - Tool arguments.
 * @returns The secrets (strings, numbers as text, keys, of at least 4 characters) that no other
 *   argument shows, and the shown values (empty when there are no secrets).
 */
export function argumentSecrets(value: unknown): ArgumentSecrets {
  const found = new Set<string>();
  const others: string[] = [];
  const stack: { item: unknown; under: boolean; depth: number; name: string; program?: string }[] = [
    { item: value, under: false, depth: 0, name: "" },
  ];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { item, under, depth, name, program } = next;
    if (typeof item === "string" || typeof item === "number") {
      const text = String(item);
      // What `redactJson` shows of a secret-named value is shown here too: a small number, an
      // address's domain, a URL's scheme and host; only the rest is a secret.
      const parts = under && typeof item === "string" ? destinationParts(redactText(text).trim()) : undefined;
      if (under && typeof item === "number" && isPlainNumber(item, name)) others.push(text);
      else if (parts !== undefined) {
        others.push(parts.shown);
        if (parts.hidden.length >= MIN_SECRET_VALUE) found.add(parts.hidden);
      } else if (under) {
        if (text.length >= MIN_SECRET_VALUE) found.add(text);
      } else if (depth <= MAX_DEPTH) others.push(text); // deeper, `redactJson` shows only a marker
      continue;
    }
    if (typeof item !== "object" || item === null) continue;
    // Children go on the stack last first, so values are found in document order.
    if (Array.isArray(item)) {
      const secretAt = secretListNames(item);
      const flagged = under ? undefined : argvFlagSecrets(item, program);
      for (let i = item.length - 1; i >= 0; i -= 1) {
        const name = secretAt.get(i);
        const spans = name === undefined ? flagged?.get(i) : undefined;
        if (spans !== undefined) {
          // An argv's `-pS3cret`: the password a secret, the element shown with it hidden.
          const text = item[i] as string;
          for (const { start, end } of spans)
            if (end - start >= MIN_SECRET_VALUE) found.add(text.slice(start, end));
          if (depth < MAX_DEPTH) others.push(hideSpans(text, spans));
          continue;
        }
        stack.push({ item: item[i], under: under || name !== undefined, depth: depth + 1, name: name ?? "" });
      }
      continue;
    }
    const keys = Object.keys(item);
    if (under) for (const key of keys) if (key.length >= MIN_SECRET_VALUE) found.add(key);
    const isSecret = secretMembers(item, keys);
    const sibling = siblingProgram(item);
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i] as string;
      stack.push({
        item: Reflect.get(item, key),
        under: under || isSecret(key),
        depth: depth + 1,
        name: key,
        ...(sibling !== undefined && ARGS_KEYS.has(key) ? { program: sibling } : {}),
      });
    }
  }
  if (found.size === 0) return { secrets: [], shown: [] };
  // A value the record's `args` show anyway under another key (the recipient passed again as
  // `token`) hides nothing by being redacted: it would only blank what the reason says. `args` show
  // values token-redacted and cut at 1 KiB; a short secret counts as shown only as a whole value
  // (`date` inside `update` shows nothing).
  const shownAs = others.map((text) => redactText(text));
  const shown = shownAs.map((text) => text.toLowerCase());
  const secrets = [...found].filter((secret) => {
    const lower = secret.toLowerCase();
    return !shown.some(
      (text) => text === lower || (lower.length >= MIN_SECRET_PIECE && text.includes(lower)),
    );
  });
  return { secrets, shown: secrets.length === 0 ? [] : shownAs };
}

/**
 * The texts a record may hold a secret value as before any rendering: as written, and in each
 * canonical form the engine computes (SPEC §2.5: NFKC, invisible characters removed, lower case,
 * whitespace collapsed, percent-encoding and entities decoded) — an excerpt of recorded output is
 * canonical text, a destination's identity its canonical form.
 * @param secret - A value from {@link argumentSecrets}.
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
 * @param secret - A value from {@link argumentSecrets}.
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
  return longestFirst(forms);
}

/**
 * Builds a function that replaces each secret value in a text with `"[redacted]"` — as written and
 * in canonical form (an excerpt of output is canonical: lower case, NFKC), each as a question or
 * reason renders it (non-ASCII escaped), by its pieces, and by any 12 characters of it in any case
 * (a cut start, an ending window, a lower-cased host); a short one only where it does not continue
 * a word. Nothing else changes (no token redaction, no cut). The forms are computed once, here.
 * A form or 12-character run that occurs in a shown value, in any of its forms, is not looked for:
 * the record's `args` show it anyway, and a reason quotes that value (the deciding destination) as
 * `args` hold it — hiding it there would only blank the destination (SPEC §3.4: it stays in view).
 *
 * Source: SPEC §3.5 (redaction of `reason` and `evidence`), §3.4 (rendering).
 * @param secrets - Values to hide (from {@link argumentSecrets}).
 * @param shown - Values the record shows anyway (from {@link argumentSecrets}); default none.
 * @returns From a text to the text with no form of a secret value left in it.
 */
export function secretHider(
  secrets: readonly string[],
  shown: readonly string[] = [],
): (text: string) => string {
  // Built on the first text to hide: a record with no reason or evidence (most allows) pays nothing.
  const compile = (): SecretForms[] => {
    const seen = shownText(shown);
    return secrets.map((secret) => {
      const forms = formsOf(secret);
      const windowed = windowedForms(secret);
      if (seen === "") return { forms, windowed };
      return {
        forms: forms.filter((form) => !occursWhole(seen, form.toLowerCase())),
        windowed,
        skip: shownWindows(seen, windowed),
      };
    });
  };
  let compiled: SecretForms[] | undefined;
  return (text) => {
    compiled ??= compile();
    return hideForms(text, compiled);
  };
}

/**
 * Every form of the shown values ({@link formsOf}: as written, canonical, rendered, its end, its
 * pieces and hosts), lower-cased, joined by NUL (no form or run of a secret is looked for across it
 * as a word: NUL is no word character).
 * @param shown - Values the record's `args` show.
 * @returns The joined text, empty for none.
 */
function shownText(shown: readonly string[]): string {
  const texts = new Set<string>();
  for (const value of shown) for (const form of formsOf(value)) texts.add(form.toLowerCase());
  return [...texts].join("\u0000");
}

/**
 * The forms of a secret whose windows are looked for: each of its {@link writtenForms}, and each as
 * rendered where rendering escapes something (a non-ASCII letter shown as `\u{e4}`), without a
 * repeat in another case (windows are found in any case).
 * @param secret - A value from {@link argumentSecrets}.
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
