/**
 * The bounded window of recent untrusted output (SPEC §2.5 "Index, not rescans"): canonical text
 * searched for destinations that are not token-shaped (a multi-word name). Older text falls out; a
 * search never scans more than the window. Pure.
 * @module
 */

import { EXCERPT_SIDE, endBeforeCutWord, startAfterCutWord } from "./excerpt-edges.ts";
import { UNSPACED_SCRIPT_CLASS } from "./scripts.ts";
import type { Evidence } from "./types.ts";

/** Segments are separated by NUL, which canonical destinations never contain. */
const SEPARATOR = "\u0000";
/**
 * Separates scalars of one output scanned together (U+0001): a token boundary that no match of a
 * destination crosses. Every other control character becomes a space in the window.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 */
export const SCALAR_BREAK = "\u0001";
/** A control character (Cc) other than {@link SCALAR_BREAK}: a space in the window. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000\u0002-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROLS = /[\u0000\u0002-\u001f\u007f-\u009f]/g;
/** Target size of one chunk of the window, in UTF-16 code units. */
const CHUNK_UNITS = 64 * 1024;

interface Chunk {
  readonly text: string;
  /** Start offset of each segment in `text`, ascending. */
  readonly starts: readonly number[];
  /** Provenance of each segment: `free_text`, `field` (whole value) or `definition`. */
  readonly metas: readonly Evidence[];
}

/**
 * The chunk being filled: blocks of segments already copied into fresh strings, segments appended
 * since (which may still be slices of a larger output), and every segment's offset and evidence.
 */
interface OpenChunk {
  blocks: string[];
  parts: string[];
  readonly starts: number[];
  readonly metas: Evidence[];
  length: number;
}

/**
 * The window: sealed chunks, oldest first, and the chunk being filled.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 */
export interface TextWindow {
  /** Size limit in UTF-16 code units of canonical text (≈ bytes for ASCII text). */
  readonly limit: number;
  readonly chunks: Chunk[];
  open: OpenChunk;
  /** Code units held in sealed chunks and the open one. */
  size: number;
}

/**
 * Occurrences of a value in the window, the first of each kind (newest output first).
 *
 * Source: SPEC §2.5 "Index, not rescans".
 */
export interface WindowHits {
  free?: Evidence;
  field?: Evidence;
  definition?: Evidence;
}

function emptyChunk(): OpenChunk {
  return { blocks: [], parts: [], starts: [], metas: [], length: 0 };
}

/**
 * Creates an empty window.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param limit - Its size in UTF-16 code units of canonical text (≈ bytes for ASCII text).
 * @returns The window.
 */
export function createTextWindow(limit: number): TextWindow {
  return { limit, chunks: [], open: emptyChunk(), size: 0 };
}

/**
 * Copies the segments appended since the last call into one fresh block (each byte is copied once:
 * no output string stays referenced, and no earlier block is copied again).
 */
function compact(open: OpenChunk): void {
  if (open.parts.length === 0) return;
  open.blocks.push(SEPARATOR + open.parts.join(SEPARATOR));
  open.parts = [];
}

/** The open chunk's text as one string (its blocks joined once, then kept joined). */
function openText(open: OpenChunk): string {
  compact(open);
  if (open.blocks.length > 1) open.blocks = [open.blocks.join("")];
  return open.blocks[0] ?? "";
}

function evict(window: TextWindow): void {
  while (window.size > window.limit && window.chunks.length > 0) {
    window.size -= window.chunks.shift()?.text.length ?? 0;
  }
}

/**
 * Appends one segment of canonical output to the window, evicting the oldest chunks beyond its
 * limit. A segment longer than the window keeps only its tail.
 *
 * Source: SPEC §2.5 "Index, not rescans" (bounded window of recent output, default 8 MiB).
 * @param window - The window.
 * @param segment - `text`: canonical text (its control characters become spaces); `meta`: the
 *   evidence any occurrence in it points to — `kind: "field"` means the segment is one whole field
 *   value (only an occurrence spanning it all is a field occurrence).
 * @returns Nothing.
 */
export function appendSegment(
  window: TextWindow,
  segment: { readonly text: string; readonly meta: Evidence },
): void {
  const { text, meta } = segment;
  let clean = CONTROL.test(text) ? text.replace(CONTROLS, " ") : text;
  if (!/\S/.test(clean)) return;
  if (clean.length > window.limit) clean = clean.slice(clean.length - window.limit);
  const open = window.open;
  open.starts.push(open.length + 1);
  open.parts.push(clean);
  open.metas.push(meta);
  open.length += clean.length + 1;
  window.size += clean.length + 1;
  if (open.length >= CHUNK_UNITS) {
    window.chunks.push({ text: openText(open), starts: open.starts, metas: open.metas });
    window.open = emptyChunk();
    evict(window);
  }
}

/**
 * Ends one recorded output: copies its segments into the window's own text, so the window never
 * keeps a reference to a larger output string.
 *
 * Source: SPEC §2.5 "Index, not rescans".
 * @param window - The window.
 * @returns Nothing.
 */
export function flushWindow(window: TextWindow): void {
  compact(window.open);
  evict(window);
}

/** Where an occurrence starts and ends in a chunk's text. */
interface Span {
  readonly start: number;
  readonly end: number;
}

/** A word character, except letters of scripts written without spaces (a token ends beside them). */
const WORD = new RegExp(`(?![${UNSPACED_SCRIPT_CLASS}])[\\p{L}\\p{N}_]`, "u");
const JOINER = /[.@-]/;

/** An occurrence is on token boundaries when no word (or word-joined) character touches it. */
function onBoundaries(text: string, span: Span): boolean {
  const { start, end } = span;
  const before = text[start - 1] ?? " ";
  const after = text[end] ?? " ";
  if (WORD.test(before) || WORD.test(after)) return false;
  if (JOINER.test(before) && WORD.test(text[start - 2] ?? " ")) return false;
  return !(JOINER.test(after) && WORD.test(text[end + 1] ?? " "));
}

function segmentAt(chunk: Chunk, at: number): number {
  let lo = 0;
  let hi = chunk.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((chunk.starts[mid] ?? 0) <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The excerpt around an occurrence, within its own segment: the window joins outputs, and text of
 * the output before or after (another tool's, a definition) must not be shown as this one's. No word
 * is cut at an edge (`excerpt-edges.ts`: a token cut there would show most of itself unrecognised).
 */
function excerpt(text: string, span: Span, segment: Span): string {
  const { start, end } = span;
  const from = startAfterCutWord(text, Math.max(segment.start, start - EXCERPT_SIDE), start);
  const to = endBeforeCutWord(text, Math.min(segment.end, end + EXCERPT_SIDE), end);
  const cut = text.slice(from, to).replaceAll(SEPARATOR, " ").replaceAll(SCALAR_BREAK, " ").trim();
  return JSON.parse(JSON.stringify(cut)) as string;
}

/** What one search found, and how much text it scanned (UTF-16 code units). */
export interface WindowSearch {
  readonly hits: WindowHits;
  readonly scanned: number;
}

/**
 * Searches the window for a canonical value on token boundaries. An occurrence covering a whole
 * field segment is a field occurrence; inside a definition segment, a definition occurrence; any
 * other is free text (with an excerpt). Stops at the first free-text occurrence.
 *
 * Source: SPEC §2.5 "Free text versus field values", "Index, not rescans".
 * @param window - The window.
 * @param needle - A canonical destination identity (not empty, no NUL).
 * @returns The first occurrence of each kind found, and the code units scanned.
 */
export function searchWindow(window: TextWindow, needle: string): WindowSearch {
  const hits: WindowHits = {};
  let scanned = 0;
  if (needle === "" || needle.includes(SEPARATOR)) return { hits, scanned };
  const open = window.open;
  const chunks: readonly Chunk[] = [
    ...window.chunks,
    { text: openText(open), starts: open.starts, metas: open.metas },
  ];
  for (let c = chunks.length - 1; c >= 0 && hits.free === undefined; c -= 1) {
    const chunk = chunks[c];
    if (chunk === undefined) continue;
    scanned += chunk.text.length;
    for (let at = chunk.text.indexOf(needle); at !== -1; at = chunk.text.indexOf(needle, at + 1)) {
      const span = { start: at, end: at + needle.length };
      if (!onBoundaries(chunk.text, span)) continue;
      const index = segmentAt(chunk, at);
      const meta = chunk.metas[index];
      if (meta === undefined) continue;
      const segmentEnd = (chunk.starts[index + 1] ?? chunk.text.length + 1) - 1;
      if (meta.kind === "definition") hits.definition ??= meta;
      else if (meta.kind === "field" && at === chunk.starts[index] && span.end === segmentEnd)
        hits.field ??= meta;
      else {
        const { server, tool, seq } = meta;
        const segment = { start: chunk.starts[index] ?? 0, end: Math.min(segmentEnd, chunk.text.length) };
        hits.free = { server, tool, seq, kind: "free_text", excerpt: excerpt(chunk.text, span, segment) };
        break;
      }
    }
  }
  return { hits, scanned };
}
