/**
 * A {@link PinDiff} as human text (SPEC §2.2 "saying what changed", §3.4 rendering): a one-line
 * summary, and the changed lines of the description and of the other fields (title, schemas,
 * annotations) with whitespace runs and invisible characters made visible. Pure.
 * @module
 */

import { renderChangedLine } from "./changed-line.ts";
import { renderUntrusted } from "./render.ts";
import type { PinDiff, PinDiffLine } from "./types.ts";

/** Changed description lines shown by {@link describePinDiff} by default; the rest are counted. */
const MAX_SHOWN_LINES = 20;
/** Characters of one changed line shown by default (see {@link RenderLimits}). */
const DEFAULT_MAX_CHARS = 200;

/**
 * How much of a change a rendering shows: changed lines, and characters of each changed line.
 *
 * Source: SPEC §3.4.
 */
export interface RenderLimits {
  /** Changed lines shown at most (default 20); added lines come first, the rest are counted. */
  readonly maxLines?: number;
  /**
   * Code points of one changed line shown at most (default 200; a whitespace run counts as one):
   * its changed stretches with a little shared text each; one that does not fit is cut or left out,
   * and counted.
   */
  readonly maxChars?: number;
  /**
   * The command that shows everything (`bouncer pins list --full SERVER`), named in the "Not shown
   * here" line when something is not shown.
   */
  readonly seeAll?: string;
}
/** Names from a definition, each rendered as an untrusted string, joined by commas. */
function quoteList(names: readonly string[]): string {
  return names.map(renderUntrusted).join(", ");
}

/**
 * Summarises a {@link PinDiff} in one line, untrusted names rendered safely. With `unseen`, for text
 * that reaches the model (a deny's reason): the names the changed definition brings — properties
 * it adds, its annotation keys — are counted, never quoted, since that definition was not approved
 * and a name is any text the upstream chooses; the names of removed properties come from the
 * pinned definition and stay.
 *
 * Source: SPEC §2.2 (a changed definition never reaches the model unapproved), §3.4; review of the
 * proxy (an added property named as an instruction reached the model in the block text, unrecorded).
 * @param diff - The diff.
 * @param options - `unseen`: the summary is for the model, not for the person reviewing.
 * @returns e.g. `description (1 line removed, 2 added); input properties added "bcc"`, or with
 *   `unseen` `…; 1 input property added`.
 * @throws Never.
 */
export function summarizePinDiff(diff: PinDiff, options: { readonly unseen?: boolean } = {}): string {
  const unseen = options.unseen === true;
  const count = (items: readonly string[], one: string, many: string): string =>
    `${items.length} ${items.length === 1 ? one : many}`;
  const parts: string[] = [];
  if (diff.descriptionChanged) {
    const lines = diff.descriptionLines ?? [];
    const removed = lines.filter((line) => line.op === "removed").length;
    const added = lines.length - removed;
    const what = diff.descriptionLineEndings === true ? "description line endings" : "description";
    parts.push(`${what} (${removed} ${removed === 1 ? "line" : "lines"} removed, ${added} added)`);
  }
  if (diff.titleChanged) parts.push("title");
  if (diff.propertiesAdded.length > 0) {
    parts.push(
      unseen
        ? `${count(diff.propertiesAdded, "input property", "input properties")} added`
        : `input properties added ${quoteList(diff.propertiesAdded)}`,
    );
  }
  if (diff.propertiesRemoved.length > 0) {
    parts.push(`input properties removed ${quoteList(diff.propertiesRemoved)}`);
  }
  if (diff.schemaChanged && diff.propertiesAdded.length + diff.propertiesRemoved.length === 0) {
    parts.push("input schema");
  }
  if (diff.outputSchemaChanged) parts.push("output schema");
  if (diff.annotationsChanged) {
    const keys = diff.annotationKeys ?? [];
    parts.push(
      keys.length === 0
        ? "annotations"
        : unseen
          ? `annotations (${count(keys, "key", "keys")})`
          : `annotations ${quoteList(keys)}`,
    );
  }
  return parts.length > 0 ? parts.join("; ") : "no pinned field";
}

/** The lines of one section shown within a budget, and how much was left out. */
interface ShownSection {
  readonly shown: string[];
  readonly hiddenAdded: number;
  readonly hiddenRemoved: number;
  /** Changed stretches of the lines shown that are cut or left out. */
  readonly hiddenStretches: number;
}

/** A run of identical consecutive changed lines, shown once with its count. */
interface LineRun {
  readonly op: PinDiffLine["op"];
  readonly text: string;
  readonly path?: string;
  readonly count: number;
}

/** Consecutive changed lines grouped into runs of the same operation and text, in order. */
function runsOf(lines: readonly PinDiffLine[]): LineRun[] {
  const runs: LineRun[] = [];
  for (const line of lines) {
    const last = runs.at(-1);
    if (last !== undefined && last.op === line.op && last.text === line.text) {
      runs[runs.length - 1] = { ...last, count: last.count + 1 };
    } else runs.push({ ...line, count: 1 });
  }
  return runs;
}

/** The first run of each leaf path (a schema leaf is shown against the leaf of the same path). */
function byPath(runs: readonly LineRun[]): Map<string, LineRun> {
  const map = new Map<string, LineRun>();
  for (const run of runs) if (run.path !== undefined && !map.has(run.path)) map.set(run.path, run);
  return map;
}

/**
 * Renders changed lines (`- ` removed, `+ ` added), identical consecutive lines once with their
 * count (`<× 25>`: padding lines cannot push a payload out of view), at most `maxLines` rendered
 * lines: added lines take the budget first (the new text is what the human approves), removed
 * lines what is left. Each line shows its changed stretches against its partner — the k-th removed
 * line against the k-th added one, a schema leaf against the leaf of the same path — so a change
 * anywhere in a long line shows.
 */
function renderSection(
  lines: readonly PinDiffLine[],
  options: { readonly maxLines: number; readonly maxChars: number },
): ShownSection {
  const runs = runsOf(lines);
  const removed = runs.filter((run) => run.op === "removed");
  const added = runs.filter((run) => run.op === "added");
  const keptAdded = added.slice(0, options.maxLines);
  const keptRemoved = removed.slice(0, Math.max(0, options.maxLines - added.length));
  const keep = new Set([...keptAdded, ...keptRemoved]);
  const paths = { removed: byPath(removed), added: byPath(added) };
  let hiddenStretches = 0;
  const shown = runs
    .filter((run) => keep.has(run))
    .map((run) => {
      const [own, other] = run.op === "removed" ? [removed, added] : [added, removed];
      const partner =
        run.path === undefined
          ? other[own.indexOf(run)]?.text
          : paths[run.op === "removed" ? "added" : "removed"].get(run.path)?.text;
      const head = run.path === undefined ? 0 : Array.from(run.path).length + 2;
      const line = renderChangedLine(run.text, {
        ...(partner === undefined ? {} : { partner }),
        head,
        budget: options.maxChars,
      });
      hiddenStretches += line.notShown;
      const times = run.count > 1 ? ` <× ${run.count}>` : "";
      return `${run.op === "removed" ? "-" : "+"} ${line.text}${times}`;
    });
  const lineCount = (list: readonly LineRun[]): number => list.reduce((sum, run) => sum + run.count, 0);
  const hiddenAdded = lineCount(added) - lineCount(keptAdded);
  const hiddenRemoved = lineCount(removed) - lineCount(keptRemoved);
  return { shown, hiddenAdded, hiddenRemoved, hiddenStretches };
}

/**
 * Describes a {@link PinDiff} for a human: the one-line summary; then, when not every change fits
 * (changed lines past the limit, changed stretches of a long line cut or left out), a line saying
 * how much is not shown and the command that shows it all (before the lines, where it cannot be
 * overlooked); then the changed description lines and the changed leaves of the title, schemas and
 * annotations (`path: value`, the path always shown; `- ` removed, `+ ` added; each line's changed
 * stretches with a little shared text, longer shared runs counted; identical consecutive lines once
 * with their count; at most 20 of each part by default, added lines first).
 *
 * Source: SPEC §2.2 ("saying what changed"), §3.4 (line diff, whitespace runs made visible).
 * @param diff - The diff.
 * @param options - How many lines and characters to show (defaults: 20 lines per part, 200 per
 *   line) and the command that shows everything.
 * @returns Multi-line text; the first line is {@link summarizePinDiff}'s.
 * @throws Never.
 * @example describePinDiff(diff) // 'Changed: description (1 line removed, 1 added)\n- "old"\n+ "new"'
 */
export function describePinDiff(diff: PinDiff, options: RenderLimits = {}): string {
  const limits = {
    maxLines: options.maxLines ?? MAX_SHOWN_LINES,
    maxChars: options.maxChars ?? DEFAULT_MAX_CHARS,
  };
  const description = renderSection(diff.descriptionLines ?? [], limits);
  const fields = renderSection(diff.fieldLines ?? [], limits);
  const hiddenAdded = description.hiddenAdded + fields.hiddenAdded;
  const hiddenRemoved = description.hiddenRemoved + fields.hiddenRemoved;
  const rest = hiddenAdded + hiddenRemoved;
  const stretches = description.hiddenStretches + fields.hiddenStretches;
  const out = [`Changed: ${summarizePinDiff(diff)}`];
  const parts: string[] = [];
  if (rest > 0) {
    parts.push(
      `${rest} more changed ${rest === 1 ? "line" : "lines"} (${hiddenAdded} added, ${hiddenRemoved} removed)`,
    );
  }
  if (stretches > 0) {
    parts.push(
      `${stretches} changed ${stretches === 1 ? "stretch" : "stretches"} of long lines, in whole or in part`,
    );
  }
  if (parts.length > 0) {
    const see = options.seeAll === undefined ? "" : `; see all of it with: ${options.seeAll}`;
    out.push(`Not shown here: ${parts.join(" and ")}${see}`);
  }
  out.push(...description.shown);
  if (fields.shown.length > 0) out.push("Title, schemas and annotations:", ...fields.shown);
  return out.join("\n");
}
