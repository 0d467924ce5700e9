/**
 * Reads a JSON or JSONC client config (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Zed,
 * Gemini CLI, Cline) into server entries, with `jsonc-parser`'s syntax tree so that every later edit
 * is a text range: comments, key order, indentation, tabs, trailing commas and the final newline are
 * never re-serialised. Commented-out servers are not in the tree, so they are never touched. Pure.
 *
 * Source: SPEC §5.2, field cases F12 (JSONC), F13 (rewriters that broke configs).
 * @module
 */

import { type Node, type ParseError, parseTree, stripComments } from "jsonc-parser";
import { STASH_KEY } from "../proxy/config-stash.ts";
import { ConfigSyntaxError, lineColumn } from "./config-syntax-error.ts";
import { classifyEntry, type EntryFields, type EntryShape } from "./entry-shape.ts";
import { jsonEditMakers } from "./json-edits.ts";
import {
  assertUniqueKeys,
  describeError,
  MAX_DEPTH,
  nodeValue,
  propertyMap,
  tooDeepAt,
} from "./json-tree.ts";
import { jsonSecretSpans } from "./leaf-secrets.ts";
import { isSecretArg, secretArgSpans } from "./secret-args.ts";
import { outside } from "./secrets.ts";
import type { ConfigEntry, ConfigFormat, ParsedConfig, Span } from "./types.ts";

/** Where a JSON client keeps its servers. */
export interface JsonSections {
  /** Top-level keys holding servers, e.g. `["mcpServers"]`. */
  readonly keys: readonly string[];
  /** Also read `projects.<path>.mcpServers` (Claude Code's `~/.claude.json`). */
  readonly projects: boolean;
}

/** The syntax-tree nodes of one entry, for the edit makers. */
export interface JsonHandle {
  readonly entry: Node;
  readonly holder: Node;
  readonly command: Node;
  readonly args?: Node;
  readonly stash?: Node;
}

/**
 * Parses a JSON/JSONC client config into entries.
 *
 * Source: SPEC §5.2.
 * @param text - The file's text (without a byte-order mark).
 * @param options - The format (for the record) and where the servers are.
 * @returns The parsed config with its edit makers.
 * @throws {ConfigSyntaxError} When the text is empty or only comments (`the file is empty`), does
 *   not parse (line:column), nests more than 1,000 levels
 *   deep, the top level is not an object, or a server section or entry has a duplicate key.
 */
export function readJsonConfig(
  text: string,
  options: { readonly format: ConfigFormat; readonly sections: JsonSections },
): ParsedConfig {
  const deep = tooDeepAt(text);
  if (deep !== undefined) {
    throw new ConfigSyntaxError(`values nest more than ${MAX_DEPTH} levels deep`, lineColumn(text, deep));
  }
  // Nothing but white space (or comments): "value expected" at line 1 would not say what is wrong.
  if (/^\s*(?:$|\/[/*])/.test(text) && stripComments(text).trim() === "") {
    const detail = text.trim() === "" ? "the file is empty" : "the file holds only comments, no settings";
    throw new ConfigSyntaxError(detail, { line: 1, column: 1, whole: true });
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const error = errors[0];
  if (error !== undefined) throw new ConfigSyntaxError(describeError(error), lineColumn(text, error.offset));
  if (root === undefined || root.type !== "object") {
    throw new ConfigSyntaxError("the top level is not an object", lineColumn(text, root?.offset ?? 0));
  }
  assertUniqueKeys(text, root);
  const handles = new Map<ConfigEntry, JsonHandle>();
  const entries: ConfigEntry[] = [];
  const secretSpans: Span[] = [];
  const sections: string[][] = [];
  const found = findSections(text, root, options.sections);
  for (const [scope, node] of found) {
    // `"mcpServers": null` holds no servers and is no section either (SPEC §5.2: say so, exit 2).
    if (node.type === "null") continue;
    // A list or a scalar where the client's servers belong: not "no servers" (nothing would be
    // wrapped). With several candidate keys (a file of unknown client) it may be some other key
    // (a `servers` list of another tool), unless no candidate holds servers at all.
    if (node.type !== "object" && options.sections.keys.length > 1) continue;
    sections.push(scope);
    if (node.type !== "object") throw notAnObject(text, scope, node);
    assertUniqueKeys(text, node);
    const projectPath = scope.length === 3 ? scope[1] : undefined;
    for (const property of node.children ?? []) {
      const read = readEntry(text, property, { scope, project: projectPath });
      if (read === undefined) continue;
      entries.push(read.entry);
      secretSpans.push(...read.secrets);
      if (read.handle !== undefined) handles.set(read.entry, read.handle);
    }
  }
  const wrong = found.find(([, node]) => node.type !== "object" && node.type !== "null");
  if (sections.length === 0 && wrong !== undefined) throw notAnObject(text, wrong[0], wrong[1]);
  // Secrets elsewhere in the file (an OAuth token of the client, a remote server's URL key) show in
  // the diff's context lines: masked too.
  secretSpans.push(...outside(jsonSecretSpans(root, sections), secretSpans));
  const makers = jsonEditMakers(text, handles);
  return { format: options.format, sections, entries, secretSpans, value: nodeValue(root), ...makers };
}

/**
 * The error for a server section that is a list or a scalar.
 * @param text - The config text.
 * @param scope - The section's path.
 * @param node - Its value.
 * @returns The error (line and column of the value).
 */
function notAnObject(text: string, scope: readonly string[], node: Node): ConfigSyntaxError {
  const kind = node.type === "array" ? "a list" : `a ${node.type}`;
  return new ConfigSyntaxError(
    `"${scope.join(".")}" is not an object of servers (it is ${kind})`,
    lineColumn(text, node.offset),
  );
}

/**
 * The server sections of a document: each configured top-level key, and for Claude Code's user file
 * every `projects.<path>.mcpServers`.
 * @param text - The config text.
 * @param root - The document's object node.
 * @param sections - Where to look.
 * @returns Pairs of scope path and the section's node.
 */
function findSections(text: string, root: Node, sections: JsonSections): [string[], Node][] {
  const found: [string[], Node][] = [];
  const top = propertyMap(root);
  for (const key of sections.keys) {
    const node = top.get(key)?.children?.[1];
    if (node !== undefined) found.push([[key], node]);
  }
  const projects = sections.projects ? top.get("projects")?.children?.[1] : undefined;
  if (projects?.type === "object") {
    assertUniqueKeys(text, projects);
    for (const project of projects.children ?? []) {
      const [key, value] = project.children ?? [];
      if (typeof key?.value !== "string" || value?.type !== "object") continue;
      assertUniqueKeys(text, value);
      const servers = propertyMap(value).get("mcpServers")?.children?.[1];
      if (servers !== undefined) found.push([["projects", key.value, "mcpServers"], servers]);
    }
  }
  return found;
}

/**
 * Reads one property of a server section.
 * @param text - The config text.
 * @param property - The property node (`"name": {...}`).
 * @param where - The section's path, and the project path for `~/.claude.json` project sections.
 * @returns The entry, its secret ranges and (for stdio and wrapped entries) its nodes.
 */
function readEntry(
  text: string,
  property: Node,
  where: { readonly scope: readonly string[]; readonly project: string | undefined },
): { entry: ConfigEntry; secrets: Span[]; handle?: JsonHandle } | undefined {
  const { scope, project } = where;
  const [keyNode, valueNode] = property.children ?? [];
  if (typeof keyNode?.value !== "string" || valueNode === undefined) return undefined;
  const name = keyNode.value;
  const label = project === undefined ? name : `${name} (project "${project}")`;
  const span = { start: property.offset, end: property.offset + property.length };
  if (valueNode.type === "object") assertUniqueKeys(text, valueNode);
  const props = valueNode.type === "object" ? propertyMap(valueNode) : new Map<string, Node>();
  const commandValue = props.get("command")?.children?.[1];
  const nested = commandValue?.type === "object";
  if (nested) assertUniqueKeys(text, commandValue);
  const holder = nested ? commandValue : valueNode;
  const holderProps = nested ? propertyMap(commandValue) : props;
  const shape: EntryShape = {
    isObject: valueNode.type === "object",
    fields: fieldsOf(props, { holderProps, nested }),
    nested,
  };
  const entry = classifyEntry(name, { scope, label, span, shape });
  const secrets = secretSpansOf(text, { props, holderProps });
  const commandNode = nested ? holderProps.get("path")?.children?.[1] : commandValue;
  if ((entry.kind !== "stdio" && entry.kind !== "wrapped") || commandNode === undefined) {
    return { entry, secrets };
  }
  const args = holderProps.get("args");
  const stash = props.get(STASH_KEY);
  const handle: JsonHandle = {
    entry: valueNode,
    holder,
    command: commandNode,
    ...(args === undefined ? {} : { args }),
    ...(stash === undefined ? {} : { stash }),
  };
  return { entry, secrets, handle };
}

/**
 * The decoded fields classification needs, read from the entry and (for Zed's nested shape) its
 * `command` object.
 * @param props - The entry's properties.
 * @param shape - The properties of the object holding command/args/env, and whether the entry uses
 *   Zed's nested shape.
 * @returns The fields as plain values.
 */
function fieldsOf(
  props: Map<string, Node>,
  shape: { readonly holderProps: Map<string, Node>; readonly nested: boolean },
): EntryFields {
  const { holderProps, nested } = shape;
  const value = (map: Map<string, Node>, key: string): unknown => {
    const node = map.get(key)?.children?.[1];
    return node === undefined ? undefined : nodeValue(node);
  };
  return {
    command: nested ? value(holderProps, "path") : value(props, "command"),
    commandPresent: props.has("command"),
    args: value(holderProps, "args"),
    argsPresent: holderProps.has("args"),
    env: value(holderProps, "env") ?? value(props, "env"),
    cwd: value(props, "cwd"),
    type: value(props, "type"),
    urls: ["url", "serverUrl", "httpUrl"].filter((key) => props.has(key)).map((key) => value(props, key)),
    stash: value(props, STASH_KEY),
    stashPresent: props.has(STASH_KEY),
  };
}

/**
 * Ranges of secret values in an entry: every `env` and `headers` value, and values after
 * secret-named flags in `args`.
 * @param text - The config text.
 * @param maps - The entry's properties and the properties holding command/args/env.
 * @returns The ranges.
 */
function secretSpansOf(
  text: string,
  maps: { readonly props: Map<string, Node>; readonly holderProps: Map<string, Node> },
): Span[] {
  const { props, holderProps } = maps;
  const spans: Span[] = [];
  for (const map of new Set([props, holderProps])) {
    for (const key of ["env", "headers", "http_headers"]) {
      const node = map.get(key)?.children?.[1];
      for (const property of node?.type === "object" ? (node.children ?? []) : []) {
        const value = property.children?.[1];
        if (value !== undefined) spans.push({ start: value.offset, end: value.offset + value.length });
      }
    }
  }
  const command = holderProps.get("command")?.children?.[1];
  const args = holderProps.get("args")?.children?.[1];
  if (args?.type === "array") {
    const items = (args.children ?? []).map((item) => ({
      value: item.value,
      span: { start: item.offset, end: item.offset + item.length },
    }));
    // The program the arguments are given to (`-u bob:…` is curl's).
    const program = command?.type === "string" ? String(command.value) : undefined;
    spans.push(...secretArgSpans(items, program === undefined ? {} : { command: program }));
  }
  // The command too (`env API_KEY=… npx …` in one string).
  if (command?.type === "string" && isSecretArg(String(command.value))) {
    spans.push({ start: command.offset, end: command.offset + command.length });
  }
  return spans.filter((span) => span.end <= text.length);
}
