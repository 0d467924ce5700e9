/**
 * Which server entries their client would not start: JSON clients mark one `"disabled": true` (Cline,
 * Windsurf, Roo Code and others), Codex and Zed `enabled = false` / `"enabled": false`. `bouncer
 * doctor` launches each entry "exactly as the client would", so these are listed as disabled, not
 * started. Pure.
 *
 * Source: SPEC §5.3 ("launched exactly as the client would").
 * @module
 */

import { findNodeAtLocation, type Node, parseTree } from "jsonc-parser";
import { parse } from "smol-toml";
import type { ClientInfo } from "./client-table.ts";
import { propertyMap } from "./json-tree.ts";
import type { ConfigEntry } from "./types.ts";

/**
 * A reader of the entries of one config text that are turned off.
 *
 * Source: SPEC §5.3.
 * @param text - The config text (already read by `readConfig`, so it parses).
 * @param client - Its client (for the format).
 * @returns For an entry: the key that turns it off as written (`"disabled": true`, `enabled =
 *   false`), or undefined when its client would start it.
 */
export function disabledEntries(
  text: string,
  client: ClientInfo,
): (entry: ConfigEntry) => string | undefined {
  // Most configs have neither word: not parsed a second time.
  if (!/disabled|enabled/.test(text)) return () => undefined;
  if (client.format === "toml") {
    const root: unknown = parse(text);
    return (entry) => {
      const value = walk(root, [...entry.scope, entry.name]);
      if (!isTable(value)) return undefined;
      if (Object.hasOwn(value, "enabled") && value.enabled === false) return "enabled = false";
      if (Object.hasOwn(value, "disabled") && value.disabled === true) return "disabled = true";
      return undefined;
    };
  }
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  return (entry) => {
    const node = root === undefined ? undefined : findNodeAtLocation(root, [...entry.scope, entry.name]);
    if (node?.type !== "object") return undefined;
    const props = propertyMap(node);
    if (booleanAt(props.get("enabled")) === false) return '"enabled": false';
    if (booleanAt(props.get("disabled")) === true) return '"disabled": true';
    return undefined;
  };
}

/**
 * The boolean value of a property node.
 * @param property - A property node, or undefined.
 * @returns Its value when it is a boolean.
 */
function booleanAt(property: Node | undefined): boolean | undefined {
  const value = property?.children?.[1];
  return value?.type === "boolean" ? value.value === true : undefined;
}

/**
 * Follows own keys from a parsed TOML document.
 * @param root - The document.
 * @param keys - The path.
 * @returns The value there, or undefined.
 */
function walk(root: unknown, keys: readonly string[]): unknown {
  let value = root;
  for (const key of keys) {
    if (!isTable(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/**
 * Whether a parsed TOML value is a table.
 * @param value - Any value.
 * @returns True for a plain object.
 */
function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
