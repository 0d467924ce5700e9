/**
 * One changed line of a change view, rendered against the line it replaced (or was replaced by):
 * every changed stretch with a little shared text around it, the shared runs between them counted
 * (`<N same characters>`), within a budget of characters; what does not fit is said in the line
 * (`<N more characters not shown>`, `<N more changed stretches not shown>`) and counted for the
 * view's "Not shown here" line. A schema leaf's `path: ` is always shown whole. Pure.
 *
 * Source: SPEC §2.2 ("saying what changed"), §3.4 (a line diff, whitespace runs and invisible
 * characters made visible).
 * @module
 */

import { changedStretches } from "./changed-stretches.ts";
import { renderUntrustedWithin } from "./render.ts";

/** Shared characters shown on each side of a changed stretch. */
const CONTEXT = 20;
/** Shared runs shorter than this are shown, not counted (the count would be no shorter). */
const MIN_ELIDED = 24;
/** Characters shown from the end of a stretch cut in its middle. */
const TAIL_CHARS = 60;
/** A stretch that does not fit is shown in part only when this much of the budget is left. */
const MIN_PART = 40;

/** A rendered line, and how many of its changed stretches are not shown whole. */
export interface RenderedLine {
  readonly text: string;
  /** Changed stretches cut in the middle or left out (0: every change is on the line). */
  readonly notShown: number;
}

/**
 * Renders code points for a human: runs of three or more whitespace characters as `<N spaces>`
 * outside the quotes (a payload pushed aside by padding stays in view), everything else as a
 * quoted, escaped string (SPEC §3.4), never cut.
 * @param chars - Code points.
 * @returns e.g. `"Get a fact." <300 spaces> "Send it"`.
 */
function renderPlain(chars: readonly string[]): string {
  const text = chars.join("");
  if (text === "") return '""';
  return text
    .split(/(\s{3,})/u)
    .filter((piece) => piece !== "")
    .map((piece) => {
      if (!/^\s{3,}$/u.test(piece)) return renderUntrustedWithin(piece, Number.POSITIVE_INFINITY);
      const length = Array.from(piece).length;
      return /^ +$/.test(piece) ? `<${length} spaces>` : `<${length} whitespace characters>`;
    })
    .join(" ");
}

/** The units a budget counts: a run of 3+ whitespace characters is one (it renders as one marker). */
function units(chars: readonly string[]): string[][] {
  const out: string[][] = [];
  for (const piece of chars.join("").split(/(\s{3,})/u)) {
    if (piece === "") continue;
    if (/^\s{3,}$/u.test(piece)) out.push(Array.from(piece));
    else for (const char of piece) out.push([char]);
  }
  return out;
}

/**
 * A stretch rendered in at most `budget` units: whole, or its start and end with the count of the
 * characters between.
 * @param chars - The stretch's code points.
 * @param budget - Units shown at most.
 * @returns The rendering.
 */
function renderWithin(chars: readonly string[], budget: number): string {
  const list = units(chars);
  if (list.length <= budget) return renderPlain(chars);
  const tail = Math.min(TAIL_CHARS, Math.floor(budget / 2));
  const head = Math.max(1, budget - tail);
  const hidden = list.slice(head, list.length - tail).reduce((sum, unit) => sum + unit.length, 0);
  const start = renderPlain(list.slice(0, head).flat());
  const end = tail > 0 ? ` ${renderPlain(list.slice(-tail).flat())}` : "";
  return `${start} <${hidden} more characters not shown>${end}`;
}

/** A range of a line shown: `[start, end)` in code points, and the changed stretches in it. */
interface ShownRange {
  start: number;
  end: number;
  stretches: number;
}

/**
 * The ranges of the line shown: each changed stretch widened by {@link CONTEXT} shared characters,
 * ranges less than {@link MIN_ELIDED} apart merged (as are a range and a line end that close).
 */
function shownRanges(length: number, stretches: readonly { from: number; to: number }[]): ShownRange[] {
  const ranges: ShownRange[] = [];
  for (const { from, to } of stretches) {
    const start = from - CONTEXT < MIN_ELIDED ? 0 : from - CONTEXT;
    const end = length - to - CONTEXT < MIN_ELIDED ? length : to + CONTEXT;
    const last = ranges.at(-1);
    if (last !== undefined && start < last.end + MIN_ELIDED) {
      last.end = Math.max(last.end, end);
      last.stretches += 1;
    } else ranges.push({ start, end, stretches: 1 });
  }
  return ranges;
}

/**
 * Renders one changed line: against its partner, every changed stretch with {@link CONTEXT} shared
 * characters each side and the longer shared runs counted; without one (or equal to it), the whole
 * line. At most `budget` characters of the line are shown (a whitespace run counts as one); a
 * stretch that does not fit is cut in its middle or left out, and the line says so.
 *
 * Source: SPEC §2.2, §3.4.
 * @param text - The line (untrusted).
 * @param options - `partner`: the line on the other side; `head`: code points at the start always
 *   shown and not counted (a schema leaf's `path: `); `budget`: characters shown at most.
 * @returns The rendering and how many stretches are not shown whole.
 * @throws Never.
 */
export function renderChangedLine(
  text: string,
  options: { readonly partner?: string; readonly head?: number; readonly budget: number },
): RenderedLine {
  const chars = Array.from(text);
  const head = Math.min(options.head ?? 0, chars.length);
  const found = options.partner === undefined ? [] : changedStretches(chars, Array.from(options.partner));
  const stretches = found.length === 0 ? [{ from: head, to: chars.length }] : found;
  const ranges = shownRanges(chars.length, stretches);
  const parts: string[] = [];
  let at = 0;
  // The head (a leaf's path) is always shown, whole: in the first range, or before it.
  const first = ranges[0];
  if (head > 0 && first !== undefined) {
    if (first.start < head + MIN_ELIDED) first.start = 0;
    else {
      parts.push(renderPlain(chars.slice(0, head)));
      at = head;
    }
  }
  let left = options.budget;
  for (const [index, { start, end }] of ranges.entries()) {
    if (start > at) parts.push(`<${start - at} same characters>`);
    const own = Math.max(start, Math.min(head, end));
    const body = chars.slice(own, end);
    const cost = units(body).length;
    const rest = ranges.slice(index).reduce((sum, range) => sum + range.stretches, 0);
    const after = rest - (ranges[index]?.stretches ?? 0);
    if (cost > left && index > 0 && left < MIN_PART) {
      parts.push(`<${rest} more changed ${rest === 1 ? "stretch" : "stretches"} not shown>`);
      return { text: parts.join(" "), notShown: rest };
    }
    if (cost <= left) {
      parts.push(renderPlain(chars.slice(start, end)));
      left -= cost;
      at = end;
      continue;
    }
    // Cut in its middle; the stretches after it are left out.
    if (own > start) parts.push(renderPlain(chars.slice(start, own)));
    parts.push(renderWithin(body, Math.max(left, MIN_PART)));
    if (after > 0) parts.push(`<${after} more changed ${after === 1 ? "stretch" : "stretches"} not shown>`);
    return { text: parts.join(" "), notShown: rest };
  }
  if (at < chars.length) parts.push(`<${chars.length - at} same characters>`);
  return { text: parts.join(" "), notShown: 0 };
}
