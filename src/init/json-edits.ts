/**
 * The text edits that wrap and unwrap one JSON/JSONC entry. Wrapping replaces the `command` value's
 * literal (the node `jsonc-parser` found), puts Bouncer's arguments and the original command literal in front
 * of the existing `args` elements (or adds `"args": [ ... ]` when there were none), and adds the
 * `x-bouncer-upstream` stash where the client tolerates it. Unwrapping deletes exactly that text again,
 * so an entry nobody touched comes back byte for byte; an entry edited since keeps those edits. Pure.
 *
 * Source: SPEC §5.2.
 * @module
 */

import type { Node } from "jsonc-parser";
import { STASH_KEY } from "../proxy/config-stash.ts";
import {
  type ArrayShape,
  inlineArray,
  insertIntoArray,
  propertySeparator,
  removeFromArray,
} from "./array-edits.ts";
import type { JsonHandle } from "./json-config.ts";
import type { Assignment, ConfigEntry, Edit, EntryEdits, Stash, WrapSpec } from "./types.ts";
import { wrapperArgs } from "./wrapped-args.ts";

/**
 * Binds the edit makers to one document.
 *
 * Source: SPEC §5.2.
 * @param text - The config text the handles point into.
 * @param handles - Syntax-tree nodes of each wrappable or wrapped entry.
 * @returns `wrapEdits` and `unwrapEdits` for {@link ParsedConfig}.
 */
export function jsonEditMakers(
  text: string,
  handles: ReadonlyMap<ConfigEntry, JsonHandle>,
): {
  wrapEdits: (entry: ConfigEntry, spec: WrapSpec) => EntryEdits;
  unwrapEdits: (entry: ConfigEntry) => EntryEdits;
} {
  const handleOf = (entry: ConfigEntry): JsonHandle => {
    const handle = handles.get(entry);
    if (handle === undefined)
      throw new TypeError(`Cannot edit server "${entry.label}": it is not a stdio entry`);
    return handle;
  };
  return {
    wrapEdits: (entry, spec) => wrapJsonEntry(text, { entry, handle: handleOf(entry), spec }),
    unwrapEdits: (entry) => unwrapJsonEntry(text, { entry, handle: handleOf(entry) }),
  };
}

/**
 * Edits that wrap a stdio entry.
 * @param text - The config text.
 * @param target - The entry, its nodes and the wrap spec.
 * @returns The edits and the values they set.
 */
function wrapJsonEntry(
  text: string,
  target: { readonly entry: ConfigEntry; readonly handle: JsonHandle; readonly spec: WrapSpec },
): EntryEdits {
  const { entry, handle, spec } = target;
  const command = entry.command ?? "";
  const paths = keyPaths(entry);
  // The command's literal replaced in place (what `modify` without formatting does, without parsing
  // the whole file again for every entry).
  const edits: Edit[] = [
    {
      offset: handle.command.offset,
      length: handle.command.length,
      content: JSON.stringify(spec.launcher.command),
    },
  ];
  const prefix = wrapperArgs(spec.launcher, { name: entry.name, policies: spec.policies });
  const elements = [...prefix.map((arg) => JSON.stringify(arg)), raw(text, handle.command)];
  const assignments: Assignment[] = [
    { path: paths.command, value: spec.launcher.command },
    { path: paths.args, value: [...prefix, command, ...(entry.args ?? [])] },
  ];
  const argsValue = handle.args?.children?.[1];
  const appended = new Map<number, string>();
  const append = (node: Node, content: string): void => {
    const last = node.children?.at(-1);
    if (last === undefined) throw new TypeError(`Cannot edit server "${entry.label}": empty object`);
    const offset = last.offset + last.length;
    appended.set(offset, `${appended.get(offset) ?? ""}${propertySeparator(text, last.offset)}${content}`);
  };
  if (argsValue?.type === "array") edits.push(insertIntoArray(text, { shape: shapeOf(argsValue), elements }));
  else append(handle.holder, `"args": ${inlineArray(elements)}`);
  if (spec.stash) {
    const stash: Stash = {
      command,
      args: entry.args ?? [],
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
    };
    const stashValue = handle.stash?.children?.[1];
    if (stashValue === undefined) append(handle.entry, `"${STASH_KEY}": ${stashJson(stash)}`);
    else edits.push({ offset: stashValue.offset, length: stashValue.length, content: stashJson(stash) });
    assignments.push({ path: paths.stash, value: stash });
  }
  for (const [offset, content] of appended) edits.push({ offset, length: 0, content });
  return { edits, assignments };
}

/**
 * Edits that restore a wrapped (`dash` form) entry from its arguments after `--`.
 * @param text - The config text.
 * @param target - The entry and its nodes.
 * @returns The edits and the values they set.
 * @throws {TypeError} When the entry is not wrapped in the `dash` form.
 */
function unwrapJsonEntry(
  text: string,
  target: { readonly entry: ConfigEntry; readonly handle: JsonHandle },
): EntryEdits {
  const { entry, handle } = target;
  const wrapped = entry.wrapped;
  const argsProperty = handle.args;
  const argsValue = argsProperty?.children?.[1];
  if (wrapped?.form !== "dash" || argsProperty === undefined || argsValue?.type !== "array") {
    throw new TypeError(`Cannot restore server "${entry.label}": it is not wrapped with "--"`);
  }
  const items = argsValue.children ?? [];
  const commandIndex = wrapped.dashIndex + 1;
  const commandItem = items[commandIndex];
  if (commandItem === undefined)
    throw new TypeError(`Cannot restore server "${entry.label}": no command after "--"`);
  const paths = keyPaths(entry);
  const edits: Edit[] = [
    { offset: handle.command.offset, length: handle.command.length, content: raw(text, commandItem) },
  ];
  const assignments: Assignment[] = [{ path: paths.command, value: wrapped.command }];
  const addedProperty =
    items.length === commandIndex + 1 ? addedArgsRange(text, { handle, argsProperty }) : undefined;
  if (addedProperty === undefined) {
    edits.push(removeFromArray(text, { shape: shapeOf(argsValue), count: commandIndex + 1 }));
    assignments.push({ path: paths.args, value: wrapped.args });
  } else {
    edits.push(addedProperty);
    assignments.push({ path: paths.args, remove: true });
  }
  if (handle.stash !== undefined) {
    edits.push(propertyRemoval(handle.entry, handle.stash));
    assignments.push({ path: paths.stash, remove: true });
  }
  return { edits, assignments };
}

/**
 * When `args` is exactly what wrapping adds to an entry that had none (`<sep>"args": [ ... ]` after
 * the last other property), the deletion of that text; else undefined.
 * @param text - The config text.
 * @param where - The entry's nodes and its `args` property node.
 * @returns The deletion, or undefined for an `args` that existed before wrapping.
 */
function addedArgsRange(
  text: string,
  where: { readonly handle: JsonHandle; readonly argsProperty: Node },
): Edit | undefined {
  const { handle, argsProperty } = where;
  const siblings = (handle.holder.children ?? []).filter((node) => node !== handle.stash);
  const index = siblings.indexOf(argsProperty);
  const previous = siblings[index - 1];
  if (index !== siblings.length - 1 || previous === undefined) return undefined;
  const items = argsProperty.children?.[1]?.children ?? [];
  const start = previous.offset + previous.length;
  const end = argsProperty.offset + argsProperty.length;
  const expected = `${propertySeparator(text, previous.offset)}"args": ${inlineArray(items.map((item) => raw(text, item)))}`;
  return text.slice(start, end) === expected
    ? { offset: start, length: end - start, content: "" }
    : undefined;
}

/**
 * The deletion of one property with its separator (the one before it, or after it when it is first).
 * @param object - The object node.
 * @param property - The property to delete.
 * @returns The deletion.
 */
function propertyRemoval(object: Node, property: Node): Edit {
  const siblings = object.children ?? [];
  const index = siblings.indexOf(property);
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  const end = property.offset + property.length;
  if (previous !== undefined) {
    const start = previous.offset + previous.length;
    return { offset: start, length: end - start, content: "" };
  }
  return { offset: property.offset, length: (next?.offset ?? end) - property.offset, content: "" };
}

/**
 * The document paths of an entry's command, args and stash (Zed's nested shape keeps command and
 * args inside the `command` object).
 * @param entry - The entry.
 * @returns The three paths.
 */
function keyPaths(entry: ConfigEntry): { command: string[]; args: string[]; stash: string[] } {
  const base = [...entry.scope, entry.name];
  const holder = entry.nested === true ? [...base, "command"] : base;
  return {
    command: entry.nested === true ? [...holder, "path"] : [...holder, "command"],
    args: [...holder, "args"],
    stash: [...base, STASH_KEY],
  };
}

/**
 * The stash as one line of JSON: `{"command": "npx", "args": ["-y", "pkg"], "cwd": "/x"}`.
 * @param stash - The original command, arguments and cwd.
 * @returns JSON text.
 */
function stashJson(stash: Stash): string {
  const args = stash.args.map((arg) => JSON.stringify(arg)).join(", ");
  const cwd = stash.cwd === undefined ? "" : `, "cwd": ${JSON.stringify(stash.cwd)}`;
  return `{"command": ${JSON.stringify(stash.command)}, "args": [${args}]${cwd}}`;
}

/**
 * The array shape of an array node.
 * @param node - An array node.
 * @returns Its brackets and element ranges.
 */
function shapeOf(node: Node): ArrayShape {
  const items = (node.children ?? []).map((item) => ({ start: item.offset, end: item.offset + item.length }));
  return { start: node.offset, end: node.offset + node.length, items };
}

/**
 * The exact source text of a node.
 * @param text - The config text.
 * @param node - Any node.
 * @returns Its literal text.
 */
function raw(text: string, node: Node): string {
  return text.slice(node.offset, node.offset + node.length);
}
