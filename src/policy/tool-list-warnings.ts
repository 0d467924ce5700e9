/**
 * What `bouncer run` can say once the server's tools are listed, and `check` cannot: a user's tool
 * entry that names no tool the server lists (`Echo`, `"echo "`, `send_emial`: tool names match
 * exactly, so its rules apply to nothing), and a user's `write_params`, `arg_patterns` or
 * `sink_params` naming an argument the tool's pinned input schema cannot hold (`write_params:
 * [file_path]` where the schema lists `path`: nothing is confined). Warnings only: the policy
 * decides as written. Pure.
 *
 * Source: SPEC §4.1 (entries by tool name), §2.4 (`write_params`, `arg_patterns`, dotted paths and
 * `[]`), §2.5 (`sink_params`), §2.2 (the pinned schema).
 * @module
 */

import {
  admitsUnlistedKeys,
  foldKey,
  isJsonObject,
  itemsOf,
  type JsonObject,
  type JsonValue,
  listedProperties,
  renderUntrusted,
  type Sourced,
  safeName,
  type ToolDefinition,
  type ToolRules,
} from "../engine/index.ts";
import { closestKey, editDistance } from "./closest-key.ts";
import type { PolicyFile } from "./types.ts";
import { layerText } from "./view-text.ts";

/** Listed tool names compared by edit distance at most (a hostile list can be long). */
const MAX_COMPARED = 20_000;
/** Names longer than this are not compared by edit distance. */
const MAX_COMPARED_LENGTH = 64;
/** Property names shown at most in a warning. */
const MAX_SHOWN = 8;

/**
 * The user's tool entries (top level and `servers.<server>`) that name no listed tool, one line
 * each, in file order. A `servers.<server>` entry is always said, with a near miss when one exists;
 * a top-level entry only when a listed tool is a near miss (the same name in another case,
 * spacing or Unicode normalization — `café` written decomposed — or one edit away), since top-level entries apply to every server and a policy shared by
 * several servers names other servers' tools.
 *
 * Source: SPEC §4.1, §4.2.
 * @param files - The user's policy files.
 * @param server - The `--upstream-name`.
 * @param listed - Every tool name the server lists (a complete walk).
 * @returns The warnings, each starting `Warning: `.
 * @example
 * ```ts
 * unlistedEntryWarnings([parsePolicy("Echo: { action: deny }\n", "p.yaml")], "raw", ["echo"]);
 * // ['Warning: tool entry "Echo" (user:p.yaml) names no tool of server "raw", but "echo" differs from it in case, spacing or Unicode normalization only: ...']
 * ```
 */
export function unlistedEntryWarnings(
  files: readonly PolicyFile[],
  server: string,
  listed: readonly string[],
): string[] {
  const names = new Set(listed);
  const byShape = new Map<string, string>();
  for (const name of listed) if (!byShape.has(shape(name))) byShape.set(shape(name), name);
  const out: string[] = [];
  const entries = files.flatMap((file) => [
    ...[...file.tools.keys()].map((tool) => ({ tool, where: safeName(`user:${file.file}`), own: false })),
    ...[...(file.servers.get(server)?.tools.keys() ?? [])].map((tool) => ({
      tool,
      where: `${safeName(`user:${file.file}`)} ${safeName(`servers.${server}`)}`,
      own: true,
    })),
  ]);
  for (const { tool, where, own } of entries) {
    if (names.has(tool)) continue;
    const variant = byShape.get(shape(tool));
    const typo = variant === undefined ? nearName(tool, listed, own) : undefined;
    if (!own && variant === undefined && typo === undefined) continue;
    const hint =
      variant !== undefined
        ? `, but ${renderUntrusted(variant)} differs from it in case, spacing or Unicode normalization only`
        : typo !== undefined
          ? ` (did you mean ${renderUntrusted(typo)}?)`
          : "";
    out.push(
      `Warning: tool entry ${renderUntrusted(tool)} (${where}) names no tool of server ${renderUntrusted(server)}${hint}: tool names are matched exactly, so its rules apply to no tool of this server`,
    );
  }
  return out;
}

/**
 * The user's `write_params`, `arg_patterns` and `sink_params` of one tool that name an argument its
 * input schema cannot hold: a segment of the path (`files[].path`) that the object schema there does
 * not list, under case folding (the engine reads `Path` for `path`), when the schema admits no other
 * keys (`additionalProperties` true or a schema, `patternProperties`). A free-form object, or a list
 * without `items`, ends the check (the argument may exist).
 *
 * Source: SPEC §2.4, §2.5.
 * @param rules - The tool's rules as the gate decides them.
 * @param definition - The tool's pinned definition.
 * @returns The warnings, each starting `Warning: `.
 */
export function schemaArgumentWarnings(rules: ToolRules, definition: ToolDefinition): string[] {
  const schema = definition.inputSchema;
  if (!isJsonObject(schema)) return [];
  const named: { key: string; path: string; from: Sourced<unknown>; effect: string }[] = [];
  const { writeParams, argPatterns } = rules;
  if (writeParams !== undefined && isUser(writeParams)) {
    for (const path of writeParams.value) {
      named.push({ key: "write_params", path, from: writeParams, effect: "no path is confined through it" });
    }
  }
  if (argPatterns !== undefined && isUser(argPatterns)) {
    for (const path of argPatterns.value.keys()) {
      named.push({ key: "arg_patterns", path, from: argPatterns, effect: "its pattern checks nothing" });
    }
  }
  for (const sink of rules.sinkParams) {
    if (isUser(sink)) {
      named.push({ key: "sink_params", path: sink.value, from: sink, effect: "it declares no destination" });
    }
  }
  const out: string[] = [];
  for (const { key, path, from, effect } of named) {
    const miss = missingSegment(schema, path);
    if (miss === undefined) continue;
    const at =
      miss.parent === "" ? "its input schema" : `${renderUntrusted(miss.parent)} in its input schema`;
    const lists = [...miss.listed];
    const shown = lists.slice(0, MAX_SHOWN).map((name) => renderUntrusted(name));
    const more = lists.length > MAX_SHOWN ? `, … (${lists.length} in all)` : "";
    const near = closestKey(miss.segment, lists);
    const mean = near === undefined ? "" : `; did you mean ${renderUntrusted(near)}?`;
    const listing = lists.length === 0 ? "it lists no property" : `it lists ${shown.join(", ")}${more}`;
    out.push(
      `Warning: ${safeName(rules.tool)}: ${key} ${renderUntrusted(path)} (${layerText(from)}) names no argument of ${at} (${listing}${mean}), so ${effect}`,
    );
  }
  return out;
}

/** Where the first segment of a path that the schema cannot hold is. */
interface MissingSegment {
  /** The path up to it (`files[]`), empty at the top level. */
  readonly parent: string;
  /** The segment's key as written. */
  readonly segment: string;
  /** The keys the schema lists there. */
  readonly listed: readonly string[];
}

function missingSegment(root: JsonObject, path: string): MissingSegment | undefined {
  const top = listedProperties(root, root);
  // The engine reads an argument whose own name holds the dots by that name too.
  if (top === undefined || hasFolded(top, path)) return undefined;
  let node: JsonValue | undefined = root;
  let parent = "";
  for (const raw of path.split(".")) {
    const key = raw.replace(/(?:\[\])+$/u, "");
    const listed = listedProperties(root, node);
    if (listed === undefined || admitsUnlistedKeys(root, node)) return undefined;
    const found = foldedKey(listed, key);
    if (found === undefined) return { parent, segment: key, listed: [...listed.keys()] };
    node = listed.get(found);
    for (let lists = (raw.length - key.length) / 2; lists > 0; lists -= 1) {
      node = itemsOf(root, node);
      if (node === undefined) return undefined;
    }
    parent = parent === "" ? raw : `${parent}.${raw}`;
  }
  return undefined;
}

function foldedKey(listed: ReadonlyMap<string, JsonValue>, key: string): string | undefined {
  if (listed.has(key)) return key;
  const folded = foldKey(key);
  for (const name of listed.keys()) if (foldKey(name) === folded) return name;
  return undefined;
}

function hasFolded(listed: ReadonlyMap<string, JsonValue>, key: string): boolean {
  return foldedKey(listed, key) !== undefined;
}

/** A name's shape for the case-and-spacing comparison: trimmed, lower-cased, inner whitespace as one space. */
function shape(name: string): string {
  return name.normalize("NFC").trim().replace(/\s+/gu, " ").toLowerCase();
}

/**
 * A listed tool one edit from the entry (top level), or as close as a key typo (`servers.<name>`),
 * comparing at most {@link MAX_COMPARED} names of similar length.
 */
function nearName(tool: string, listed: readonly string[], own: boolean): string | undefined {
  if (tool.length > MAX_COMPARED_LENGTH) return undefined;
  const limit = own ? Math.max(2, Math.floor(tool.length / 3)) : 1;
  const close = listed
    .filter((name) => name.length <= MAX_COMPARED_LENGTH && Math.abs(name.length - tool.length) <= limit)
    .slice(0, MAX_COMPARED);
  if (own) return closestKey(tool, close);
  return tool.length < 4 ? undefined : close.find((name) => editDistance(tool, name) <= 1);
}

function isUser(from: Sourced<unknown>): boolean {
  return from.source.startsWith("user:");
}
