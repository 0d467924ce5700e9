/**
 * Typo suggestions for policy keys and values: the closest candidate by edit distance.
 * Pure.
 *
 * Source: SPEC §4.2 ("with the closest key suggested for a typo").
 * @module
 */

/**
 * The optimal-string-alignment distance between two strings (Levenshtein plus adjacent swaps),
 * compared case-insensitively.
 *
 * @param a - First string.
 * @param b - Second string.
 * @returns The number of single-character edits turning `a` into `b`.
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const rows: number[][] = [];
  for (let i = 0; i <= s.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= t.length; j++) row.push(i === 0 ? j : 0);
    rows.push(row);
  }
  for (let i = 1; i <= s.length; i++) {
    const row = rows[i]!;
    const prev = rows[i - 1]!;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      row[j] = best;
    }
  }
  return rows[s.length]![t.length]!;
}

/** Options of {@link closestKey}. */
export interface ClosestKeyOptions {
  /**
   * Values a key may hold, mapped to the key that holds them: an unknown key that looks like one of
   * them (`alow` → `allow`) suggests that key (`action`).
   */
  readonly valueHints?: ReadonlyMap<string, string>;
}

/**
 * The candidate closest to a misspelled word, when it is close enough to be a plausible typo:
 * at most 2 edits, or a third of the word's length for long words, and fewer edits than the word has
 * characters (`cc` is not a typo of `to`: every letter would differ). Falls back to `valueHints`
 * (a key named like one of a key's values suggests that key).
 *
 * @param word - The unknown key or value as written.
 * @param candidates - The valid keys or values.
 * @param options - Optional value hints.
 * @returns The suggestion, or `undefined` when nothing is close.
 * Source: SPEC §4.2.
 */
export function closestKey(
  word: string,
  candidates: readonly string[],
  options: ClosestKeyOptions = {},
): string | undefined {
  const limit = Math.min(Math.max(2, Math.floor(word.length / 3)), [...word].length - 1);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best !== undefined && bestDistance <= limit) return best;
  for (const [value, key] of options.valueHints ?? new Map<string, string>()) {
    if (editDistance(word, value) <= 1) return key;
  }
  return undefined;
}

/**
 * The section a key was probably meant to be: at most one edit from a section name, or two from
 * `defaults` (`default`, `server`, `tool`, `defualts`; a tool such as `session` stays a tool). Such
 * a key would otherwise be read as a tool whose keys all happen to be valid.
 *
 * Source: SPEC §4.2 (strict validation, "closest key suggested").
 * @param name - A key where a section or a tool name may stand.
 * @param sections - The section names there (top level, or `defaults` and `tools` in a server).
 * @returns The section, or undefined.
 * @example misspeltSection("default", ["defaults", "tools"]) // "defaults"
 */
export function misspeltSection(name: string, sections: readonly string[]): string | undefined {
  const key = name.toLowerCase();
  for (const section of sections) {
    if (key === section || editDistance(key, section) <= (section === "defaults" ? 2 : 1)) return section;
  }
  return undefined;
}
