/**
 * The leaves of a JSON value with their paths (`properties.to.description`, `files[0]`), so that a
 * question or a diff can show every part of a nested value on a line of its own: nothing nested
 * hides behind a long sibling. Pure.
 * @module
 */

import type { JsonValue } from "./types.ts";

/** A key written plainly in a path; any other is written as a JSON string in brackets. */
const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/**
 * Characters past which a path stops growing and ends in {@link PATH_CUT} instead: a value nested
 * 20,000 levels deep would otherwise cost the square of its depth in path text (gigabytes).
 */
export const MAX_LEAF_PATH = 1024;

/** What a path cut at {@link MAX_LEAF_PATH} ends in (no plain or bracketed step ends so). */
export const PATH_CUT = "…";

/**
 * A path with one more step; past {@link MAX_LEAF_PATH} characters the path as it is, ending in
 * {@link PATH_CUT}.
 * @param path - The path so far.
 * @param step - `.key`, `key` (at the top), `[i]` or `["key"]`.
 * @returns The longer path, or the cut one.
 */
function extendPath(path: string, step: string): string {
  if (path.length < MAX_LEAF_PATH) return `${path}${step}`;
  return path.endsWith(PATH_CUT) ? path : `${path}${PATH_CUT}`;
}

/**
 * One leaf: a scalar, or an empty object or list.
 *
 * Source: SPEC §2.2 ("saying what changed"), §3.4.
 */
export interface JsonLeaf {
  /**
   * Keys joined with `.`, list indexes and unusual keys in brackets; `""` for a bare scalar. Cut
   * past 1,024 characters, ending in `…` (leaves deeper down share it).
   */
  readonly path: string;
  readonly value: JsonValue;
}

/**
 * The leaves of a value in order (object keys as given), at most `max`; the rest are counted.
 * Iterative: no nesting runs out of stack; paths stop growing at 1,024 characters, so the work is
 * linear in the value's size at any depth.
 *
 * Source: SPEC §2.2, §3.4.
 * @param value - Any JSON value.
 * @param max - Leaves listed at most.
 * @returns The leaves, and how many more there are beyond `max` (0 when all are listed).
 * @example jsonLeaves({ a: [1, { b: "x" }] }, 10).leaves // [{path:"a[0]",value:1},{path:"a[1].b",value:"x"}]
 */
export function jsonLeaves(value: JsonValue, max: number): { leaves: JsonLeaf[]; more: number } {
  const leaves: JsonLeaf[] = [];
  let more = 0;
  const stack: JsonLeaf[] = [{ path: "", value }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { path, value: node } = item;
    const children: JsonLeaf[] = Array.isArray(node)
      ? node.map((child, index) => ({ path: extendPath(path, `[${index}]`), value: child }))
      : typeof node === "object" && node !== null
        ? Object.keys(node).map((key) => ({
            path: extendPath(
              path,
              PLAIN_KEY.test(key) ? (path === "" ? key : `.${key}`) : `[${JSON.stringify(key)}]`,
            ),
            value: node[key] as JsonValue,
          }))
        : [];
    if (children.length > 0) {
      for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as JsonLeaf);
    } else if (leaves.length < max) leaves.push(item);
    else more += 1;
  }
  return { leaves, more };
}
