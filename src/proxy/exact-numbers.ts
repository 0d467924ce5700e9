/**
 * The digits of an upstream message's integers beyond ±2^53, which `JSON.parse` rounds
 * (`40000000000000000123` becomes `40000000000000000000`): the client receives the upstream's bytes,
 * and a client whose parser keeps every digit (Python's `json`, a bigint-aware reader) shows the
 * model the number as written. Such a message is recorded twice, as read and as written, so that
 * either reading of a planted account number taints (SPEC §2.5 "all of it is recorded"). Edge.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", §3.1 ("integers beyond ±2^53").
 * @module
 */

import type { JsonObject, JsonValue } from "../engine/index.ts";
import { INTEGER_TEXT, idKey, isJsonObject, member, type RequestId } from "./jsonrpc.ts";

/**
 * A number of 16 digits or more where JSON writes a value (after `:`, `,` or `[`): every integer
 * beyond ±2^53 (9,007,199,254,740,992) is one. A long digit run inside a string (`"id":"1234…"`, a
 * snowflake id) is not, so such a line is not parsed a second time.
 */
const LONG_NUMBER = /[:,[]\s*-?[0-9]{16}/;

/**
 * The upstream's line parsed with each integer beyond ±2^53 as the string of its digits, when it
 * holds one; undefined otherwise (the usual case, found without a second parse).
 *
 * Source: SPEC §2.5, §3.1.
 * @param line - One upstream line that `JSON.parse` accepts.
 * @returns The exact reading (an object or an array, as the line is), or undefined when every
 *   number of it reads the same either way (or the line is not JSON).
 * @example exactNumbers('{"n":40000000000000000123}') // { n: "40000000000000000123" }
 */
export function exactNumbers(line: string): JsonValue | undefined {
  if (!LONG_NUMBER.test(line)) return undefined;
  let changed = false;
  const reviver = (_key: string, value: unknown, context?: { source?: string }): unknown => {
    if (typeof value !== "number" || Number.isSafeInteger(value)) return value;
    const source = context?.source;
    if (source === undefined || !INTEGER_TEXT.test(source)) return value;
    changed = true;
    return source;
  };
  try {
    const value = JSON.parse(line, reviver) as JsonValue;
    return changed ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One message of an exact reading: the line's own object, or an element of a batch.
 * @param exact - What {@link exactNumbers} returned for the line.
 * @param index - The element's index for a batch; undefined for a single message.
 * @returns The message's exact reading, or undefined when it has none.
 */
export function exactMessage(exact: JsonValue | undefined, index?: number): JsonObject | undefined {
  const value = index === undefined ? exact : Array.isArray(exact) ? exact[index] : undefined;
  return isJsonObject(value) ? value : undefined;
}

/**
 * The table key of the request a `notifications/cancelled` names: its `params.requestId`, an integer
 * beyond ±2^53 keyed by the digits the exact reading of the notification kept.
 *
 * Source: SPEC §3.1 ("a client cancel reaches the upstream for the right request"; integers beyond
 * ±2^53).
 * @param requestId - `params.requestId` as parsed.
 * @param exact - The notification's exact reading ({@link exactMessage}), when it has one.
 * @returns The key, as {@link idKey} makes it.
 */
export function cancelledRequestKey(requestId: RequestId, exact: JsonObject | undefined): string {
  const exactParams = exact === undefined ? undefined : member(exact, "params");
  const digits = isJsonObject(exactParams) ? member(exactParams, "requestId") : undefined;
  return idKey(requestId, typeof requestId === "number" && typeof digits === "string" ? digits : undefined);
}
