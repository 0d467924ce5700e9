/**
 * Which server entries their client would not start: JSON clients mark one `"disabled": true` (Cline,
 * Windsurf, Roo Code and others), Codex and Zed `enabled = false` / `"enabled": false`. `bouncer
 * doctor` launches each entry "exactly as the client would", so these are listed as disabled, not
 * started. Pure.
 *
 * Source: SPEC §5.3 ("launched exactly as the client would").
 * @module
 */

import type { ConfigEntry, ParsedConfig } from "./types.ts";

/**
 * A reader of the entries of one config that are turned off, from the document `readConfig` parsed
 * (the text is not parsed a second time).
 *
 * Source: SPEC §5.3.
 * @param config - The config as `readConfig` read it (its `value` is the whole document).
 * @returns For an entry: the key that turns it off as written (`"disabled": true`, `enabled =
 *   false`), or undefined when its client would start it.
 */
export function disabledEntries(config: ParsedConfig): (entry: ConfigEntry) => string | undefined {
  const toml = config.format === "toml";
  return (entry) => {
    const value = walk(config.value, [...entry.scope, entry.name]);
    if (!isTable(value)) return undefined;
    if (Object.hasOwn(value, "enabled") && value.enabled === false)
      return toml ? "enabled = false" : '"enabled": false';
    if (Object.hasOwn(value, "disabled") && value.disabled === true)
      return toml ? "disabled = true" : '"disabled": true';
    return undefined;
  };
}

/**
 * Follows own keys from a parsed document (TOML, or JSON with null-prototype objects).
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
 * Whether a parsed value is a table (an object).
 * @param value - Any value.
 * @returns True for a plain object.
 */
function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
