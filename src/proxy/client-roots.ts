/**
 * The directories a client's answer to the upstream's `roots/list` gives it: an upstream such as a
 * filesystem server resolves relative paths against them, so path confinement checks relative values
 * against each (SPEC §2.4, stricter). Edge (a pure reading of one answer).
 *
 * Source: SPEC §2.4 ("relative values … resolved against the upstream's working directory"), MCP
 * `roots/list` (`{ roots: [{ uri, name? }] }`).
 * @module
 */

import { isJsonObject, type JsonValue, member } from "../engine/index.ts";

/** A URI scheme of two or more characters (`C:\x` is a Windows path, not a URI). */
const OTHER_SCHEME = /^[a-z][a-z0-9+.-]+:/iu;

/**
 * The roots of a `roots/list` result that name local directories: every `file:` URI, and every
 * `uri` with no scheme at all (a filesystem server reads a plain path as a directory too), as
 * given; roots of other schemes and malformed entries are left out.
 *
 * Source: SPEC §2.4.
 * @param result - The client's `roots/list` result, as it reaches the upstream.
 * @returns The root URIs or paths, in order, without repeats (empty when there are none).
 * @example clientRootDirs({ roots: [{ uri: "file:///data" }, { uri: "https://x.example" }] }) // ["file:///data"]
 */
export function clientRootDirs(result: JsonValue): string[] {
  const roots = isJsonObject(result) ? member(result, "roots") : undefined;
  if (!Array.isArray(roots)) return [];
  const dirs = new Set<string>();
  for (const root of roots) {
    const uri = isJsonObject(root) ? member(root, "uri") : undefined;
    if (typeof uri !== "string" || uri === "") continue;
    if (/^file:/iu.test(uri) || !OTHER_SCHEME.test(uri)) dirs.add(uri);
  }
  return [...dirs];
}
