/**
 * Dotted parameter paths (`files[].path`) over hostile call arguments (SPEC §2.4 `write_params`,
 * §2.5 `sink_params`). Pure; keys are read with `Object.hasOwn` only (STYLE #6).
 * @module
 */

import { isJsonObject } from "./json-access.ts";
import type { JsonObject, JsonValue } from "./types.ts";

/** One value a parameter path reached, with its concrete path (`files[0].path`). */
export interface ParamValue {
  readonly path: string;
  readonly value: JsonValue;
}

/** A place where the arguments had a different shape than the parameter path expects. */
export interface ParamMismatch {
  readonly path: string;
  readonly value: JsonValue;
  readonly expected: "an object" | "a list";
}

/** What {@link collectParamValues} found: values reached, and shape mismatches (which fail closed). */
export interface ParamValues {
  readonly values: readonly ParamValue[];
  readonly mismatches: readonly ParamMismatch[];
}

/** One dotted step of a parameter path: a key, then `[]` once per list it reaches into. */
interface Segment {
  readonly key: string;
  /** `key` case-folded ({@link foldKey}). */
  readonly folded: string;
  readonly lists: number;
}

/**
 * A parameter path compiled once, where the policy is compiled (`compileCallRules`): its segments
 * with their keys case-folded, so that a call folds none of the rule's keys.
 */
export interface ParamPath {
  /** The path as the policy writes it (`files[].path`). */
  readonly text: string;
  /** `text` case-folded: an argument whose own name is the whole dotted path is reached by it too. */
  readonly folded: string;
  readonly segments: readonly Segment[];
}

/** A character outside ASCII: where the full fold of {@link foldKey} is needed. */
const NON_ASCII = /[\u0080-\u{10ffff}]/u;

/**
 * A key folded as case-insensitive JSON decoders compare names (Go's `encoding/json`, .NET's web
 * defaults): lower-cased, upper-cased and lower-cased again, so that `Path`, `PATH`, `ſ`/`s`, the
 * Kelvin sign and `k`, and `ẞ`/`ß` (equal under Go's older simple folding) meet; and without NUL
 * characters, which the decoder of the go-sdk 1.3.1–1.4.0 (GHSA-q382-vc8q-7jhj) ignored at the end of a
 * key (`name\u0000` read as `name`). Keys that meet here and not in a given decoder only make Bouncer
 * stricter. The one fold of argument names (SPEC §2.4
 * dotted paths), of policy warnings and of the proxy's checks of JSON-RPC members.
 *
 * Source: SPEC §2.4; the reviews of case-folded argument keys and JSON-RPC member names.
 * @param key - An object key.
 * @returns Its folded form.
 * @example foldKey("Meth\u017Fod") // => "methsod"
 */
export function foldKey(key: string): string {
  // For ASCII text one lower-casing is the whole fold (and allocates nothing when already folded).
  const folded = NON_ASCII.test(key) ? key.toLowerCase().toUpperCase().toLowerCase() : key.toLowerCase();
  return folded.includes("\u0000") ? folded.replaceAll("\u0000", "") : folded;
}

/**
 * Compiles a parameter path: dots split it into segments, each key's trailing `[]`s count the lists
 * it reaches into, and every key is case-folded.
 *
 * Source: SPEC §2.4 ("dotted paths reach into objects, `[]` into lists: `files[].path`"); STYLE #4.
 * @param text - A policy parameter path such as `to`, `options.path` or `files[].path`.
 * @returns The compiled path.
 * @throws Never.
 * @example compileParamPath("files[].path").segments // [{ key: "files", folded: "files", lists: 1 }, { key: "path", folded: "path", lists: 0 }]
 */
export function compileParamPath(text: string): ParamPath {
  const segments = text.split(".").map((raw) => {
    let key = raw;
    let lists = 0;
    while (key.endsWith("[]")) {
      key = key.slice(0, -2);
      lists += 1;
    }
    return { key, folded: foldKey(key), lists };
  });
  return { text, folded: foldKey(text), segments };
}

/**
 * The case folding of one call's argument keys, each key folded at most once however many paths
 * (`write_params`, `arg_patterns`, `sink_params`) and objects meet it: one per call (made by
 * `decide`), never kept between calls. Keys of ASCII characters only are never folded at all (they
 * are compared in place); only keys with other characters come here.
 */
export interface ArgumentKeys {
  /**
   * @param key - An argument key (hostile).
   * @returns It case-folded, as {@link foldKey} folds it.
   */
  fold(key: string): string;
}

/**
 * Creates the key folding of one call (see {@link ArgumentKeys}).
 * @returns One that has folded nothing yet.
 */
export function createArgumentKeys(): ArgumentKeys {
  let folded: Map<string, string> | undefined;
  return {
    fold(key) {
      folded ??= new Map();
      let found = folded.get(key);
      if (found === undefined) {
        found = foldKey(key);
        folded.set(key, found);
      }
      return found;
    },
  };
}

/**
 * Whether an argument key folds to a rule's folded key, without folding it when it is ASCII: up to
 * its first character past ASCII (or NUL), each character folds to its own lower case in the same
 * place (so a difference there is final); from such a character on, the key is folded whole, since
 * those may fold to ASCII (`ſ`, the Kelvin sign), to several characters (`ß`) or to none (NUL).
 * @param other - The argument key.
 * @param folded - The rule's key, folded.
 * @param keys - The call's key folding.
 * @returns True when `foldKey(other) === folded`.
 */
function foldsTo(other: string, folded: string, keys: ArgumentKeys): boolean {
  for (let i = 0; i < other.length; i += 1) {
    const c = other.charCodeAt(i);
    if (c >= 0x80 || c === 0) return keys.fold(other) === folded;
    if ((c >= 0x41 && c <= 0x5a ? c + 0x20 : c) !== folded.charCodeAt(i)) return false;
  }
  return other.length === folded.length;
}

/**
 * The own keys of `object` an upstream may read as `key`: `key` itself first, then every other key
 * equal to it under case folding (a server that decodes names case-insensitively takes one of them,
 * often the last, for the argument — all are checked).
 */
function spellingsOf(
  object: JsonObject,
  key: { readonly key: string; readonly folded: string },
  keys: ArgumentKeys,
): string[] {
  const found = Object.hasOwn(object, key.key) ? [key.key] : [];
  for (const other of Object.keys(object)) {
    if (other !== key.key && foldsTo(other, key.folded, keys)) found.push(other);
  }
  return found;
}

function walk(
  value: JsonValue,
  at: { readonly index: number; readonly path: string },
  walking: {
    readonly segments: readonly Segment[];
    readonly keys: ArgumentKeys;
    readonly out: { values: ParamValue[]; mismatches: ParamMismatch[] };
  },
): void {
  const { out } = walking;
  const segment = walking.segments[at.index];
  if (segment === undefined) {
    out.values.push({ path: at.path, value });
    return;
  }
  if (!isJsonObject(value)) {
    out.mismatches.push({ path: at.path, value, expected: "an object" });
    return;
  }
  let reached: ParamValue[] = spellingsOf(value, segment, walking.keys).map((key) => ({
    path: at.path === "" ? key : `${at.path}.${key}`,
    value: value[key]!,
  }));
  for (let level = 0; level < segment.lists; level += 1) {
    const next: ParamValue[] = [];
    for (const item of reached) {
      if (!Array.isArray(item.value)) {
        out.mismatches.push({ path: item.path, value: item.value, expected: "a list" });
        continue;
      }
      item.value.forEach((element, i) => {
        next.push({ path: `${item.path}[${i}]`, value: element });
      });
    }
    reached = next;
  }
  for (const item of reached) walk(item.value, { index: at.index + 1, path: item.path }, walking);
}

/**
 * Collects every value a parameter path reaches in the call's arguments. Dots reach into objects,
 * `[]` into lists. An absent key reaches nothing; a value of the wrong shape on the way is a mismatch.
 * An argument whose own name contains a dot is reached by that exact name too (before the nested
 * value: either one may be what the upstream reads, so both are checked). Every key is also reached
 * under each other spelling equal to it under case folding (`Path` for `path`): servers that decode
 * JSON names case-insensitively read those as the argument (Go, .NET), so each is checked too.
 *
 * Source: SPEC §2.4 ("dotted paths reach into objects, `[]` into lists: `files[].path`"), §2.5.
 * @param args - The call's arguments (hostile keys).
 * @param paramPath - A policy parameter path such as `to`, `options.path` or `files[].path`, as
 *   written or compiled ({@link compileParamPath}).
 * @param keys - The call's folded argument keys, shared by the paths of one call (default: this
 *   path's own).
 * @returns The values reached, with concrete paths, and any shape mismatches.
 * @throws Never for JSON arguments (a throwing getter on a hostile object propagates).
 * @example collectParamValues({ files: [{ path: "a" }] }, "files[].path").values // [{ path: "files[0].path", value: "a" }]
 */
export function collectParamValues(
  args: JsonObject,
  paramPath: string | ParamPath,
  keys: ArgumentKeys = createArgumentKeys(),
): ParamValues {
  const path = typeof paramPath === "string" ? compileParamPath(paramPath) : paramPath;
  const out: { values: ParamValue[]; mismatches: ParamMismatch[] } = { values: [], mismatches: [] };
  // A dotted path: an argument named by the whole text is reached too.
  if (path.segments.length > 1) {
    for (const key of spellingsOf(args, { key: path.text, folded: path.folded }, keys))
      out.values.push({ path: key, value: args[key]! });
  }
  walk(args, { index: 0, path: "" }, { segments: path.segments, keys, out });
  return out;
}
