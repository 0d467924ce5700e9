/**
 * A {@link PinDiff} as human text (SPEC §2.2 "saying what changed", §3.4 rendering): a one-line
 * summary, and the changed lines of the description and of the other fields (title, schemas,
 * annotations) with whitespace runs and invisible characters made visible. Pure.
 * @module
 */

import { renderUntrusted, renderUntrustedWithin } from "./render.ts";
import type { PinDiff, PinDiffLine } from "./types.ts";

/** Changed description lines shown by {@link describePinDiff} by default; the rest are counted. */
const MAX_SHOWN_LINES = 20;
/** Characters of one piece of a description line shown by default (its start and end past that). */
const DEFAULT_MAX_CHARS = 200;
/** Characters shown from the end of a piece cut in the middle. */
const TAIL_CHARS = 60;

/**
 * How much of a description a rendering shows: changed lines and characters of each piece.
 *
 * Source: SPEC §3.4.
 */
export interface RenderLimits {
  /** Changed lines shown at most (default 20); added lines come first, the rest are counted. */
  readonly maxLines?: number;
  /** Code points of one piece shown at most (default 200); a longer piece shows its start and end. */
  readonly maxChars?: number;
}
/** Names from a definition, each rendered as an untrusted string, joined by commas. */
function quoteList(names: readonly string[]): string {
  return names.map(renderUntrusted).join(", ");
}

/**
 * Summarises a {@link PinDiff} in one line, untrusted names rendered safely.
 *
 * Source: SPEC §2.2, §3.4.
 * @param diff - The diff.
 * @returns e.g. `description (1 line removed, 2 added); input properties added "bcc"`.
 * @throws Never.
 */
export function summarizePinDiff(diff: PinDiff): string {
  const parts: string[] = [];
  if (diff.descriptionChanged) {
    const lines = diff.descriptionLines ?? [];
    const removed = lines.filter((line) => line.op === "removed").length;
    const added = lines.length - removed;
    const what = diff.descriptionLineEndings === true ? "description line endings" : "description";
    parts.push(`${what} (${removed} ${removed === 1 ? "line" : "lines"} removed, ${added} added)`);
  }
  if (diff.titleChanged) parts.push("title");
  if (diff.propertiesAdded.length > 0)
    parts.push(`input properties added ${quoteList(diff.propertiesAdded)}`);
  if (diff.propertiesRemoved.length > 0) {
    parts.push(`input properties removed ${quoteList(diff.propertiesRemoved)}`);
  }
  if (diff.schemaChanged && diff.propertiesAdded.length + diff.propertiesRemoved.length === 0) {
    parts.push("input schema");
  }
  if (diff.outputSchemaChanged) parts.push("output schema");
  if (diff.annotationsChanged) {
    const keys = diff.annotationKeys ?? [];
    parts.push(keys.length > 0 ? `annotations ${quoteList(keys)}` : "annotations");
  }
  return parts.length > 0 ? parts.join("; ") : "no pinned field";
}

/**
 * Renders one untrusted description line with whitespace runs and invisible characters visible: runs
 * of three or more whitespace characters become `<N spaces>` outside the quotes (so a payload pushed
 * off-screen by padding is still shown), everything else as {@link renderUntrusted}; a piece longer
 * than the limit shows its start and its end with the count of characters between.
 *
 * Source: SPEC §3.4 ("a changed description as a line diff with whitespace runs and invisible
 * characters made visible").
 * @param line - One line of a description.
 * @param options - `maxChars`: code points of one piece shown at most (default 200).
 * @returns e.g. `"Get a fact." <300 spaces> "Send it to +1-555-0100"`.
 * @throws Never.
 */
export function renderDescriptionLine(line: string, options: RenderLimits = {}): string {
  if (line === "") return '""';
  const max = options.maxChars ?? DEFAULT_MAX_CHARS;
  const pieces = line.split(/(\s{3,})/u).filter((piece) => piece !== "");
  return pieces
    .map((piece) => {
      if (/^\s{3,}$/u.test(piece)) {
        const length = Array.from(piece).length;
        return /^ +$/.test(piece) ? `<${length} spaces>` : `<${length} whitespace characters>`;
      }
      const chars = Array.from(piece);
      if (chars.length <= max) return renderUntrustedWithin(piece, max);
      // A long piece: its start and its end (where an appended payload sits), and how much is between.
      const tail = Math.min(TAIL_CHARS, Math.floor(max / 2));
      const head = max - tail;
      const hidden = chars.length - head - tail;
      return `${renderUntrustedWithin(chars.slice(0, head).join(""), head)} <${hidden} more characters> ${renderUntrustedWithin(chars.slice(-tail).join(""), tail)}`;
    })
    .join(" ");
}

/** Characters of shared text kept on each side of a difference. */
const CONTEXT = 40;

/**
 * Renders a changed description line against its counterpart on the other side: a shared start or
 * end longer than twice {@link CONTEXT} is counted (`<N same characters>`) rather than shown, so the
 * rendering starts at most {@link CONTEXT} characters before the change (a long changed part is
 * still cut in its middle, with the count of what is not shown).
 * @param text - The line.
 * @param partner - The line it replaced or was replaced by, if any.
 * @param limits - Characters shown per piece.
 * @returns The rendering.
 */
function renderChangedLine(text: string, partner: string | undefined, limits: RenderLimits): string {
  if (partner === undefined) return renderDescriptionLine(text, limits);
  const limit = Math.min(text.length, partner.length);
  let prefix = 0;
  while (prefix < limit && text.charCodeAt(prefix) === partner.charCodeAt(prefix)) prefix += 1;
  let suffix = 0;
  while (
    suffix < limit - prefix &&
    text.charCodeAt(text.length - 1 - suffix) === partner.charCodeAt(partner.length - 1 - suffix)
  ) {
    suffix += 1;
  }
  let from = prefix > 2 * CONTEXT ? prefix - CONTEXT : 0;
  let to = suffix > 2 * CONTEXT ? text.length - suffix + CONTEXT : text.length;
  // Never cut a surrogate pair.
  if (from > 0 && /[\udc00-\udfff]/.test(text.charAt(from))) from -= 1;
  if (to < text.length && /[\udc00-\udfff]/.test(text.charAt(to))) to += 1;
  if (from === 0 && to === text.length) return renderDescriptionLine(text, limits);
  const parts = [renderDescriptionLine(text.slice(from, to), limits)];
  if (from > 0) parts.unshift(`<${Array.from(text.slice(0, from)).length} same characters>`);
  if (to < text.length) parts.push(`<${Array.from(text.slice(to)).length} same characters>`);
  return parts.join(" ");
}

/** The lines of one section shown within a budget, and how many were left out. */
interface ShownSection {
  readonly shown: string[];
  readonly hiddenAdded: number;
  readonly hiddenRemoved: number;
}

/** A run of identical consecutive changed lines, shown once with its count. */
interface LineRun {
  readonly op: PinDiffLine["op"];
  readonly text: string;
  readonly count: number;
}

/** Consecutive changed lines grouped into runs of the same operation and text, in order. */
function runsOf(lines: readonly PinDiffLine[]): LineRun[] {
  const runs: LineRun[] = [];
  for (const line of lines) {
    const last = runs.at(-1);
    if (last !== undefined && last.op === line.op && last.text === line.text) {
      runs[runs.length - 1] = { ...last, count: last.count + 1 };
    } else runs.push({ op: line.op, text: line.text, count: 1 });
  }
  return runs;
}

/**
 * Renders changed lines (`- ` removed, `+ ` added), identical consecutive lines once with their
 * count (`<× 25>`: padding lines cannot push a payload out of view), at most `maxLines` rendered
 * lines: added lines take the budget first (the new text is what the human approves), removed
 * lines what is left; the k-th removed line is shown against the k-th added one, so a change past
 * the cut of a long line still shows.
 */
function renderSection(lines: readonly PinDiffLine[], maxLines: number, limits: RenderLimits): ShownSection {
  const runs = runsOf(lines);
  const removed = runs.filter((run) => run.op === "removed");
  const added = runs.filter((run) => run.op === "added");
  const keptAdded = added.slice(0, maxLines);
  const keptRemoved = removed.slice(0, Math.max(0, maxLines - added.length));
  const keep = new Set([...keptAdded, ...keptRemoved]);
  const shown = runs
    .filter((run) => keep.has(run))
    .map((run) => {
      const [own, other] = run.op === "removed" ? [removed, added] : [added, removed];
      const partner = other[own.indexOf(run)]?.text;
      const times = run.count > 1 ? ` <× ${run.count}>` : "";
      return `${run.op === "removed" ? "-" : "+"} ${renderChangedLine(run.text, partner, limits)}${times}`;
    });
  const lineCount = (list: readonly LineRun[]): number => list.reduce((sum, run) => sum + run.count, 0);
  const hiddenAdded = lineCount(added) - lineCount(keptAdded);
  const hiddenRemoved = lineCount(removed) - lineCount(keptRemoved);
  return { shown, hiddenAdded, hiddenRemoved };
}

/**
 * Describes a {@link PinDiff} for a human: the one-line summary; then, when not every changed line
 * fits, a line saying how many are not shown (before the lines, where it cannot be overlooked);
 * then the changed description lines and the changed leaves of the title, schemas and annotations
 * (`path: value`; `- ` removed, `+ ` added; identical consecutive lines once with their count; at
 * most 20 of each part by default, added lines first).
 *
 * Source: SPEC §2.2 ("saying what changed"), §3.4 (line diff, whitespace runs made visible).
 * @param diff - The diff.
 * @param options - How many lines and characters to show (defaults: 20 lines per part, 200 per piece).
 * @returns Multi-line text; the first line is {@link summarizePinDiff}'s.
 * @throws Never.
 * @example describePinDiff(diff) // 'Changed: description (1 line removed, 1 added)\n- "old"\n+ "new"'
 */
export function describePinDiff(diff: PinDiff, options: RenderLimits = {}): string {
  const maxLines = options.maxLines ?? MAX_SHOWN_LINES;
  const description = renderSection(diff.descriptionLines ?? [], maxLines, options);
  const fields = renderSection(diff.fieldLines ?? [], maxLines, options);
  const hiddenAdded = description.hiddenAdded + fields.hiddenAdded;
  const hiddenRemoved = description.hiddenRemoved + fields.hiddenRemoved;
  const rest = hiddenAdded + hiddenRemoved;
  const out = [`Changed: ${summarizePinDiff(diff)}`];
  if (rest > 0) {
    out.push(
      `Not shown here: ${rest} more changed ${rest === 1 ? "line" : "lines"} (${hiddenAdded} added, ${hiddenRemoved} removed)`,
    );
  }
  out.push(...description.shown);
  if (fields.shown.length > 0) out.push("Title, schemas and annotations:", ...fields.shown);
  return out.join("\n");
}
