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

interface Segment {
  readonly key: string;
  readonly lists: number;
}

function parseSegments(paramPath: string): Segment[] {
  return paramPath.split(".").map((raw) => {
    let key = raw;
    let lists = 0;
    while (key.endsWith("[]")) {
      key = key.slice(0, -2);
      lists += 1;
    }
    return { key, lists };
  });
}

/**
 * A key folded as case-insensitive JSON decoders compare names (Go's `encoding/json`, .NET's web
 * defaults): upper-cased, then lower-cased, so `Path`, `PATH`, `ſ`/`s` and the Kelvin sign `K`/`k` meet.
 */
function foldKey(key: string): string {
  return key.toUpperCase().toLowerCase();
}

/**
 * The own keys of `object` an upstream may read as `key`: `key` itself first, then every other key
 * equal to it under case folding (a server that decodes names case-insensitively takes one of them,
 * often the last, for the argument — all are checked).
 */
function spellingsOf(object: JsonObject, key: string): string[] {
  const found = Object.hasOwn(object, key) ? [key] : [];
  const folded = foldKey(key);
  for (const other of Object.keys(object)) {
    if (other !== key && foldKey(other) === folded) found.push(other);
  }
  return found;
}

function walk(
  value: JsonValue,
  segments: readonly Segment[],
  at: { readonly index: number; readonly path: string },
  out: { values: ParamValue[]; mismatches: ParamMismatch[] },
): void {
  const segment = segments[at.index];
  if (segment === undefined) {
    out.values.push({ path: at.path, value });
    return;
  }
  if (!isJsonObject(value)) {
    out.mismatches.push({ path: at.path, value, expected: "an object" });
    return;
  }
  let reached: ParamValue[] = spellingsOf(value, segment.key).map((key) => ({
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
  for (const item of reached) walk(item.value, segments, { index: at.index + 1, path: item.path }, out);
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
 * @param paramPath - A policy parameter path such as `to`, `options.path` or `files[].path`.
 * @returns The values reached, with concrete paths, and any shape mismatches.
 * @throws Never for JSON arguments (a throwing getter on a hostile object propagates).
 * @example collectParamValues({ files: [{ path: "a" }] }, "files[].path").values // [{ path: "files[0].path", value: "a" }]
 */
export function collectParamValues(args: JsonObject, paramPath: string): ParamValues {
  const out: { values: ParamValue[]; mismatches: ParamMismatch[] } = { values: [], mismatches: [] };
  if (paramPath.includes(".")) {
    for (const key of spellingsOf(args, paramPath)) out.values.push({ path: key, value: args[key]! });
  }
  walk(args, parseSegments(paramPath), { index: 0, path: "" }, out);
  return out;
}
