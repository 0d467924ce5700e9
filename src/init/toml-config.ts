/**
 * Reads Codex's `config.toml` (`[mcp_servers.NAME]`) into server entries: `smol-toml` validates and
 * decodes the document, the position-keeping scanner of `toml-cst.ts` finds where each entry's
 * `command` and `args` are, and the two are cross-checked before anything may be edited. Tables,
 * dotted keys and inline tables are all understood. Pure.
 *
 * Source: SPEC §5.2 (Codex `config.toml`, `[mcp_servers.NAME]`).
 * @module
 */

import { parse, TomlError } from "smol-toml";
import { STASH_KEY } from "../proxy/config-stash.ts";
import { ConfigSyntaxError, lineColumn } from "./config-syntax-error.ts";
import { classifyEntry, type EntryFields } from "./entry-shape.ts";
import { isSecretLeaf, withoutServerNames } from "./leaf-secrets.ts";
import { isSecretArg, secretArgSpans } from "./secret-args.ts";
import { outside } from "./secrets.ts";
import { scanToml, type TomlKeyValue, type TomlNode } from "./toml-cst.ts";
import { type TomlHandle, tomlEditMakers } from "./toml-edits.ts";
import type { ConfigEntry, ParsedConfig, Span } from "./types.ts";
import { deepEqual } from "./verify-rewrite.ts";

/** The table holding Codex's servers. */
const SECTION = "mcp_servers";

/** One key/value anywhere in the document, with its full path and what holds it. */
interface Leaf {
  readonly path: readonly string[];
  readonly kv: TomlKeyValue;
  /** The inline table holding it, or undefined for a key in a `[table]` (or the root). */
  readonly inline?: TomlNode;
}

/**
 * Parses a Codex `config.toml`.
 *
 * Source: SPEC §5.2.
 * @param text - The file's text (without a byte-order mark).
 * @returns The parsed config with its edit makers.
 * @throws {ConfigSyntaxError} When `smol-toml` rejects the text (with its line and column).
 */
export function readTomlConfig(text: string): ParsedConfig {
  let value: Record<string, unknown>;
  try {
    value = parse(text) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const detail = (error.message.split("\n")[0] ?? "invalid TOML").replace(/^Invalid TOML document: /, "");
    throw new ConfigSyntaxError(detail, { line: error.line, column: error.column });
  }
  const leaves = collectLeaves(text);
  const servers = Object.hasOwn(value, SECTION) ? value[SECTION] : undefined;
  if (servers !== undefined && !isTable(servers)) {
    const at = text.search(new RegExp(`^\\s*(?:${SECTION}\\s*=|\\[\\[\\s*${SECTION}\\s*\\]\\])`, "m"));
    throw new ConfigSyntaxError(`"${SECTION}" is not a table of servers`, lineColumn(text, Math.max(0, at)));
  }
  const handles = new Map<ConfigEntry, TomlHandle>();
  const entries: ConfigEntry[] = [];
  const secretSpans: Span[] = [];
  const names = isTable(servers) ? Object.keys(servers) : [];
  for (const name of names) {
    const own = leaves.filter((leaf) => leaf.path[0] === SECTION && leaf.path[1] === name);
    const server = Reflect.get(servers as object, name);
    const read = readServer(text, { name, server, own });
    entries.push(read.entry);
    secretSpans.push(...read.secrets);
    if (read.handle !== undefined) handles.set(read.entry, read.handle);
  }
  // Secrets elsewhere in the file (a model provider's bearer token) show in the diff's context lines.
  secretSpans.push(...outside(fileSecretSpans(text, leaves), secretSpans));
  return {
    format: "toml",
    sections: servers === undefined ? [] : [[SECTION]],
    entries,
    secretSpans,
    value,
    ...tomlEditMakers(text, handles),
  };
}

/**
 * Reads one server.
 * @param text - The config text.
 * @param server - Its name, decoded value and the key/values under it.
 * @returns The entry, its secret ranges and (for stdio and wrapped entries) where it is.
 */
function readServer(
  text: string,
  server: { readonly name: string; readonly server: unknown; readonly own: readonly Leaf[] },
): { entry: ConfigEntry; secrets: Span[]; handle?: TomlHandle } {
  const { name, own } = server;
  const table = isTable(server.server) ? server.server : undefined;
  const get = (key: string): unknown =>
    table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
  const has = (key: string): boolean => table !== undefined && Object.hasOwn(table, key);
  const fields: EntryFields = {
    command: get("command"),
    commandPresent: has("command"),
    args: get("args"),
    argsPresent: has("args"),
    env: get("env"),
    cwd: get("cwd"),
    type: get("type"),
    urls: has("url") ? [get("url")] : [],
    stash: get(STASH_KEY),
    stashPresent: has(STASH_KEY),
  };
  const span = spanOf(own);
  let entry = classifyEntry(name, {
    scope: [SECTION],
    label: name,
    span,
    shape: { isObject: table !== undefined, fields, nested: false },
  });
  const secrets = secretSpansOf(text, own);
  const field = (key: string): Leaf | undefined =>
    own.find((leaf) => leaf.path.length === 3 && leaf.path[2] === key);
  const command = field("command");
  const args = field("args");
  if (entry.kind !== "stdio" && entry.kind !== "wrapped") return { entry, secrets };
  const located =
    command !== undefined &&
    deepEqual(decodeValue(text, command.kv.value), fields.command) &&
    (args === undefined || deepEqual(decodeValue(text, args.kv.value), fields.args));
  if (!located || command === undefined) {
    entry = { ...entry, kind: "unsupported", reason: "its command could not be located in the text" };
    return { entry, secrets };
  }
  const handle: TomlHandle = {
    command: command.kv,
    ...(command.inline === undefined ? {} : { inline: command.inline }),
    ...(args === undefined ? {} : { args: args.kv }),
  };
  return { entry, secrets, handle };
}

/**
 * Every key/value of the document with its full path (table path + dotted key, and into inline
 * tables).
 * @param text - The config text.
 * @returns The leaves.
 */
function collectLeaves(text: string): Leaf[] {
  const leaves: Leaf[] = [];
  const visit = (prefix: readonly string[], kv: TomlKeyValue, inline: TomlNode | undefined): void => {
    const path = [...prefix, ...kv.key.parts];
    leaves.push({ path, kv, ...(inline === undefined ? {} : { inline }) });
    if (kv.value.kind === "table") for (const child of kv.value.entries) visit(path, child, kv.value);
  };
  for (const table of scanToml(text)) {
    if (table.array) continue;
    for (const kv of table.entries) visit(table.path, kv, undefined);
  }
  return leaves;
}

/**
 * Secret ranges anywhere in a TOML config ({@link isSecretLeaf}: under a secret-named key at any
 * depth, numbers included; an array's items inherit its key).
 *
 * Source: SPEC §5.2 ("A unified diff is shown with secrets masked"), field case F11.
 * @param text - The config text.
 * @param leaves - Every key/value of the file.
 * @returns The ranges.
 */
function fileSecretSpans(text: string, leaves: readonly Leaf[]): Span[] {
  const spans: Span[] = [];
  for (const leaf of leaves) {
    const value = leaf.kv.value;
    const strings = value.kind === "array" ? value.items : [value];
    for (const item of strings) {
      if (item.kind !== "string" && item.kind !== "scalar") continue;
      // A bare number is a secret only by its key (its value does not matter, only that it is one).
      const raw = text.slice(item.start, item.end);
      const decoded = item.kind === "string" ? decodeValue(text, item) : /^[+-]?\d/.test(raw) ? 0 : undefined;
      if (isSecretLeaf(withoutServerNames(leaf.path, [[SECTION]]), decoded))
        spans.push({ start: item.start, end: item.end });
    }
  }
  return spans;
}

/**
 * Secret ranges of one server: `env`, `http_headers` and `bearer_token` values, values after
 * secret-named flags in `args`, and `args` elements or a `command` that hold a secret themselves.
 * @param text - The config text.
 * @param own - The server's leaves.
 * @returns The ranges.
 */
function secretSpansOf(text: string, own: readonly Leaf[]): Span[] {
  const spans: Span[] = [];
  // The program the arguments are given to (`-u bob:…` is curl's).
  const commandLeaf = own.find(
    (leaf) => leaf.path[2] === "command" && leaf.path.length === 3 && leaf.kv.value.kind === "string",
  );
  const command = commandLeaf === undefined ? undefined : String(decodeValue(text, commandLeaf.kv.value));
  for (const leaf of own) {
    const key = leaf.path[2];
    const value = { start: leaf.kv.value.start, end: leaf.kv.value.end };
    if ((key === "env" || key === "http_headers") && leaf.path.length >= 3) spans.push(value);
    if (key === "bearer_token" && leaf.path.length === 3) spans.push(value);
    if (key === "args" && leaf.path.length === 3 && leaf.kv.value.kind === "array") {
      const items = leaf.kv.value.items.map((item) => ({
        value: item.kind === "string" ? decodeValue(text, item) : undefined,
        span: { start: item.start, end: item.end },
      }));
      spans.push(...secretArgSpans(items, command === undefined ? {} : { command }));
    }
    // The command too (`env API_KEY=… npx …` in one string).
    if (key === "command" && leaf.path.length === 3 && leaf.kv.value.kind === "string") {
      if (isSecretArg(String(decodeValue(text, leaf.kv.value)))) spans.push(value);
    }
  }
  return spans;
}

/**
 * The range from the first to the last key/value line of a server.
 * @param own - The server's leaves.
 * @returns The range (empty when there are none).
 */
function spanOf(own: readonly Leaf[]): Span {
  const starts = own.map((leaf) => (leaf.kv.lineStart >= 0 ? leaf.kv.lineStart : leaf.kv.key.start));
  const ends = own.map((leaf) => (leaf.kv.lineEnd >= 0 ? leaf.kv.lineEnd : leaf.kv.value.end));
  return { start: Math.min(...starts, Number.MAX_SAFE_INTEGER), end: Math.max(...ends, 0) };
}

/**
 * Decodes a value's source text with smol-toml.
 * @param text - The config text.
 * @param node - A value node.
 * @returns The decoded value.
 */
function decodeValue(text: string, node: TomlNode): unknown {
  return parse(`v = ${text.slice(node.start, node.end)}`).v;
}

/**
 * Whether a decoded TOML value is a table.
 * @param value - Anything.
 * @returns True for a (null-prototype) object that is not an array or a date.
 */
function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
