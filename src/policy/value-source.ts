/**
 * An already parsed plain value (objects, arrays, strings, numbers, booleans, null — what a YAML
 * parser of the runtime returns) → a {@link PolicySource} without positions, for the fast path: the
 * same validators run over it, and only the verdict is used (every issue would be located 1:1, so a
 * file with issues is read again by the YAML library for the messages). Only own enumerable keys of
 * plain objects count; any other kind of value is nothing. Pure.
 *
 * Source: SPEC §4.2, §3.2 step 1 ("load and validate the policy (fast)").
 * @module
 */

import type { PolicySource, SourceTree } from "./policy-source.ts";

/**
 * The source of a parsed value.
 *
 * @param value - The parsed document.
 * @param options - The file name (for issues) and the text it was parsed from (for the leading
 * comment).
 * @returns The source, with no issues yet.
 * Source: SPEC §4.2.
 */
export function valueSource(
  value: unknown,
  options: { readonly file: string; readonly text: string },
): PolicySource {
  return { file: options.file, tree: valueTree(value, options.text), issues: [] };
}

/**
 * Whether a value is a plain mapping (an object whose prototype is `Object.prototype` or null).
 * @param value - Anything.
 * @returns True for a plain object.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The scalar kinds a YAML parser returns.
 * @param value - Anything.
 * @returns True for a string, number, boolean or null.
 */
function isScalarValue(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/**
 * The tree over a plain value. A mapping's keys are scalar nodes holding the key strings.
 * @param root - The parsed document.
 * @param text - Its text.
 * @returns The tree.
 */
function valueTree(root: unknown, text: string): SourceTree {
  return {
    root,
    shape: (node) => {
      if (Array.isArray(node)) return "seq";
      if (isPlainObject(node)) return "map";
      return isScalarValue(node) ? "scalar" : undefined;
    },
    pairs: (node) =>
      isPlainObject(node) ? Object.keys(node).map((key) => ({ key, value: Reflect.get(node, key) })) : [],
    items: (node) => (Array.isArray(node) ? node : []),
    scalar: (node) => (isScalarValue(node) ? node : undefined),
    // A parsed value keeps no text; the guard sends every number-like key to the `yaml` library.
    numberText: () => undefined,
    position: () => ({ line: 1, column: 1 }),
    leadingComment: () => leadingComment(text) ?? "",
  };
}

/**
 * The comment lines a YAML text starts with, without their `#`, as one text — when they form one
 * block that the first content does not follow closely by another comment (`undefined` then: where
 * such a header ends is the YAML library's to say).
 *
 * @param text - A YAML text.
 * @returns The comment (`""` when the text starts with content), or `undefined`.
 * Source: SPEC §4.3 (each pack's header says which server and version it was checked against).
 */
export function leadingComment(text: string): string | undefined {
  const lines = text.replace(/^\uFEFF/u, "").split(/\r?\n/u);
  const header: string[] = [];
  let index = 0;
  for (; index < lines.length; index++) {
    const match = /^#(.*)$/u.exec(lines[index] ?? "");
    if (match === null) break;
    header.push(match[1] ?? "");
  }
  for (; index < lines.length; index++) {
    const line = lines[index] ?? "";
    if (line.trim() === "") continue;
    if (/^\s*#/u.test(line)) return undefined;
    break;
  }
  return header.join("\n");
}
