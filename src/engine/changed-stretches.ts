/**
 * Where two versions of one line differ: the changed stretches of a line against the line it
 * replaced (or was replaced by), as ranges of code points, found by a shortest-edit-script diff
 * (Myers) with bounded work, so that a change view can show every changed stretch of a long line
 * and elide only what is the same. Pure.
 *
 * Source: SPEC §2.2 ("saying what changed"), §3.4 ("a changed description as a line diff").
 * @module
 */

/**
 * One changed stretch: `[from, to)` in the line, `[partnerFrom, partnerTo)` in its counterpart
 * (code point indexes). One side may be empty: text only inserted, or only deleted.
 */
export interface ChangedStretch {
  readonly from: number;
  readonly to: number;
  readonly partnerFrom: number;
  readonly partnerTo: number;
}

/**
 * Steps the diff takes at most before it gives up (a hostile upstream's two long unrelated lines):
 * past it, everything between the shared start and end counts as one changed stretch — more shown
 * as changed, never less.
 */
const MAX_WORK = 1_000_000;

/**
 * The changed stretches of `text` against `partner`, in order: the shared start and end are trimmed,
 * then a shortest edit script of code points (Myers) is found between them; adjacent edits form one
 * stretch. When that takes more than {@link MAX_WORK} steps, the whole middle is one stretch.
 *
 * Source: SPEC §2.2, §3.4.
 * @param text - The line, as code points (`Array.from`).
 * @param partner - The other version, as code points.
 * @returns The stretches, empty when the two are equal.
 * @example changedStretches([..."a city"], [..."a City"]) // [{ from: 2, to: 3, partnerFrom: 2, partnerTo: 3 }]
 */
export function changedStretches(text: readonly string[], partner: readonly string[]): ChangedStretch[] {
  let start = 0;
  while (start < text.length && start < partner.length && text[start] === partner[start]) start += 1;
  let end = text.length;
  let partnerEnd = partner.length;
  while (end > start && partnerEnd > start && text[end - 1] === partner[partnerEnd - 1]) {
    end -= 1;
    partnerEnd -= 1;
  }
  if (end === start && partnerEnd === start) return [];
  const a = text.slice(start, end);
  const b = partner.slice(start, partnerEnd);
  const whole: ChangedStretch = { from: 0, to: a.length, partnerFrom: 0, partnerTo: b.length };
  const found = a.length === 0 || b.length === 0 ? [whole] : (shortestEdits(a, b) ?? [whole]);
  return found.map((s) => ({
    from: s.from + start,
    to: s.to + start,
    partnerFrom: s.partnerFrom + start,
    partnerTo: s.partnerTo + start,
  }));
}

/**
 * Myers' O((N+M)·D) greedy diff, keeping each step's frontier (its `[-d, d]` diagonals) to walk the
 * path back; adjacent single edits are merged into stretches.
 * @param a - One side (not empty).
 * @param b - The other (not empty).
 * @returns The stretches, or undefined past {@link MAX_WORK} steps.
 */
function shortestEdits(a: readonly string[], b: readonly string[]): ChangedStretch[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let work = 0;
  let last = -1;
  for (let d = 0; d <= max && last < 0; d += 1) {
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
        work += 1;
      }
      v[offset + k] = x;
      work += 1;
      if (x >= n && y >= m) last = d;
    }
    trace.push(v.slice(offset - d, offset + d + 1));
    if (work > MAX_WORK) return undefined;
  }
  // Walk back from (n, m): each step of d came from a diagonal of d - 1 by one edit, then a snake.
  const edits: ChangedStretch[] = [];
  let x = n;
  let y = m;
  for (let d = last; d > 0; d -= 1) {
    const before = trace[d - 1]!;
    const at = (k: number): number => before[k + d - 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const fromK = down ? k + 1 : k - 1;
    const fromX = at(fromK);
    const fromY = fromX - fromK;
    edits.push(
      down
        ? { from: fromX, to: fromX, partnerFrom: fromY, partnerTo: fromY + 1 }
        : { from: fromX, to: fromX + 1, partnerFrom: fromY, partnerTo: fromY },
    );
    x = fromX;
    y = fromY;
  }
  const stretches: ChangedStretch[] = [];
  for (const edit of edits.reverse()) {
    const previous = stretches.at(-1);
    if (previous !== undefined && previous.to === edit.from && previous.partnerTo === edit.partnerFrom) {
      stretches[stretches.length - 1] = { ...previous, to: edit.to, partnerTo: edit.partnerTo };
    } else stretches.push(edit);
  }
  return stretches;
}
