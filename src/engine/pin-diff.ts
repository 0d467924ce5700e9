/**
 * What changed between a pinned and a current tool definition, as a value (SPEC §2.2 "Changed
 * tool"; STYLE #7); `pin-diff-render.ts` turns it into human text. Pure.
 * @module
 */

import { canonicalJson } from "./canonical-json.ts";
import { jsonLeaves, PATH_CUT } from "./json-leaves.ts";
import type { JsonObject, JsonValue, PinDiff, PinDiffLine, ToolDefinition } from "./types.ts";

/** Above this many cells the line diff falls back to a count of lines per side (bounded work). */
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

/** Equal as the pin hash sees them: a field that is absent differs from one that is `null`. */
function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

/** A description's lines, split at every line ending, or at `\n` alone (`\r` kept in the lines). */
function splitLines(text: unknown, breaks: RegExp = /\r\n|\r|\n/): string[] {
  if (text === undefined) return [];
  // A description that is not a string (a hostile upstream's) is compared as its JSON text.
  const value = typeof text === "string" ? text : canonicalJson(text as JsonValue);
  return value.split(breaks);
}

/**
 * The changed lines of a changed description; when only line endings differ (no line does, split
 * at every ending), the lines split at `\n` alone, so the `\r` that changed is in them.
 */
function descriptionDiff(before: unknown, after: unknown): { lines: PinDiffLine[]; endings: boolean } {
  const lines = diffLines(splitLines(before), splitLines(after));
  if (lines.length > 0) return { lines, endings: false };
  return { lines: diffLines(splitLines(before, /\n/), splitLines(after, /\n/)), endings: true };
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
  if (b.length === 0 || a.length === 0) return [...removedAll, ...addedAll];
  if ((b.length + 1) * (a.length + 1) > MAX_DIFF_CELLS) return multisetDiff(b, a);
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

/**
 * The lines only one side has, counting repeats, each side in its order: the bounded-work stand-in
 * for a line diff of long inputs (exact for lines that are unique, such as schema leaves with their
 * paths), so unchanged lines are never shown as changed and a change is never lost among them.
 */
function multisetDiff(before: readonly string[], after: readonly string[]): PinDiffLine[] {
  const count = new Map<string, number>();
  for (const line of after) count.set(line, (count.get(line) ?? 0) + 1);
  const removed: PinDiffLine[] = [];
  for (const line of before) {
    const left = count.get(line) ?? 0;
    if (left > 0) count.set(line, left - 1);
    else removed.push({ op: "removed", text: line });
  }
  const kept = new Map<string, number>();
  for (const line of before) kept.set(line, (kept.get(line) ?? 0) + 1);
  const added: PinDiffLine[] = [];
  for (const line of after) {
    const left = kept.get(line) ?? 0;
    if (left > 0) kept.set(line, left - 1);
    else added.push({ op: "added", text: line });
  }
  return [...removed, ...added];
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
 * @example diffToolDefinitions(a, { ...a, description: "x" }).descriptionChanged // true
 */
export function diffToolDefinitions(pinned: ToolDefinition, current: ToolDefinition): PinDiff {
  const before = propertyNames(pinned.inputSchema);
  const after = propertyNames(current.inputSchema);
  const descriptionChanged = !same(pinned.description, current.description);
  const keys = annotationKeys(pinned.annotations, current.annotations);
  const description = descriptionChanged
    ? descriptionDiff(pinned.description, current.description)
    : { lines: [], endings: false };
  return {
    descriptionChanged,
    titleChanged: !same(pinned.title, current.title),
    propertiesAdded: after.filter((name) => !before.includes(name)).sort(),
    propertiesRemoved: before.filter((name) => !after.includes(name)).sort(),
    schemaChanged: !same(pinned.inputSchema, current.inputSchema),
    outputSchemaChanged: !same(pinned.outputSchema, current.outputSchema),
    annotationsChanged: keys.length > 0 || !same(pinned.annotations, current.annotations),
    descriptionLines: description.lines,
    ...(description.endings ? { descriptionLineEndings: true } : {}),
    fieldLines: fieldLines(pinned, current),
    annotationKeys: keys,
  };
}

/** Leaves of one field compared at most (a hostile upstream's schema can be huge). */
const MAX_FIELD_LINES = 10_000;
/** The fields compared leaf by leaf, each with its own budget. */
const FIELDS = ["title", "inputSchema", "outputSchema", "annotations"] as const;

/**
 * One field of a definition (title, input or output schema, annotations) as one line per leaf,
 * `path: JSON value` with keys sorted (`inputSchema.properties.to.description: "The recipient."`),
 * so that a line diff names what changed inside it; at most 10,000 leaves, paths cut at 1,024
 * characters (`jsonLeaves`). `paths` gives each line's path; `cut` says why not every leaf is told
 * apart: too many, or too deep.
 */
function fieldText(
  def: ToolDefinition,
  field: (typeof FIELDS)[number],
): { lines: string[]; paths: Map<string, string>; cut: "leaves" | "deep" | undefined } {
  const value = (def as unknown as JsonObject)[field];
  if (value === undefined) return { lines: [], paths: new Map(), cut: undefined };
  const { leaves, more } = jsonLeaves(
    { [field]: JSON.parse(canonicalJson(value)) as JsonValue },
    MAX_FIELD_LINES,
  );
  const deep = leaves.some(({ path }) => path.endsWith(PATH_CUT));
  const paths = new Map<string, string>();
  const lines = leaves.map(({ path, value: leaf }) => {
    const line = `${path}: ${JSON.stringify(leaf)}`;
    paths.set(line, path);
    return line;
  });
  return { lines, paths, cut: more > 0 ? "leaves" : deep ? "deep" : undefined };
}

/**
 * The changed leaves of every field but the name and description. A field that changed where no
 * leaf was compared (past 10,000), or whose deepest leaves share a cut path, gets a line saying so,
 * first: a change is never shown as nothing.
 */
function fieldLines(pinned: ToolDefinition, current: ToolDefinition): PinDiffLine[] {
  const lines: PinDiffLine[] = [];
  for (const field of FIELDS) {
    const before = fieldText(pinned, field);
    const after = fieldText(current, field);
    const changed = diffLines(before.lines, after.lines);
    const differs = !same(
      (pinned as unknown as JsonObject)[field],
      (current as unknown as JsonObject)[field],
    );
    const cut = before.cut === "leaves" || after.cut === "leaves" ? "leaves" : (before.cut ?? after.cut);
    if (differs && (changed.length === 0 || cut !== undefined)) {
      const why =
        cut === "deep"
          ? "nests too deeply for each leaf's path to be shown"
          : `has more than ${MAX_FIELD_LINES} leaves`;
      lines.push({ op: "added", text: `(${field} ${why}: its change is not all shown)` });
    }
    for (const line of changed) {
      const path = (line.op === "removed" ? before : after).paths.get(line.text);
      lines.push(path === undefined ? line : { ...line, path });
    }
  }
  return lines;
}
