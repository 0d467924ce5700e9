/**
 * What changed between a pinned and a current tool definition, as a value and as human text
 * (SPEC §2.2 "Changed tool", §3.4 rendering; STYLE #7). Pure.
 * @module
 */

import { canonicalJson } from "./canonical-json.ts";
import { renderUntrusted, renderUntrustedWithin } from "./render.ts";
import type { JsonObject, JsonValue, PinDiff, PinDiffLine, ToolDefinition } from "./types.ts";

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
/** Above this many cells the line diff falls back to "all removed, all added" (bounded work). */
const MAX_DIFF_CELLS = 250_000;

/** A definition's field as read from an upstream or a pin file: any JSON, whatever the type says. */
function objectOrUndefined(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

function propertyNames(value: JsonObject | undefined): string[] {
  const schema = objectOrUndefined(value);
  if (schema === undefined || !Object.hasOwn(schema, "properties")) return [];
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return [];
  return Object.keys(properties);
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function splitLines(text: unknown): string[] {
  if (text === undefined) return [];
  // A description that is not a string (a hostile upstream's) is compared as its JSON text.
  const value = typeof text === "string" ? text : canonicalJson(text as JsonValue);
  return value.split(/\r\n|\r|\n/);
}

/** Removed and added lines between two line lists: trims the common ends, then an LCS on the rest. */
function diffLines(before: readonly string[], after: readonly string[]): PinDiffLine[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start += 1;
  let endB = before.length;
  let endA = after.length;
  while (endB > start && endA > start && before[endB - 1] === after[endA - 1]) {
    endB -= 1;
    endA -= 1;
  }
  const b = before.slice(start, endB);
  const a = after.slice(start, endA);
  const removedAll = b.map((text): PinDiffLine => ({ op: "removed", text }));
  const addedAll = a.map((text): PinDiffLine => ({ op: "added", text }));
  if (b.length === 0 || a.length === 0 || (b.length + 1) * (a.length + 1) > MAX_DIFF_CELLS) {
    return [...removedAll, ...addedAll];
  }
  const width = a.length + 1;
  const lcs = new Uint32Array((b.length + 1) * width);
  for (let i = b.length - 1; i >= 0; i -= 1) {
    for (let j = a.length - 1; j >= 0; j -= 1) {
      lcs[i * width + j] =
        b[i] === a[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const out: PinDiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < b.length || j < a.length) {
    if (i < b.length && j < a.length && b[i] === a[j]) {
      i += 1;
      j += 1;
    } else if (j >= a.length || (i < b.length && lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
      out.push({ op: "removed", text: b[i]! });
      i += 1;
    } else {
      out.push({ op: "added", text: a[j]! });
      j += 1;
    }
  }
  return out;
}

function annotationKeys(beforeValue: JsonObject | undefined, afterValue: JsonObject | undefined): string[] {
  // Annotations that are not an object (a hostile upstream's) have no keys to name.
  const before = objectOrUndefined(beforeValue);
  const after = objectOrUndefined(afterValue);
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changed: string[] = [];
  for (const key of keys) {
    const b = before !== undefined && Object.hasOwn(before, key) ? before[key] : undefined;
    const a = after !== undefined && Object.hasOwn(after, key) ? after[key] : undefined;
    if (!same(b, a)) changed.push(key);
  }
  return changed.sort();
}

/**
 * Compares a pinned definition with the current one over the pinned fields.
 *
 * Source: SPEC §2.2 ("saying what changed (description lines, input properties added or removed,
 * annotations)"); STYLE #7.
 * @param pinned - The definition in the pin store.
 * @param current - The definition the upstream lists now.
 * @returns A {@link PinDiff}; all flags false and lists empty when the pinned fields are equal.
 * @throws RangeError when a schema nests too deeply for the call stack.
 * @example diffToolDefinitions(a, { ...a, description: "x" }).descriptionChanged // true
 */
export function diffToolDefinitions(pinned: ToolDefinition, current: ToolDefinition): PinDiff {
  const before = propertyNames(pinned.inputSchema);
  const after = propertyNames(current.inputSchema);
  const descriptionChanged = !same(pinned.description, current.description);
  const keys = annotationKeys(pinned.annotations, current.annotations);
  return {
    descriptionChanged,
    titleChanged: !same(pinned.title, current.title),
    propertiesAdded: after.filter((name) => !before.includes(name)).sort(),
    propertiesRemoved: before.filter((name) => !after.includes(name)).sort(),
    schemaChanged: !same(pinned.inputSchema, current.inputSchema),
    outputSchemaChanged: !same(pinned.outputSchema, current.outputSchema),
    annotationsChanged: keys.length > 0 || !same(pinned.annotations, current.annotations),
    descriptionLines: descriptionChanged
      ? diffLines(splitLines(pinned.description), splitLines(current.description))
      : [],
    annotationKeys: keys,
  };
}

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
    parts.push(`description (${removed} ${removed === 1 ? "line" : "lines"} removed, ${added} added)`);
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

/**
 * Describes a {@link PinDiff} for a human: the one-line summary, then the changed description lines
 * (`- ` removed, `+ ` added; at most 20 by default, added lines first, the rest counted as added and
 * removed).
 *
 * Source: SPEC §2.2, §3.4.
 * @param diff - The diff.
 * @param options - How many lines and characters to show (defaults: 20 lines, 200 per piece).
 * @returns Multi-line text; the first line is {@link summarizePinDiff}'s.
 * @throws Never.
 * @example describePinDiff(diff) // 'Changed: description (1 line removed, 1 added)\n- "old"\n+ "new"'
 */
export function describePinDiff(diff: PinDiff, options: RenderLimits = {}): string {
  const lines = diff.descriptionLines ?? [];
  const maxLines = options.maxLines ?? MAX_SHOWN_LINES;
  // The k-th removed line is shown against the k-th added one: where they share a long start or end,
  // only the part that differs (with some context) is rendered, so a change past the cut still shows.
  const removed = lines.filter((line) => line.op === "removed");
  const added = lines.filter((line) => line.op === "added");
  // The new text is what the human approves: added lines take the budget first, removed lines what
  // is left, and the lines shown keep their order.
  const keep = new Set([
    ...added.slice(0, maxLines),
    ...removed.slice(0, Math.max(0, maxLines - added.length)),
  ]);
  const shown = lines
    .filter((line) => keep.has(line))
    .map((line) => {
      const [own, other] = line.op === "removed" ? [removed, added] : [added, removed];
      const partner = other[own.indexOf(line)]?.text;
      return `${line.op === "removed" ? "-" : "+"} ${renderChangedLine(line.text, partner, options)}`;
    });
  const hiddenAdded = added.length - Math.min(added.length, maxLines);
  const hiddenRemoved = removed.length - Math.min(removed.length, Math.max(0, maxLines - added.length));
  const rest = hiddenAdded + hiddenRemoved;
  if (rest > 0) {
    shown.push(
      `… ${rest} more changed ${rest === 1 ? "line" : "lines"} not shown (${hiddenAdded} added, ${hiddenRemoved} removed)`,
    );
  }
  return [`Changed: ${summarizePinDiff(diff)}`, ...shown].join("\n");
}
