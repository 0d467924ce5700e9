/**
 * A call's arguments as a question shows them (SPEC §2.4 `action: ask`, §4.2 `unclassified: ask`):
 * one leaf a line, a long string over several lines, and whatever is left out counted — where it is
 * left out, and in a first line that says that accepting approves it all the same. Pure.
 * @module
 */

import { type JsonLeaf, jsonLeaves } from "./json-leaves.ts";
import { renderUntrustedWithin } from "./render.ts";
import { renderName } from "./sink-messages.ts";
import type { JsonValue } from "./types.ts";

/** Values listed at most in one question; beyond, each argument gets its share and the rest are counted. */
const MAX_ARGUMENT_LINES = 120;
/** Code points of a string shown on one line. */
const LINE = 200;
/** Code points of a cut string's end, shown after the count of those left out. */
const TAIL = 60;
/** Lines one long string is shown on at most (1,000 code points, and its end). */
const LONG_LINES = 5;
/** Lines beyond the first of each value, for all the values of one question. */
const EXTRA_LINES = 20;

/** What a question shows of the arguments, and how much it leaves out. */
interface Shown {
  readonly lines: string[];
  /** Values not listed at all. */
  hiddenValues: number;
  /** Characters (code points) left out of the middle of long strings, and of how many strings. */
  hiddenChars: number;
  cutStrings: number;
  /** Lines beyond the first of each value still to give. */
  extraLeft: number;
}

/** Code points, as a string: rendered whole (`renderUntrusted` with no cut). */
function quoted(chars: readonly string[]): string {
  return renderUntrustedWithin(chars.join(""), chars.length);
}

/**
 * One string leaf: on its own line when it fits; otherwise on up to {@link LONG_LINES} lines of
 * {@link LINE} code points (as the question's budget of lines allows), and when even these cannot
 * hold it, the count of the code points left out (`<452 more characters not shown>`) and its end.
 */
function stringLines(head: string, value: string, shown: Shown): void {
  const chars = [...value];
  const allowed = Math.min(LONG_LINES, 1 + shown.extraLeft);
  const pieces: string[] = [];
  if (chars.length <= allowed * LINE + TAIL) {
    // Whole: full lines, the last one holding the rest (up to LINE + TAIL code points).
    let at = 0;
    while (chars.length - at > LINE + TAIL && pieces.length < allowed - 1) {
      pieces.push(quoted(chars.slice(at, at + LINE)));
      at += LINE;
    }
    pieces.push(quoted(chars.slice(at)));
  } else {
    for (let line = 0; line < allowed; line += 1)
      pieces.push(quoted(chars.slice(line * LINE, (line + 1) * LINE)));
    const hidden = chars.length - allowed * LINE - TAIL;
    pieces[pieces.length - 1] += ` <${hidden} more characters not shown> ${quoted(chars.slice(-TAIL))}`;
    shown.hiddenChars += hidden;
    shown.cutStrings += 1;
  }
  shown.extraLeft -= pieces.length - 1;
  // A string longer than a line says its length, so its lines read as one value.
  const label = chars.length > LINE ? `${head} (${chars.length} characters)` : head;
  shown.lines.push(`\n  ${label}: ${pieces[0]}`, ...pieces.slice(1).map((piece) => `\n    ${piece}`));
}

/** One leaf: a string as an untrusted string; a number, boolean, null or empty list or object as its JSON. */
function leafLines({ path, value }: JsonLeaf, shown: Shown): void {
  const head = renderName(path);
  if (typeof value === "string") stringLines(head, value, shown);
  else shown.lines.push(`\n  ${head}: ${JSON.stringify(value)}`);
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The first line when anything is left out: how much, and that accepting approves it too. */
function summary(shown: Shown): string {
  const parts: string[] = [];
  if (shown.hiddenValues > 0) parts.push(plural(shown.hiddenValues, "more value", "more values"));
  if (shown.hiddenChars > 0) {
    parts.push(
      `${plural(shown.hiddenChars, "more character", "more characters")} (inside ${plural(shown.cutStrings, "value", "values")}, where marked)`,
    );
  }
  return `\n  Not shown here: ${parts.join(" and ")}. Accepting approves the call with all its arguments, the parts not shown included.`;
}

/**
 * The arguments of a call for a question, one line per leaf (`options.target: "production"`), so no
 * argument, nested or not, hides behind a long one. A string longer than 200 characters says its
 * length (`script (652 characters): …`) and is shown on up to 5 lines of 200 (20 such lines in all per question); one longer still shows its first lines,
 * then how many characters are left out (`<452 more characters not shown>`, as pin diffs count them)
 * and its last 60. Up to 120 values are all listed; beyond, every top-level argument gets an equal
 * share (at least one line). When anything is left out, a first line — where a reader sees it before
 * deciding — says how much, and that accepting approves the call with all of it.
 *
 * Source: SPEC §2.4 (`action: ask`), §3.4 ("Rendering untrusted strings"); review of the asks
 * (a `curl … | sh` in the hidden middle of a long script was forwarded on accept).
 * @param args - The call's arguments.
 * @returns The lines, each starting with a line feed and two spaces (`\n  repo: "x"`); a long
 *   string's further lines with four.
 * @example argumentLines({ repo: "x", n: 5 }) // => '\n  repo: "x"\n  n: 5'
 */
export function argumentLines(args: Readonly<Record<string, JsonValue>>): string {
  const keys = Object.keys(args);
  if (keys.length === 0) return "\n  (no arguments)";
  const shown: Shown = { lines: [], hiddenValues: 0, hiddenChars: 0, cutStrings: 0, extraLeft: EXTRA_LINES };
  const all = jsonLeaves(args as JsonValue, MAX_ARGUMENT_LINES);
  if (all.more === 0) {
    for (const leaf of all.leaves) leafLines(leaf, shown);
  } else {
    const share = Math.max(1, Math.floor(MAX_ARGUMENT_LINES / keys.length));
    for (const key of keys) {
      const { leaves, more } = jsonLeaves({ [key]: args[key] as JsonValue }, share);
      for (const leaf of leaves) leafLines(leaf, shown);
      shown.hiddenValues += more;
    }
  }
  const lines = shown.lines.join("");
  return shown.hiddenValues + shown.hiddenChars > 0 ? `${summary(shown)}${lines}` : lines;
}
