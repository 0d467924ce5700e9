/**
 * The text of a caught value, for the messages that quote what went wrong (an engine contract that
 * threw, a policy pattern the runtime refused, an upstream that could not be spawned). No imports, so
 * an edge loaded before the upstream is spawned can import this file directly without the rest of the
 * engine. Pure.
 * @module
 */

/**
 * What a caught value says: an `Error`'s `message` (its name and stack left out), any other thrown
 * value as `String()` gives it (a thrown string as it is, `undefined` as `undefined`, a symbol as
 * `Symbol(…)`). The text is returned as it is: callers escape or quote it where it reaches a terminal
 * or the client (SPEC §3.4).
 *
 * Source: STYLE #12 (details after a colon, one clear sentence per error).
 * @param error - Anything caught.
 * @returns Its message.
 * @throws TypeError when `String()` cannot convert the value (an object without `toString`, e.g. one
 *   made by `Object.create(null)`), as the inline expression this replaced did.
 * @example errorText(new RangeError("Invalid array length")) // => "Invalid array length"
 */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
