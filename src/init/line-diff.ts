/**
 * The unified diff `bouncer init` prints, in time close to linear in the file for the edits `init`
 * makes (a few lines changed in each of many entries). The `diff` library's line diff (Myers) costs
 * the file's length times the number of changed lines: for a config of 2,000 servers, each of them
 * rewritten, that was minutes. Here lines found exactly once in both texts are matched first, in
 * order (the longest increasing run of them, as patience diff does); the gaps between two matched
 * lines are small and are compared the same way, or by the library's `diffArrays` when they hold no
 * such line. The hunks (3 lines of context, neighbours merged) are printed by the library's
 * `formatPatch`, so the text reads as `createTwoFilesPatch` would print it. Pure.
 *
 * Source: SPEC §5.2 ("A unified diff is shown"); issue "planning time grows quadratically".
 * @module
 */

import { diffArrays, formatPatch, type StructuredPatchHunk } from "diff";

/** A run of lines the same in both texts, or only in the old one, or only in the new one. */
interface LineRun {
  readonly kind: "same" | "removed" | "added";
  /** Grown in place while the runs are built (copying would make a long run quadratic). */
  readonly lines: string[];
}

/** How deep gaps are split at their own unique lines before the library compares what is left. */
const MAX_DEPTH = 8;

/**
 * A unified diff of two texts, headers `--- file` and `+++ file`, no index line.
 *
 * Source: SPEC §5.2.
 * @param file - The name shown in both headers.
 * @param texts - The old and the new text.
 * @param context - Unchanged lines shown around each change (default 3).
 * @returns The diff text (only the two header lines when the texts are equal).
 * @example unifiedDiff("a.json", { before: "a\nb\n", after: "a\nc\n" })
 * // "--- a.json\n+++ a.json\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
 */
export function unifiedDiff(
  file: string,
  texts: { readonly before: string; readonly after: string },
  context = 3,
): string {
  const runs = diffLines(splitLines(texts.before), splitLines(texts.after), 0);
  return formatPatch(
    {
      oldFileName: file,
      newFileName: file,
      oldHeader: undefined,
      newHeader: undefined,
      hunks: toHunks(runs, context),
    },
    { includeIndex: false, includeUnderline: false, includeFileHeaders: true },
  );
}

/**
 * A text's lines, each with its line feed (the last one without, when the text does not end in one).
 * @param text - A text.
 * @returns The lines (none for an empty text).
 */
function splitLines(text: string): string[] {
  return text === "" ? [] : text.split(/(?<=\n)/);
}

/**
 * The runs that turn `a` into `b`: common ends trimmed, then lines unique to both as anchors, the
 * gaps between them compared in turn.
 * @param a - Old lines.
 * @param b - New lines.
 * @param depth - How many times this gap was split already.
 * @returns The runs, in order.
 */
function diffLines(a: readonly string[], b: readonly string[], depth: number): LineRun[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const runs: LineRun[] = [];
  push(runs, "same", a.slice(0, head));
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const anchors = depth < MAX_DEPTH ? uniqueAnchors(midA, midB) : [];
  if (midA.length === 0 || midB.length === 0) {
    push(runs, "removed", midA);
    push(runs, "added", midB);
  } else if (anchors.length === 0) {
    for (const change of diffArrays([...midA], [...midB])) {
      push(runs, change.removed ? "removed" : change.added ? "added" : "same", change.value);
    }
  } else {
    let [atA, atB] = [0, 0];
    for (const [i, j] of anchors) {
      for (const run of diffLines(midA.slice(atA, i), midB.slice(atB, j), depth + 1))
        push(runs, run.kind, run.lines);
      push(runs, "same", [midA[i] ?? ""]);
      [atA, atB] = [i + 1, j + 1];
    }
    for (const run of diffLines(midA.slice(atA), midB.slice(atB), depth + 1)) push(runs, run.kind, run.lines);
  }
  push(runs, "same", a.slice(a.length - tail));
  return runs;
}

/**
 * Appends lines to the runs, joining them to the last run when it is of the same kind.
 * @param runs - The runs so far.
 * @param kind - What the lines are.
 * @param lines - The lines (nothing is added for none).
 */
function push(runs: LineRun[], kind: LineRun["kind"], lines: readonly string[]): void {
  if (lines.length === 0) return;
  const last = runs.at(-1);
  if (last?.kind !== kind) runs.push({ kind, lines: [...lines] });
  else for (const line of lines) last.lines.push(line);
}

/**
 * The pairs (index in `a`, index in `b`) of lines that occur exactly once in each, keeping the
 * longest chain increasing in both (patience sorting, n log n).
 * @param a - Old lines.
 * @param b - New lines.
 * @returns The pairs, in order.
 */
function uniqueAnchors(a: readonly string[], b: readonly string[]): [number, number][] {
  const counts = new Map<string, { inA: number; inB: number; at: number }>();
  a.forEach((line, i) => {
    const seen = counts.get(line);
    if (seen === undefined) counts.set(line, { inA: 1, inB: 0, at: i });
    else seen.inA++;
  });
  const pairs: [number, number][] = [];
  const atB = new Map<string, number>();
  b.forEach((line, j) => {
    const seen = counts.get(line);
    if (seen === undefined) return;
    seen.inB++;
    atB.set(line, j);
  });
  for (const [line, seen] of counts) {
    const j = atB.get(line);
    if (seen.inA === 1 && seen.inB === 1 && j !== undefined) pairs.push([seen.at, j]);
  }
  pairs.sort((x, y) => x[0] - y[0]);
  return longestIncreasing(pairs);
}

/**
 * The longest chain of pairs whose second members increase (the first ones already do).
 * @param pairs - Pairs sorted by their first member.
 * @returns The chain, in order.
 */
function longestIncreasing(pairs: readonly [number, number][]): [number, number][] {
  const tails: number[] = []; // index into pairs of the smallest tail of a chain of each length
  const previous: number[] = new Array(pairs.length).fill(-1);
  pairs.forEach(([, j], k) => {
    let [low, high] = [0, tails.length];
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((pairs[tails[mid] ?? 0]?.[1] ?? 0) < j) low = mid + 1;
      else high = mid;
    }
    if (low > 0) previous[k] = tails[low - 1] ?? -1;
    tails[low] = k;
  });
  const chain: [number, number][] = [];
  for (let k = tails.at(-1) ?? -1; k >= 0; k = previous[k] ?? -1) {
    const pair = pairs[k];
    if (pair !== undefined) chain.push(pair);
  }
  return chain.reverse();
}

/**
 * Groups the runs into hunks: each change with up to `context` unchanged lines around it, two
 * changes at most `2 × context` unchanged lines apart in one hunk. A line without a final line feed
 * is followed by `\ No newline at end of file`.
 * @param runs - The runs.
 * @param context - Unchanged lines around a change.
 * @returns The hunks, in `formatPatch`'s shape.
 */
function toHunks(runs: readonly LineRun[], context: number): StructuredPatchHunk[] {
  const lines = runs.flatMap((run) => run.lines.map((text) => ({ kind: run.kind, text })));
  const changed = lines.flatMap((line, i) => (line.kind === "same" ? [] : [i]));
  const hunks: StructuredPatchHunk[] = [];
  // Old and new line numbers before each line, counted as the walk goes.
  let [oldBefore, newBefore, cursor] = [0, 0, 0];
  const advanceTo = (index: number): void => {
    for (; cursor < index; cursor++) {
      const kind = lines[cursor]?.kind;
      if (kind !== "added") oldBefore++;
      if (kind !== "removed") newBefore++;
    }
  };
  for (let k = 0; k < changed.length; ) {
    let last = k;
    while (last + 1 < changed.length && (changed[last + 1] ?? 0) - (changed[last] ?? 0) - 1 <= 2 * context)
      last++;
    const start = Math.max(0, (changed[k] ?? 0) - context);
    const end = Math.min(lines.length, (changed[last] ?? 0) + context + 1);
    advanceTo(start);
    const hunk: StructuredPatchHunk = {
      oldStart: oldBefore + 1,
      oldLines: 0,
      newStart: newBefore + 1,
      newLines: 0,
      lines: [],
    };
    for (const line of lines.slice(start, end)) {
      if (line.kind !== "added") hunk.oldLines++;
      if (line.kind !== "removed") hunk.newLines++;
      const mark = line.kind === "same" ? " " : line.kind === "removed" ? "-" : "+";
      if (line.text.endsWith("\n")) hunk.lines.push(`${mark}${line.text.slice(0, -1)}`);
      else hunk.lines.push(`${mark}${line.text}`, "\\ No newline at end of file");
    }
    hunks.push(hunk);
    k = last + 1;
  }
  return hunks;
}
