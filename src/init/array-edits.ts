/**
 * Text edits on array literals shared by the JSON and TOML rewriters. Wrapping inserts Bouncer's
 * arguments in front of an entry's existing `args` elements, copying the separator the file already
 * uses (`, ` on one line, or a comma plus the line break and indentation of a multi-line array), so
 * that `--undo` can delete exactly what was inserted and give back the original bytes. Pure.
 *
 * Source: SPEC §5.2 ("Edits are surgical"; `--undo` restores the entry).
 * @module
 */

import type { Edit, Span } from "./types.ts";

/** Where an array literal is: the offset of `[`, the offset just after `]`, and its elements. */
export interface ArrayShape {
  readonly start: number;
  readonly end: number;
  readonly items: readonly Span[];
}

/**
 * The separator to put between inserted elements: the text between the first two elements when it is
 * only a comma and white space; else a comma plus the white space just before the first element (after
 * any comment) when that breaks the line; else `, `.
 *
 * Source: SPEC §5.2.
 * @param text - The config text.
 * @param shape - The array.
 * @returns The separator (always starts with a comma).
 */
export function elementSeparator(text: string, shape: ArrayShape): string {
  const [first, second] = shape.items;
  if (first !== undefined && second !== undefined) {
    const between = text.slice(first.end, second.start);
    if (/^[ \t]*,[ \t\r\n]*$/.test(between)) return between;
  }
  if (first !== undefined) {
    const before = /[ \t\r\n]*$/.exec(text.slice(shape.start + 1, first.start))?.[0] ?? "";
    if (before.includes("\n")) return `,${before}`;
  }
  return ", ";
}

/**
 * The edit that puts `elements` (already encoded literals) in front of an array's elements: before
 * the first element followed by the separator, or right after `[` when the array is empty.
 *
 * Source: SPEC §5.2.
 * @param text - The config text.
 * @param insertion - The array and the encoded literals to insert, in order (at least one).
 * @returns One insertion.
 */
export function insertIntoArray(
  text: string,
  insertion: { readonly shape: ArrayShape; readonly elements: readonly string[] },
): Edit {
  const { shape, elements } = insertion;
  const first = shape.items[0];
  if (first === undefined) return { offset: shape.start + 1, length: 0, content: elements.join(", ") };
  const separator = elementSeparator(text, shape);
  return { offset: first.start, length: 0, content: `${elements.join(separator)}${separator}` };
}

/**
 * The inverse of {@link insertIntoArray}: removes the first `count` elements, with the separator
 * after them when elements remain. When none remain and the array's elements stood on lines of their
 * own (a client rewrote the file, one element per line), the line breaks and indentation go too:
 * the array becomes `[]`, not a line of blanks between its brackets. Anything else around the
 * elements (the space of `[ ]`, a comment) stays as it is.
 *
 * Source: SPEC §5.2 (`--undo` restores the entry).
 * @param text - The config text.
 * @param removal - The array (as it is now) and how many leading elements to remove
 *   (1 ≤ count ≤ items).
 * @returns One deletion.
 * @throws {RangeError} When `count` is out of range.
 */
export function removeFromArray(
  text: string,
  removal: { readonly shape: ArrayShape; readonly count: number },
): Edit {
  const { shape, count } = removal;
  const first = shape.items[0];
  const last = shape.items[count - 1];
  if (first === undefined || last === undefined || count < 1) {
    throw new RangeError(`Cannot remove ${count} elements from an array of ${shape.items.length}`);
  }
  const next = shape.items[count];
  if (next !== undefined) return { offset: first.start, length: next.start - first.start, content: "" };
  const before = text.slice(shape.start + 1, first.start);
  const after = text.slice(last.end, shape.end - 1);
  if (/^[ \t]*\r?\n[ \t\r\n]*$/.test(before) && /^[ \t\r\n]*$/.test(after)) {
    return { offset: shape.start + 1, length: shape.end - 1 - (shape.start + 1), content: "" };
  }
  return { offset: first.start, length: last.end - first.start, content: "" };
}

/**
 * The array literal `init` writes when an entry had no `args`: `[ a, b ]`, with one space inside the
 * brackets. That spacing differs from anything an insertion into an existing array produces, which is
 * how `--undo` tells "args was absent" from "args was empty".
 *
 * Source: SPEC §5.2.
 * @param elements - Encoded literals.
 * @returns The literal.
 */
export function inlineArray(elements: readonly string[]): string {
  return `[ ${elements.join(", ")} ]`;
}

/**
 * The separator to put before a new property or key after the one starting at `keyStart`: a comma
 * plus the line break and indentation in front of that key when it starts a line, else `, `.
 *
 * Source: SPEC §5.2.
 * @param text - The config text.
 * @param keyStart - Offset of the existing property's key.
 * @returns The separator.
 */
export function propertySeparator(text: string, keyStart: number): string {
  let start = keyStart;
  while (start > 0 && " \t\r\n".includes(text.charAt(start - 1))) start--;
  const white = text.slice(start, keyStart);
  return white.includes("\n") ? `,${white}` : ", ";
}
