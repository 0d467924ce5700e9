/**
 * An argument written as JSON text, read the way a server may read it before it validates: the MCP
 * Python SDK runs `json.loads` on every string argument not typed `str`, and Python's parser also
 * takes the bare constants `NaN`, `Infinity` and `-Infinity` that `JSON.parse` refuses. Pure.
 *
 * Source: SPEC §2.5 (destinations nested in an argument); review of the sink gate (a model argument
 * sent as JSON text, with a `NaN` in it, was not looked into).
 * @module
 */

import type { JsonObject, JsonValue } from "./types.ts";

/** The constants Python's `json.loads` takes where a value may stand. */
const PYTHON_CONSTANTS = ["-Infinity", "Infinity", "NaN"] as const;

/**
 * The text with each of Python's constants that stands outside a string replaced by `null` (of the
 * same role: a value), so that `JSON.parse` reads what `json.loads` reads, numbers aside.
 * @param text - JSON text that `JSON.parse` refused.
 * @returns The text, or undefined when it holds none of them outside strings.
 */
function withoutPythonConstants(text: string): string | undefined {
  let out = "";
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i += 1;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      continue;
    }
    const constant = PYTHON_CONSTANTS.find((name) => text.startsWith(name, i));
    if (constant === undefined) continue;
    out += `${text.slice(from, i)}null`;
    i += constant.length - 1;
    from = i + 1;
  }
  return from === 0 ? undefined : out + text.slice(from);
}

/**
 * The object or list a string is the JSON text of, as `JSON.parse` reads it or, where it refuses
 * the text, as Python's `json.loads` would (its `NaN` and `Infinity` read as `null`).
 *
 * Source: SPEC §2.5; the MCP Python SDK's argument pre-parsing.
 * @param text - A string argument value.
 * @returns The parsed object or list; undefined for any other text (one that is no JSON, or the
 *   JSON of a scalar, which the SDK leaves a string).
 * @example jsonContainer('{"to": "a@x.example", "n": NaN}') // { to: "a@x.example", n: null }
 */
export function jsonContainer(text: string): JsonObject | JsonValue[] | undefined {
  const first = text.trimStart().charAt(0);
  if (first !== "{" && first !== "[") return undefined;
  for (const candidate of [text, withoutPythonConstants(text)]) {
    if (candidate === undefined) continue;
    try {
      const parsed = JSON.parse(candidate) as JsonValue;
      return typeof parsed === "object" && parsed !== null ? parsed : undefined;
    } catch {
      // Not JSON as written: Python's reading is tried next, once.
    }
  }
  return undefined;
}
