/**
 * Keys that some JSON decoders read as one though they differ in letter case: Go's `encoding/json`
 * matches an object key to a field name case-insensitively, the last copy winning (`Method` and
 * `method`, `Name` and `name`; `ſ` U+017F is `s`, the Kelvin sign U+212A is `k`), and so do .NET's
 * web defaults. Bouncer reads keys exactly, as JSON-RPC says, so a message holding such a spelling
 * could be decided as one message and read by the peer as another (the go-sdk's CVE-2026-27896
 * smuggled a `Method` past a gateway so). Edge (pure).
 *
 * Source: SPEC §3.1 ("Decide on exactly what is forwarded"; "A tools/call without an id is dropped").
 * @module
 */

import { foldKey } from "../engine/index.ts";

/** JSON-RPC 2.0's own member names: what a message is, and which request it is or answers. */
const RPC_MEMBERS: ReadonlyMap<string, string> = new Map(
  ["jsonrpc", "id", "method", "params", "result", "error"].map((name) => [foldKey(name), name]),
);

/**
 * The first top-level key of a message that a case-insensitive decoder reads as one of JSON-RPC's
 * member names without being it (`Method`, `ID`, `paramſ`): such a decoder may take the message for
 * another method, another id, or a request where Bouncer saw an answer or a notification.
 *
 * Source: SPEC §3.1; JSON-RPC 2.0 §4–5 (member names are exact).
 * @param message - A parsed message.
 * @returns The key and the member it stands for, or undefined when there is none.
 * @example rpcMemberVariant({ method: "ping", Method: "tools/call" }) // => { key: "Method", member: "method" }
 */
export function rpcMemberVariant(
  message: object,
): { readonly key: string; readonly member: string } | undefined {
  for (const key of Object.keys(message)) {
    const member = RPC_MEMBERS.get(foldKey(key));
    if (member !== undefined && member !== key) return { key, member };
  }
  return undefined;
}

/**
 * Two keys of a list that fold together (see {@link foldKey}), the first pair found.
 *
 * Source: SPEC §3.1 ("Decide on exactly what is forwarded").
 * @param keys - Distinct keys (an object's own keys).
 * @returns The earlier and the later key, or undefined when no two fold together.
 * @example foldedPair(["name", "arguments", "Name"]) // => ["name", "Name"]
 */
export function foldedPair(keys: Iterable<string>): readonly [string, string] | undefined {
  const seen = new Map<string, string>();
  for (const key of keys) {
    const folded = foldKey(key);
    const earlier = seen.get(folded);
    if (earlier !== undefined) return [earlier, key];
    seen.set(folded, key);
  }
  return undefined;
}

/**
 * The first pair of keys of one object, at any depth of a parsed value, that fold together.
 * Iterative, so deep nesting cannot overflow the stack; an object with one key is not folded.
 *
 * Source: SPEC §3.1.
 * @param value - Any parsed JSON.
 * @returns The pair, or undefined when no object holds one.
 * @example holdsFoldedPair({ roots: [], Roots: [] }) // => ["roots", "Roots"]
 */
export function holdsFoldedPair(value: unknown): readonly [string, string] | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== "object" || item === null) continue;
    if (Array.isArray(item)) {
      for (const element of item) if (typeof element === "object" && element !== null) stack.push(element);
      continue;
    }
    const keys = Object.keys(item);
    if (keys.length > 1) {
      const pair = foldedPair(keys);
      if (pair !== undefined) return pair;
    }
    for (const member of Object.values(item))
      if (typeof member === "object" && member !== null) stack.push(member);
  }
  return undefined;
}

/**
 * How a pair of keys is named in an error or a log line.
 *
 * Source: STYLE #12 (details after a colon).
 * @param pair - The two keys.
 * @returns E.g. `the keys "name" and "Name" differ only in letter case`.
 */
export function describePair(pair: readonly [string, string]): string {
  return `the keys ${JSON.stringify(pair[0])} and ${JSON.stringify(pair[1])} differ only in letter case`;
}

/** The members of a tool definition that are pinned (SPEC §2.2). */
const EXACT_PINNED: ReadonlySet<string> = new Set([
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
]);

/** {@link EXACT_PINNED}, folded. */
const PINNED_MEMBERS: ReadonlySet<string> = new Set([...EXACT_PINNED].map(foldKey));

/**
 * A tool definition without the top-level members that spell a pinned member in other letter case
 * (`Description`, `INPUTSCHEMA`): they are not pinned, so they may change without a question, and a
 * client decoding names case-insensitively (Go's `encoding/json`, the last copy winning) would show
 * the model such a member in place of the pinned one. A client that reads names exactly ignores
 * them, so it loses nothing.
 *
 * Source: SPEC §2.2 ("a poisoned new description never reaches the model unapproved").
 * @param definition - A definition as listed or pinned.
 * @returns It, or a copy without those members.
 * @example withoutShadowMembers({ name: "t", Description: "x" }) // => { name: "t" }
 */
export function withoutShadowMembers<T extends object>(definition: T): T {
  const keys = Object.keys(definition);
  const shadows = (key: string): boolean => PINNED_MEMBERS.has(foldKey(key)) && !EXACT_PINNED.has(key);
  if (!keys.some(shadows)) return definition;
  const kept = Object.entries(definition).filter(([key]) => !shadows(key));
  return Object.fromEntries(kept) as T;
}
