/**
 * Which values of a client config are secrets wherever they stand, so the diff `init` shows masks
 * them in its unchanged lines too: anything under a secret-named key (at any depth: `"credentials":
 * {"github": "…"}`, numbers included), and any string that holds a secret itself. Pure.
 *
 * Source: SPEC §5.2 ("A unified diff is shown with secrets masked"), field case F11.
 * @module
 */

import type { Node } from "jsonc-parser";
import { isSecretArg } from "./secret-args.ts";
import { isPlaceholder, isSecretName } from "./secrets.ts";
import type { Span } from "./types.ts";

/**
 * Whether one value of a config is a secret: a literal string or number with a secret-named key on
 * its path (a list inherits its key), or a string that holds a secret itself ({@link isSecretArg}: a
 * token shape, a URL's password or secret query parameter, `NAME=value`).
 *
 * Source: SPEC §5.2, field case F11.
 * @param keys - The keys on the path to the value, outermost first, without the names of servers
 *   (a server named `auth` does not make its command a secret: {@link withoutServerNames}).
 * @param value - The value (strings and numbers; anything else is no secret).
 * @returns True when it is to be masked.
 */
export function isSecretLeaf(keys: readonly string[], value: unknown): boolean {
  const named = keys.some((key) => isSecretName(key));
  return secretByName(named, value);
}

function secretByName(named: boolean, value: unknown): boolean {
  if (typeof value === "number") return named;
  if (typeof value !== "string") return false;
  return (named && !isPlaceholder(value)) || isSecretArg(value);
}

/**
 * A value's path without the server name in it: the key right after a server section
 * (`mcpServers.auth.command` → `mcpServers`, `command`).
 *
 * Source: SPEC §5.2, field case F11.
 * @param keys - The path.
 * @param sections - The config's server sections, as key paths (`["mcpServers"]`, `["mcp_servers"]`).
 * @returns The path to judge by name.
 */
export function withoutServerNames(
  keys: readonly string[],
  sections: readonly (readonly string[])[],
): string[] {
  return serverNameStripper(sections)(keys);
}

/**
 * {@link withoutServerNames} for many paths against one list of sections: the sections are indexed
 * once, so each path costs a look-up per distinct section depth, not a comparison with every
 * section. `~/.claude.json` has a section per project (`projects.<path>.mcpServers`, thousands of
 * them) and tens of values per project: compared one by one, planning took minutes.
 *
 * Source: SPEC §5.2, field case F11; the review of a `~/.claude.json` of 20,000 projects.
 * @param sections - The config's server sections, as key paths.
 * @returns A function from a path to the path to judge by name (the first section, in the order
 *   given, that the path runs through loses its server name).
 */
export function serverNameStripper(
  sections: readonly (readonly string[])[],
): (keys: readonly string[]) => string[] {
  const index = new Map<string, number>();
  const depths = new Set<number>();
  for (const [order, section] of sections.entries()) {
    const key = JSON.stringify(section);
    if (!index.has(key)) index.set(key, order);
    depths.add(section.length);
  }
  return (keys) => {
    let best: { readonly order: number; readonly depth: number } | undefined;
    for (const depth of depths) {
      if (keys.length <= depth) continue;
      const order = index.get(JSON.stringify(keys.slice(0, depth)));
      if (order !== undefined && (best === undefined || order < best.order)) best = { order, depth };
    }
    if (best === undefined) return [...keys];
    return [...keys.slice(0, best.depth), ...keys.slice(best.depth + 1)];
  };
}

/**
 * Ranges of secrets anywhere in a parsed JSON config ({@link isSecretLeaf}).
 *
 * Source: SPEC §5.2, field case F11.
 * @param root - The parsed file (`jsonc-parser`).
 * @param sections - Its server sections (their server names are no secret names).
 * @returns The ranges.
 */
export function jsonSecretSpans(root: Node, sections: readonly (readonly string[])[]): Span[] {
  const spans: Span[] = [];
  const strip = serverNameStripper(sections);
  const stack: { readonly node: Node; readonly keys: readonly string[] }[] = [{ node: root, keys: [] }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { node, keys } = item;
    if (node.type === "object") {
      for (const property of node.children ?? []) {
        const [name, value] = property.children ?? [];
        if (name !== undefined && value !== undefined)
          stack.push({ node: value, keys: [...keys, String(name.value)] });
      }
    } else if (node.type === "array") {
      for (const child of node.children ?? []) stack.push({ node: child, keys });
    } else if (isSecretLeaf(strip(keys), node.value)) {
      spans.push({ start: node.offset, end: node.offset + node.length });
    }
  }
  return spans;
}
