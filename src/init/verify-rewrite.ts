/**
 * The safety net under every rewrite: the new text is parsed again and must equal the old document
 * with exactly the intended values changed, nothing else. A bug in a text edit therefore becomes a
 * refusal, never a damaged config. Pure.
 *
 * Source: SPEC §5.2 ("Only the selected stdio entries change"), field case F13.
 * @module
 */

import type { Assignment } from "./types.ts";

/**
 * Applies assignments to a deep copy of a document value.
 *
 * Source: SPEC §5.2.
 * @param value - The old document (not modified).
 * @param assignments - Values to set or remove, by path.
 * @returns The expected new document.
 * @throws {TypeError} When a path does not lead through objects.
 */
export function applyAssignments(value: unknown, assignments: readonly Assignment[]): unknown {
  const root = cloneValue(value);
  for (const assignment of assignments) {
    const parentPath = assignment.path.slice(0, -1);
    const key = assignment.path.at(-1);
    let parent: unknown = root;
    for (const segment of parentPath)
      parent = isObject(parent) && Object.hasOwn(parent, segment) ? parent[segment] : undefined;
    if (!isObject(parent) || key === undefined) {
      throw new TypeError(`Cannot apply a change at "${assignment.path.join(".")}": no such object`);
    }
    if (assignment.remove === true) delete parent[key];
    else
      Object.defineProperty(parent, key, {
        value: cloneValue(assignment.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return root;
}

/**
 * Deep equality of decoded config values (own keys only, in any order; dates by their text; NaN
 * equals NaN).
 *
 * Source: SPEC §5.2.
 * @param a - A value.
 * @param b - Another value.
 * @returns True when they hold the same data.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && String(a) === String(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => deepEqual(item, b[i]))
    );
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]))
  );
}

/**
 * Checks that a rewrite changed exactly what was intended.
 *
 * Source: SPEC §5.2.
 * @param before - The old document's value.
 * @param rewrite - The new document's value (parsed from the new text) and the intended changes.
 * @returns Nothing.
 * @throws {Error} When the new document differs from the old one with the changes applied.
 */
export function verifyRewrite(
  before: unknown,
  rewrite: { readonly after: unknown; readonly assignments: readonly Assignment[] },
): void {
  if (!deepEqual(applyAssignments(before, rewrite.assignments), rewrite.after)) {
    throw new Error("Cannot rewrite the config: the edit would change more than the selected entries");
  }
}

/**
 * A deep copy with null-prototype objects (dates kept as they are).
 * @param value - A decoded value.
 * @returns The copy.
 */
function cloneValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneValue);
  if (!isObject(value)) return value;
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) {
    Object.defineProperty(copy, key, {
      value: cloneValue(value[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * Whether a value is a plain (or null-prototype) object.
 * @param value - Anything.
 * @returns True for objects that are not arrays or dates.
 */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
