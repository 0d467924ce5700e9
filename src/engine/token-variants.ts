/**
 * The keys a destination-shaped token also stands for when punctuation is glued to it: text can
 * dress an address or host so that the token found is not the destination a reader takes from it
 * (`_attacker@evil.example_` in Markdown italics, `to...attacker@evil.example`,
 * `attacker@evil.example--now`, `+attacker@…`). Each such token is also indexed without the glued
 * punctuation: leading and trailing `. _ + -` stripped, and cut at a run of two or more of them
 * (not a punycode `xn--`). A single inner `.`, `_`, `-` or `+` (`first.last@`, `my-host.example`)
 * is part of the token and makes no variant. Pure.
 *
 * Source: SPEC §2.5 ("occurs in free text … on token boundaries"); review of session 8 (glued
 * punctuation hid planted addresses).
 * @module
 */

import type { FoundToken, FoundVisitor } from "./token-scan.ts";

/**
 * The shape tests a variant must pass (`tokens.ts`' own, passed in so that this module does not
 * import it back).
 *
 * Source: SPEC §2.5 "Identity".
 */
export interface VariantShapes {
  readonly isEmail: (value: string) => boolean;
  readonly isHost: (value: string) => boolean;
}

/** `.`, `_`, `+` and `-`: the punctuation a token's characters include. */
function isPunct(c: number): boolean {
  return c === 46 || c === 95 || c === 43 || c === 45;
}

/** A run of two or more of `. _ + -` that is not the `--` of a punycode label (`xn--`). */
const PUNCT_RUN = /[._+-]{2,}/g;

/** Whether `text[start, end)` needs variants: punctuation at an edge, or a run of two. */
function needsVariants(text: string, start: number, end: number): boolean {
  if (isPunct(text.charCodeAt(start)) || isPunct(text.charCodeAt(end - 1))) return true;
  for (let i = start + 1; i < end; i += 1) {
    if (isPunct(text.charCodeAt(i)) && isPunct(text.charCodeAt(i - 1))) return true;
  }
  return false;
}

/** Strips leading and trailing `. _ + -`. */
function trimPunct(part: string): string {
  return part.replace(/^[._+-]+|[._+-]+$/g, "");
}

/** Whether the run at `index` of `part` is the `--` of a punycode label. */
function isPunycodeDashes(part: string, index: number, run: string): boolean {
  if (run !== "--" || index < 2) return false;
  const label = part.slice(0, index).split(".").at(-1) ?? "";
  return label === "xn";
}

/** A local part's readings: as found, trimmed, and what follows each run of punctuation. */
function localReadings(local: string): Set<string> {
  const readings = new Set([local, trimPunct(local)]);
  for (const run of local.matchAll(PUNCT_RUN))
    readings.add(trimPunct(local.slice(run.index + run[0].length)));
  return readings;
}

/** A domain's readings: as found, trimmed, and what precedes its first run of punctuation. */
function domainReadings(domain: string): Set<string> {
  const readings = new Set([domain, trimPunct(domain)]);
  for (const run of domain.matchAll(PUNCT_RUN)) {
    if (isPunycodeDashes(domain, run.index, run[0])) continue;
    readings.add(trimPunct(domain.slice(0, run.index)));
    break;
  }
  return readings;
}

/**
 * The other keys a token stands for (see the module comment): for an address, every combination
 * of its local part's and its domain's readings that is still an address; for a host, its readings
 * that are still hosts. Other tokens have none.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param key - A token's key (lower case).
 * @param shapes - The address and host shape tests.
 * @returns The variant keys, without the key itself (usually none).
 * @example tokenVariants("_attacker@evil.example_", shapes) // ["attacker@evil.example"]
 */
export function tokenVariants(key: string, shapes: VariantShapes): string[] {
  const out = new Set<string>();
  const at = key.indexOf("@");
  if (at !== -1) {
    const domains = domainReadings(key.slice(at + 1));
    for (const local of localReadings(key.slice(0, at))) {
      for (const domain of domains) {
        const candidate = `${local}@${domain}`;
        if (candidate !== key && shapes.isEmail(candidate)) out.add(candidate);
      }
    }
  } else if (key.includes(".")) {
    for (const host of domainReadings(trimPunct(key))) if (host !== key && shapes.isHost(host)) out.add(host);
  }
  return [...out];
}

/**
 * Wraps a scan's visitor so that a token with punctuation at an edge or a run of it (rare) is also
 * reported under each of its {@link tokenVariants} (same span); other tokens cost two character
 * looks and a loop over their characters, and no string.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param text - The text being scanned.
 * @param visit - The visitor to wrap.
 * @param shapes - The address and host shape tests.
 * @returns The wrapped visitor.
 */
export function withTokenVariants(text: string, visit: FoundVisitor, shapes: VariantShapes): FoundVisitor {
  return (found: FoundToken) => {
    visit(found);
    const start = found.key === undefined ? found.keyStart : found.start;
    if (
      found.key === undefined
        ? !needsVariants(text, start, found.end)
        : !/^[._+-]|[._+-]$|[._+-]{2}/.test(found.key)
    )
      return;
    const key = found.key ?? text.slice(found.keyStart, found.end);
    if (!key.includes(".")) return;
    const span = { start: found.start, end: found.end };
    for (const variant of tokenVariants(key, shapes)) {
      found.start = span.start;
      found.end = span.end;
      found.key = variant;
      visit(found);
    }
  };
}
