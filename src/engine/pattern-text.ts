/**
 * An `arg_patterns` regex as the user wrote it: the text inside the `^(?:…)$` wrapper the policy
 * compiles it with, for deny reasons, warnings and `explain`. Pure.
 *
 * Source: SPEC §2.4 (patterns: anchored `^(?:…)$`, Unicode; the reason names the rule).
 * @module
 */

import { escapeControls } from "./render.ts";

/** Code points of a pattern shown at most in a reason or a warning. */
const MAX_SHOWN = 200;

/**
 * A compiled pattern's text without the `^(?:…)$` wrapper. `RegExp.source` escapes `/` (and line
 * terminators); the `/` escapes are undone, so the text is the pattern as written or an equivalent
 * one (`\n` for a written line feed).
 *
 * Source: SPEC §2.4.
 * @param regex - A pattern compiled by the policy (or any regex: one without the wrapper is shown whole).
 * @returns The pattern text, e.g. `a\.b` for the pattern written `a\.b`.
 * @example patternText(/^(?:a\.b)$/u) // => "a\\.b" (the five characters a \ . b)
 */
export function patternText(regex: RegExp): string {
  const source = regex.source;
  const inner = source.startsWith("^(?:") && source.endsWith(")$") ? source.slice(4, -2) : source;
  // A `\/` not itself escaped (after an even run of backslashes) is the `/` written.
  return inner.replace(/(?<!\\)((?:\\\\)*)\\\//gu, "$1/");
}

/**
 * A pattern for a reason or a warning: its {@link patternText} in double quotes, as written — a `\`
 * stays one `\` (not JSON's `\\`) — with control and invisible characters escaped and a text over
 * 200 code points cut (ending in `…`).
 *
 * Source: SPEC §2.4 ("the rule" in the reason), §3.4 (rendering for people).
 * @param regex - A compiled pattern.
 * @returns e.g. `"a\.b"`.
 * @example renderPattern(/^(?:share|unshare)$/u) // => "\"share|unshare\""
 */
export function renderPattern(regex: RegExp): string {
  const chars = [...patternText(regex)];
  const shown = chars.length > MAX_SHOWN ? `${chars.slice(0, MAX_SHOWN).join("")}…` : chars.join("");
  return `"${escapeControls(shown)}"`;
}
