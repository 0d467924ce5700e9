/**
 * A TOML scanner that keeps positions: tables, key/value lines and the ranges of every value,
 * array element and inline-table entry. `smol-toml` (which validates and decodes) gives no positions,
 * so this scanner is what lets `bouncer init` edit Codex's `config.toml` in place, leaving comments and
 * layout as they were. It runs only on text `smol-toml` has already accepted. Pure.
 *
 * Source: SPEC §5.2 ("TOML read with `smol-toml` and edited in place so comments and layout stay").
 * @module
 */

import { decodeBasicString } from "./toml-string.ts";
import type { Span } from "./types.ts";

/** A value with its range; arrays have `items`, inline tables `entries`. */
export interface TomlNode {
  readonly kind: "string" | "array" | "table" | "scalar";
  readonly start: number;
  readonly end: number;
  readonly items: readonly TomlNode[];
  readonly entries: readonly TomlKeyValue[];
}

/** A (possibly dotted) key: decoded parts and the range of each part. */
export interface TomlKey {
  readonly parts: readonly string[];
  readonly partSpans: readonly Span[];
  readonly start: number;
  readonly end: number;
}

/** `key = value`; for a top-level line also where its line starts and ends (before the line break). */
export interface TomlKeyValue {
  readonly key: TomlKey;
  readonly value: TomlNode;
  /** Offset of the line's first character (-1 inside an inline table). */
  readonly lineStart: number;
  /** Offset just after the value and any trailing comment (-1 inside an inline table). */
  readonly lineEnd: number;
}

/** A table: the root (path `[]`), `[a.b]` or `[[a.b]]`, with its key/value lines. */
export interface TomlTable {
  readonly path: readonly string[];
  readonly array: boolean;
  readonly entries: readonly TomlKeyValue[];
}

/** The scanner's position. */
interface Cursor {
  readonly text: string;
  pos: number;
}

/**
 * Scans a TOML document.
 *
 * Source: SPEC §5.2.
 * @param text - TOML text that parses.
 * @returns The root table first, then every table header in order.
 * @throws {SyntaxError} On text this scanner does not understand (only for input smol-toml rejects).
 */
export function scanToml(text: string): TomlTable[] {
  const cursor: Cursor = { text, pos: 0 };
  let current = { path: [] as readonly string[], array: false, entries: [] as TomlKeyValue[] };
  const tables: TomlTable[] = [current];
  for (;;) {
    skipBlank(cursor);
    if (cursor.pos >= text.length) break;
    const lineStart = text.lastIndexOf("\n", cursor.pos - 1) + 1;
    if (text[cursor.pos] === "[") {
      const array = text.startsWith("[[", cursor.pos);
      cursor.pos += array ? 2 : 1;
      const key = readKey(cursor);
      expect(cursor, array ? "]]" : "]");
      current = { path: key.parts, array, entries: [] };
      tables.push(current);
      endOfLine(cursor);
      continue;
    }
    const key = readKey(cursor);
    expect(cursor, "=");
    skipSpace(cursor);
    const value = readValue(cursor);
    current.entries.push({ key, value, lineStart, lineEnd: endOfLine(cursor) });
  }
  return tables;
}

/**
 * Reads a bare, quoted or dotted key.
 * @param cursor - At the key.
 * @returns The key.
 */
function readKey(cursor: Cursor): TomlKey {
  const parts: string[] = [];
  const partSpans: Span[] = [];
  skipSpace(cursor);
  const start = cursor.pos;
  for (;;) {
    skipSpace(cursor);
    const partStart = cursor.pos;
    const char = cursor.text[cursor.pos];
    if (char === '"') parts.push(decodeBasicString(readQuoted(cursor, '"')));
    else if (char === "'") parts.push(readQuoted(cursor, "'").slice(1, -1));
    else {
      while (/[A-Za-z0-9_-]/.test(cursor.text[cursor.pos] ?? "")) cursor.pos++;
      if (cursor.pos === partStart)
        throw new SyntaxError(`Cannot scan TOML: key expected at offset ${partStart}`);
      parts.push(cursor.text.slice(partStart, cursor.pos));
    }
    partSpans.push({ start: partStart, end: cursor.pos });
    const end = cursor.pos;
    skipSpace(cursor);
    if (cursor.text[cursor.pos] !== ".") return { parts, partSpans, start, end };
    cursor.pos++;
  }
}

/**
 * Reads one value.
 * @param cursor - At the value's first character.
 * @returns The value node.
 */
function readValue(cursor: Cursor): TomlNode {
  const { text } = cursor;
  const start = cursor.pos;
  const node = (kind: TomlNode["kind"], extra: Partial<TomlNode> = {}): TomlNode => ({
    kind,
    start,
    end: cursor.pos,
    items: [],
    entries: [],
    ...extra,
  });
  if (text.startsWith('"""', start) || text.startsWith("'''", start)) {
    readMultiline(cursor);
    return node("string");
  }
  const char = text[start];
  if (char === '"' || char === "'") {
    readQuoted(cursor, char);
    return node("string");
  }
  if (char === "[") return readArray(cursor, start);
  if (char === "{") return readInlineTable(cursor, start);
  while (cursor.pos < text.length && !/[\s,\]}#]/.test(text[cursor.pos] ?? "")) {
    cursor.pos++;
    const sofar = text.slice(start, cursor.pos);
    if (
      /^\d{4}-\d{2}-\d{2}$/.test(sofar) &&
      text[cursor.pos] === " " &&
      /\d/.test(text[cursor.pos + 1] ?? "")
    ) {
      cursor.pos++;
    }
  }
  if (cursor.pos === start) throw new SyntaxError(`Cannot scan TOML: value expected at offset ${start}`);
  return node("scalar");
}

/**
 * Reads an array (elements may span lines and carry comments).
 * @param cursor - At `[`.
 * @param start - Offset of `[`.
 * @returns The array node.
 */
function readArray(cursor: Cursor, start: number): TomlNode {
  const items: TomlNode[] = [];
  cursor.pos++;
  for (;;) {
    skipBlank(cursor);
    if (cursor.text[cursor.pos] === "]") break;
    items.push(readValue(cursor));
    skipBlank(cursor);
    if (cursor.text[cursor.pos] === ",") cursor.pos++;
    else if (cursor.text[cursor.pos] !== "]")
      throw new SyntaxError(`Cannot scan TOML: "]" expected at offset ${cursor.pos}`);
  }
  cursor.pos++;
  return { kind: "array", start, end: cursor.pos, items, entries: [] };
}

/**
 * Reads an inline table.
 * @param cursor - At `{`.
 * @param start - Offset of `{`.
 * @returns The table node.
 */
function readInlineTable(cursor: Cursor, start: number): TomlNode {
  const entries: TomlKeyValue[] = [];
  cursor.pos++;
  for (;;) {
    skipBlank(cursor);
    if (cursor.text[cursor.pos] === "}") break;
    const key = readKey(cursor);
    expect(cursor, "=");
    skipSpace(cursor);
    entries.push({ key, value: readValue(cursor), lineStart: -1, lineEnd: -1 });
    skipBlank(cursor);
    if (cursor.text[cursor.pos] === ",") cursor.pos++;
    else if (cursor.text[cursor.pos] !== "}")
      throw new SyntaxError(`Cannot scan TOML: "}" expected at offset ${cursor.pos}`);
  }
  cursor.pos++;
  return { kind: "table", start, end: cursor.pos, items: [], entries };
}

/**
 * Reads a single-line string; returns its literal text (quotes included).
 * @param cursor - At the opening quote.
 * @param quote - `"` (escapes) or `'` (literal).
 * @returns The literal.
 */
function readQuoted(cursor: Cursor, quote: string): string {
  const start = cursor.pos;
  cursor.pos++;
  while (cursor.pos < cursor.text.length && cursor.text[cursor.pos] !== quote) {
    cursor.pos += quote === '"' && cursor.text[cursor.pos] === "\\" ? 2 : 1;
  }
  cursor.pos++;
  return cursor.text.slice(start, cursor.pos);
}

/**
 * Reads a multi-line string (`"""` or `'''`, up to two extra closing quotes belong to the content).
 * @param cursor - At the opening delimiter.
 */
function readMultiline(cursor: Cursor): void {
  const quote = cursor.text[cursor.pos] ?? '"';
  const delimiter = quote.repeat(3);
  cursor.pos += 3;
  while (cursor.pos < cursor.text.length && !cursor.text.startsWith(delimiter, cursor.pos)) {
    cursor.pos += quote === '"' && cursor.text[cursor.pos] === "\\" ? 2 : 1;
  }
  cursor.pos += 3;
  for (let extra = 0; extra < 2 && cursor.text[cursor.pos] === quote; extra++) cursor.pos++;
}

/**
 * Skips spaces and tabs, then expects a token.
 * @param cursor - The scanner.
 * @param token - The expected text.
 */
function expect(cursor: Cursor, token: string): void {
  skipSpace(cursor);
  if (!cursor.text.startsWith(token, cursor.pos)) {
    throw new SyntaxError(`Cannot scan TOML: "${token}" expected at offset ${cursor.pos}`);
  }
  cursor.pos += token.length;
}

/**
 * Skips spaces, tabs and a comment up to the line break.
 * @param cursor - After a value or header.
 * @returns The offset where the line's content ends (before `\r\n` or `\n`).
 */
function endOfLine(cursor: Cursor): number {
  skipSpace(cursor);
  if (cursor.text[cursor.pos] === "#") {
    while (cursor.pos < cursor.text.length && !"\r\n".includes(cursor.text[cursor.pos] ?? "")) cursor.pos++;
  }
  return cursor.pos;
}

/** @param cursor - Skips spaces and tabs. */
function skipSpace(cursor: Cursor): void {
  while (cursor.text[cursor.pos] === " " || cursor.text[cursor.pos] === "\t") cursor.pos++;
}

/** @param cursor - Skips white space, line breaks and comments. */
function skipBlank(cursor: Cursor): void {
  for (;;) {
    const char = cursor.text[cursor.pos];
    if (char === " " || char === "\t" || char === "\r" || char === "\n") cursor.pos++;
    else if (char === "#") {
      while (cursor.pos < cursor.text.length && cursor.text[cursor.pos] !== "\n") cursor.pos++;
    } else return;
  }
}
