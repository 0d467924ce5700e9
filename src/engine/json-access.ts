/**
 * Reading hostile JSON safely (STYLE #6: keys come from the wire, so `__proto__`, `constructor` and
 * friends must read as absent unless they are the object's own members). Pure.
 * @module
 */

import type { JsonObject, JsonValue } from "./types.ts";

/**
 * Whether a value is a plain JSON object (not an array, not null).
 * @param value - Any value.
 * @returns True for an object.
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * An own member of an object, never an inherited one.
 * @param object - The object.
 * @param key - The member's name.
 * @returns Its value, or undefined when the object has no own member of that name.
 */
export function member(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
