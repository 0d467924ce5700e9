/**
 * One session-file event as a line of JSON, also when a value in it nests too deeply for
 * `JSON.stringify` (the call stack runs out near 10,000 levels, while the relay and the recording
 * take any depth): the too-deep output is then written as the strings it holds — its keys, strings
 * and numbers, in order — so that replay records every token the live session recorded, as free
 * text (stricter, never laxer; SPEC §5.9). Edge (pure).
 *
 * Source: SPEC §3.6, §5.9.
 * @module
 */

import type { JsonObject, JsonValue } from "../engine/index.ts";

/**
 * The keys, strings and numbers of a value in document order, without recursion.
 * @param value - Any JSON value, of any depth.
 * @returns Its texts.
 */
export function textsOf(value: JsonValue): string[] {
  const texts: string[] = [];
  const stack: JsonValue[] = [value];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node === "string") texts.push(node);
    else if (typeof node === "number") texts.push(String(node));
    else if (Array.isArray(node))
      for (let i = node.length - 1; i >= 0; i -= 1) stack.push(node[i] as JsonValue);
    else if (node !== null && typeof node === "object") {
      const entries = Object.entries(node);
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [key, child] = entries[i] as [string, JsonValue];
        stack.push(child, key);
      }
    }
  }
  return texts;
}

/**
 * The line of an event (no newline). An `output` event whose value is too deep is written with the
 * value's texts and `"too_deep": true`; a `call` event whose result or error is, with one text block
 * (or error message) of its texts and `"result_too_deep": true`.
 * @param event - The event.
 * @returns The JSON text.
 * @throws {RangeError} Only when the event cannot be written even so.
 */
export function sessionLine(event: JsonObject): string {
  try {
    return JSON.stringify(event);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  const shallow: JsonObject = { ...event };
  if (event.event === "output" && event.value !== undefined) {
    shallow.value = textsOf(event.value);
    shallow.too_deep = true;
  } else if (event.event === "call" && event.result !== undefined) {
    shallow.result = { content: [{ type: "text", text: textsOf(event.result).join("\n") }] };
    shallow.result_too_deep = true;
  } else if (event.event === "call" && event.error !== undefined) {
    shallow.error = { code: -32603, message: textsOf(event.error).join("\n") };
    shallow.result_too_deep = true;
  }
  return JSON.stringify(shallow);
}
