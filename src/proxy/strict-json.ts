/**
 * A strict look at a `tools/call` message before it is decided: does its JSON repeat an object key
 * at any depth, or hold an integer beyond ±2^53 (or a number that overflows)? Either makes what the
 * upstream's parser sees possibly different from what Bouncer decided on, so the gate denies such a
 * call; an allowed call is forwarded as the re-serialisation of exactly the decided arguments. The
 * text has already passed `JSON.parse`; this pass only looks for those two things. Edge (pure).
 *
 * Source: SPEC §3.1 ("Decide on exactly what is forwarded").
 * @module
 */

import { stringEnd } from "./json-scan.ts";

/** What the strict pass found. */
export interface StrictJsonReport {
  /** Some object repeats a key (after decoding escapes). */
  readonly duplicateKeys: boolean;
  /** Some number is an integer beyond ±(2^53 − 1), or does not fit a double at all. */
  readonly unsafeIntegers: boolean;
  /** Arrays and objects nest deeper than {@link MAX_NESTING} levels somewhere. */
  readonly tooDeep: boolean;
}

/**
 * The deepest nesting of arrays and objects a request may have (legitimate arguments stay far
 * below; past ~10,000 levels the runtime's own serialisation overflows its stack).
 *
 * Source: SPEC §2.1 (an error is a deny), §3.1; brief ("fail closed").
 */
export const MAX_NESTING = 1000;

/**
 * Whether a valid JSON text nests arrays and objects deeper than `max` levels. Iterative; strings
 * are skipped whole. A text shorter than `2 × max` characters cannot, and is not walked.
 *
 * Source: SPEC §2.1, §3.1.
 * @param text - Valid JSON text.
 * @param max - The deepest nesting allowed.
 * @returns True when some container lies deeper than `max`.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= 2 * max) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end === -1) return false;
      i = end - 1;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Whether a parsed value nests arrays and objects deeper than `max` levels (the value itself is
 * level 1 when it is a container). Iterative.
 *
 * Source: SPEC §2.1, §2.2 (a tool definition too deep to pin fails the walk).
 * @param value - Any parsed JSON.
 * @param max - The deepest nesting allowed.
 * @returns True when some container lies deeper than `max`.
 */
export function valueNestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== "object" || node === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Found in every JSON text holding a number that is unsafe (see {@link isUnsafeNumber}): such a
 * number has an exponent (a digit right before `e`/`E`) or an integer part of at least 16 digits
 * (2^53 has 16). Strings may match too; a text it does not match has no unsafe number.
 */
const MAY_HOLD_UNSAFE_NUMBER = /\d(?:[eE]|\d{15})/;

/**
 * Whether a number literal loses its integer value as a double.
 * @param literal - The number as written.
 * @returns True for an unsafe integer or an overflow.
 */
function isUnsafeNumber(literal: string): boolean {
  return isUnsafeDouble(Number(literal));
}

/**
 * Whether a double is an overflow or an integer beyond ±2^53 (the verdict on a literal is the
 * verdict on `Number(literal)`).
 * @param value - A number.
 * @returns True when unsafe.
 */
function isUnsafeDouble(value: number): boolean {
  if (!Number.isFinite(value)) return true;
  return Number.isInteger(value) && Math.abs(value) > Number.MAX_SAFE_INTEGER;
}

/**
 * Whether a JSON text repeats a key in some object, at any depth: the keys written in the text
 * (strings followed by `:`) are counted and compared with the keys of the value `JSON.parse` made
 * of it, which keeps one property per distinct key of each object (`__proto__` included, as an own
 * property). Iterative, so deep nesting cannot overflow the stack.
 *
 * Source: SPEC §3.1.
 * @param text - Valid JSON text.
 * @param value - `JSON.parse(text)`.
 * @returns True when some object of the text has a key twice (after decoding escapes).
 */
export function repeatsAKey(text: string, value: unknown): boolean {
  return keysWritten(text) !== keysKept(value);
}

/**
 * Counts the keys written in a JSON text: its strings followed by `:` (after a string ends, the
 * next `"` starts a string, since no other token holds one).
 * @param text - Valid JSON text.
 * @returns How many keys the text writes, repeated ones included.
 */
function keysWritten(text: string): number {
  let count = 0;
  for (let at = text.indexOf('"'); at !== -1; ) {
    let next = stringEnd(text, at);
    if (next === -1) break;
    while (isSpace(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === 0x3a) count++;
    at = text.indexOf('"', next);
  }
  return count;
}

/**
 * Counts the own keys of every object in a parsed JSON value.
 * @param value - `JSON.parse` of a text.
 * @returns How many keys the value keeps.
 */
function keysKept(value: unknown): number {
  let count = 0;
  const stack: object[] = typeof value === "object" && value !== null ? [value] : [];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const values = Object.values(item);
    if (!Array.isArray(item)) count += values.length;
    for (const member of values) if (typeof member === "object" && member !== null) stack.push(member);
  }
  return count;
}

/**
 * @param c - A character code.
 * @returns Whether it is JSON white space.
 */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Reports repeated keys, unsafe numbers and nesting past {@link MAX_NESTING} of a JSON text (already
 * valid), at any depth. When the caller already knows whether a key repeats ({@link repeatsAKey})
 * and the text cannot hold an unsafe number, only its brackets are counted; otherwise the text is
 * walked once (depth included). Iterative, so deep nesting cannot overflow the stack.
 *
 * Source: SPEC §3.1.
 * @param text - Valid JSON text.
 * @param known - Whether the text repeats a key, when the caller knows, and `JSON.parse` of it (then
 *   a text without repeated keys is never walked: its numbers are looked at in the value).
 * @returns The report.
 * @example checkStrictJson('{"a":1,"a":2}') // { duplicateKeys: true, unsafeIntegers: false, tooDeep: false }
 */
export function checkStrictJson(
  text: string,
  known?: { readonly repeatsKey: boolean; readonly value?: unknown },
): StrictJsonReport {
  if (known !== undefined && !MAY_HOLD_UNSAFE_NUMBER.test(text)) {
    const tooDeep = nestsDeeperThan(text, MAX_NESTING);
    return { duplicateKeys: known.repeatsKey, unsafeIntegers: false, tooDeep };
  }
  // No key repeats, so every number literal of the text is in the parsed value, as the same double.
  if (known !== undefined && !known.repeatsKey && known.value !== undefined) {
    const tooDeep = nestsDeeperThan(text, MAX_NESTING);
    return { duplicateKeys: false, unsafeIntegers: holdsUnsafeNumber(known.value), tooDeep };
  }
  return walkStrictJson(text);
}

/**
 * Whether a parsed JSON value holds an unsafe number ({@link isUnsafeNumber} of the double
 * `JSON.parse` made, which is `Number(literal)`: the same verdict as on the literal).
 * @param value - `JSON.parse` of a text that repeats no key.
 * @returns True when some number is an unsafe integer or an overflow.
 */
function holdsUnsafeNumber(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "number") {
      if (isUnsafeDouble(item)) return true;
    } else if (typeof item === "object" && item !== null) {
      for (const member of Object.values(item)) stack.push(member);
    }
  }
  return false;
}

/**
 * The walk of {@link checkStrictJson}.
 * @param text - Valid JSON text.
 * @returns The report.
 */
function walkStrictJson(text: string): StrictJsonReport {
  let duplicateKeys = false;
  let unsafeIntegers = false;
  let tooDeep = false;
  /** One entry per open container: the keys of an object, or null for an array. */
  const stack: (Set<string> | null)[] = [];
  /** True when the next string in the current object is a key. */
  let expectKey = false;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end === -1) break;
      const keys = stack.at(-1);
      if (expectKey && keys) {
        const token = text.slice(i, end);
        const key = token.includes("\\") ? (JSON.parse(token) as string) : token.slice(1, -1);
        if (keys.has(key)) duplicateKeys = true;
        else keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b) {
      stack.push(new Set());
      if (stack.length > MAX_NESTING) tooDeep = true;
      expectKey = true;
      i++;
    } else if (c === 0x5b) {
      stack.push(null);
      if (stack.length > MAX_NESTING) tooDeep = true;
      expectKey = false;
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      expectKey = false;
      i++;
    } else if (c === 0x2c) {
      expectKey = stack.at(-1) instanceof Set;
      i++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(text);
      if (match === null) {
        i++;
        continue;
      }
      if (isUnsafeNumber(match[0])) unsafeIntegers = true;
      i += match[0].length;
    } else {
      i++;
    }
  }
  return { duplicateKeys, unsafeIntegers, tooDeep };
}
