/**
 * The strict look at one line of a session file (SPEC §5.9), with the live proxy's own strict-JSON
 * checks (`strict-json.ts`, SPEC §3.1): a repeated key among an event's own fields, or anywhere but
 * in a call's `arguments`, makes the line malformed (`--record` never writes one); a call whose
 * `arguments` repeat a key, hold an integer beyond ±2^53 or nest deeper than the live proxy decides on
 * is ambiguous, and replay denies it as the live proxy would have (`ambiguous_json`). Edge (pure).
 *
 * Source: SPEC §3.1 ("Decide on exactly what is forwarded"), §5.9.
 * @module
 */

import type { AmbiguousJson } from "../audit/index.ts";
import { scanTopLevel } from "./json-scan.ts";
import { checkStrictJson, MAX_NESTING, nestsDeeperThan, repeatsAKey } from "./strict-json.ts";

/**
 * How many levels a `tools/call` message wraps its `arguments` in (the message and its `params`):
 * the live proxy counts them towards {@link MAX_NESTING}, so arguments may nest this much less.
 */
const ENVELOPE_LEVELS = 2;

/** What the strict look found: a problem (the line is malformed), or a call's ambiguity, if any. */
export type StrictLine =
  | { readonly kind: "malformed"; readonly problem: string }
  | { readonly kind: "ok"; readonly ambiguous?: AmbiguousJson };

/**
 * Looks at one line strictly. The line has passed `JSON.parse`; a line that repeats no key and is not
 * a call is not walked again.
 *
 * Source: SPEC §3.1, §5.9.
 * @param text - The line's text (valid JSON).
 * @param value - `JSON.parse(text)`.
 * @returns `malformed` with the problem (e.g. `repeats the key "event"`), or `ok` with the call's
 *   ambiguity, named in the live proxy's order (`duplicate_keys`, `unsafe_integers`, `too_deep`).
 * @throws Never.
 * @example strictLine('{"event":"call","event":"tools"}', { event: "tools" }) // malformed: repeats the key "event"
 */
export function strictLine(text: string, value: unknown): StrictLine {
  const repeats = repeatsAKey(text, value);
  const isCall =
    typeof value === "object" && value !== null && Object.hasOwn(value, "event")
      ? (value as { readonly event: unknown }).event === "call"
      : false;
  if (!repeats && !isCall) return { kind: "ok" };
  const top = scanTopLevel(text);
  // Not an object: the event check names it.
  if (top === undefined) return { kind: "ok" };
  if (top.repeatedKey !== undefined) {
    return { kind: "malformed", problem: `repeats the key ${JSON.stringify(top.repeatedKey)}` };
  }
  if (repeats) {
    for (const [key, span] of top.members) {
      if (isCall && key === "arguments") continue;
      const member = text.slice(span.start, span.end);
      if (repeatsAKey(member, JSON.parse(member))) {
        return { kind: "malformed", problem: `${JSON.stringify(key)} repeats an object key` };
      }
    }
  }
  const span = isCall ? top.members.get("arguments") : undefined;
  if (span === undefined) return { kind: "ok" };
  const args = text.slice(span.start, span.end);
  const report = checkStrictJson(args);
  if (report.duplicateKeys) return { kind: "ok", ambiguous: "duplicate_keys" };
  if (report.unsafeIntegers) return { kind: "ok", ambiguous: "unsafe_integers" };
  if (nestsDeeperThan(args, MAX_NESTING - ENVELOPE_LEVELS)) return { kind: "ok", ambiguous: "too_deep" };
  return { kind: "ok" };
}
