/**
 * The text edits that wrap and unwrap one Codex `[mcp_servers.NAME]` entry, in place: the `command`
 * value is replaced, Bouncer's arguments and the original command literal go in front of the existing
 * `args` elements, or a line `args = [ ... ]` is added under `command` (or `, args = [ ... ]` inside an
 * inline table) when there was none. Unwrapping deletes exactly that text. Codex gets no stash (see
 * `client-table.ts`). Pure.
 *
 * Source: SPEC §5.2.
 * @module
 */

import { type ArrayShape, inlineArray, insertIntoArray, removeFromArray } from "./array-edits.ts";
import type { TomlKeyValue, TomlNode } from "./toml-cst.ts";
import { tomlString } from "./toml-string.ts";
import type { Assignment, ConfigEntry, Edit, EntryEdits, WrapSpec } from "./types.ts";
import { wrapperArgs } from "./wrapped-args.ts";

/** Where one entry's command and args are. */
export interface TomlHandle {
  readonly command: TomlKeyValue;
  /** The inline table holding `command`, if it is in one. */
  readonly inline?: TomlNode;
  readonly args?: TomlKeyValue;
}

/**
 * Binds the edit makers to one document.
 *
 * Source: SPEC §5.2.
 * @param text - The config text the handles point into.
 * @param handles - Where each wrappable or wrapped entry is.
 * @returns `wrapEdits` and `unwrapEdits` for {@link ParsedConfig}.
 */
export function tomlEditMakers(
  text: string,
  handles: ReadonlyMap<ConfigEntry, TomlHandle>,
): {
  wrapEdits: (entry: ConfigEntry, spec: WrapSpec) => EntryEdits;
  unwrapEdits: (entry: ConfigEntry) => EntryEdits;
} {
  const handleOf = (entry: ConfigEntry): TomlHandle => {
    const handle = handles.get(entry);
    if (handle === undefined)
      throw new TypeError(`Cannot edit server "${entry.label}": it is not a stdio entry`);
    return handle;
  };
  return {
    wrapEdits: (entry, spec) => wrapTomlEntry(text, { entry, handle: handleOf(entry), spec }),
    unwrapEdits: (entry) => unwrapTomlEntry(text, { entry, handle: handleOf(entry) }),
  };
}

/**
 * Edits that wrap a stdio entry.
 * @param text - The config text.
 * @param target - The entry, where it is, and the wrap spec.
 * @returns The edits and the values they set.
 */
function wrapTomlEntry(
  text: string,
  target: { readonly entry: ConfigEntry; readonly handle: TomlHandle; readonly spec: WrapSpec },
): EntryEdits {
  const { entry, handle, spec } = target;
  const command = handle.command;
  const prefix = wrapperArgs(spec.launcher, { name: entry.name, policies: spec.policies });
  const elements = [...prefix.map(tomlString), raw(text, command.value)];
  const base = [...entry.scope, entry.name];
  const edits: Edit[] = [
    {
      offset: command.value.start,
      length: command.value.end - command.value.start,
      content: tomlString(spec.launcher.command),
    },
  ];
  const args = handle.args?.value;
  if (args?.kind === "array") edits.push(insertIntoArray(text, { shape: shapeOf(args), elements }));
  else if (handle.inline !== undefined) {
    edits.push({ offset: command.value.end, length: 0, content: `, args = ${inlineArray(elements)}` });
  } else {
    edits.push({ offset: command.lineEnd, length: 0, content: addedArgsLine(text, { command, elements }) });
  }
  const assignments: Assignment[] = [
    { path: [...base, "command"], value: spec.launcher.command },
    { path: [...base, "args"], value: [...prefix, entry.command ?? "", ...(entry.args ?? [])] },
  ];
  return { edits, assignments };
}

/**
 * Edits that restore a wrapped (`dash` form) entry from its arguments after `--`.
 * @param text - The config text.
 * @param target - The entry and where it is.
 * @returns The edits and the values they set.
 * @throws {TypeError} When the entry is not wrapped in the `dash` form.
 */
function unwrapTomlEntry(
  text: string,
  target: { readonly entry: ConfigEntry; readonly handle: TomlHandle },
): EntryEdits {
  const { entry, handle } = target;
  const wrapped = entry.wrapped;
  const args = handle.args;
  if (wrapped?.form !== "dash" || args === undefined || args.value.kind !== "array") {
    throw new TypeError(`Cannot restore server "${entry.label}": it is not wrapped with "--"`);
  }
  const items = args.value.items;
  const commandIndex = wrapped.dashIndex + 1;
  const commandItem = items[commandIndex];
  if (commandItem === undefined)
    throw new TypeError(`Cannot restore server "${entry.label}": no command after "--"`);
  const command = handle.command;
  const base = [...entry.scope, entry.name];
  const edits: Edit[] = [
    {
      offset: command.value.start,
      length: command.value.end - command.value.start,
      content: raw(text, commandItem),
    },
  ];
  const assignments: Assignment[] = [{ path: [...base, "command"], value: wrapped.command }];
  const added = items.length === commandIndex + 1 ? addedArgsRange(text, { handle, args }) : undefined;
  if (added === undefined) {
    edits.push(removeFromArray(text, { shape: shapeOf(args.value), count: commandIndex + 1 }));
    assignments.push({ path: [...base, "args"], value: wrapped.args });
  } else {
    edits.push(added);
    assignments.push({ path: [...base, "args"], remove: true });
  }
  return { edits, assignments };
}

/**
 * The line wrapping adds under `command` when there was no `args`: line break, the command line's
 * indentation and dotted-key prefix, then `args = [ ... ]`.
 * @param text - The config text.
 * @param line - The `command` key/value and the encoded literals.
 * @returns The text to insert at the end of the command line.
 */
function addedArgsLine(
  text: string,
  line: { readonly command: TomlKeyValue; readonly elements: readonly string[] },
): string {
  const { command, elements } = line;
  const eol =
    text.startsWith("\r\n", command.lineEnd) ||
    (!text.includes("\n", command.lineEnd) && text.includes("\r\n"))
      ? "\r\n"
      : "\n";
  const indent = text.slice(command.lineStart, command.key.start);
  const lastPart = command.key.partSpans.at(-1) ?? command.key;
  const keyPrefix = text.slice(command.key.start, lastPart.start);
  return `${eol}${indent}${keyPrefix}args = ${inlineArray(elements)}`;
}

/**
 * When `args` is exactly what wrapping adds to an entry that had none, the deletion of that text.
 * @param text - The config text.
 * @param where - Where the entry is, and its `args` key/value.
 * @returns The deletion, or undefined for an `args` that existed before wrapping.
 */
function addedArgsRange(
  text: string,
  where: { readonly handle: TomlHandle; readonly args: TomlKeyValue },
): Edit | undefined {
  const { handle, args } = where;
  const command = handle.command;
  const raws = args.value.items.map((item) => raw(text, item));
  if (handle.inline !== undefined) {
    const start = command.value.end;
    const expected = `, args = ${inlineArray(raws)}`;
    return text.slice(start, args.value.end) === expected
      ? { offset: start, length: args.value.end - start, content: "" }
      : undefined;
  }
  if (args.lineEnd < 0) return undefined;
  const withoutArgs = addedArgsLine(text, { command, elements: raws });
  const start = command.lineEnd;
  return text.slice(start, args.lineEnd) === withoutArgs
    ? { offset: start, length: args.lineEnd - start, content: "" }
    : undefined;
}

/**
 * The array shape of an array node.
 * @param node - An array node.
 * @returns Its brackets and element ranges.
 */
function shapeOf(node: TomlNode): ArrayShape {
  return {
    start: node.start,
    end: node.end,
    items: node.items.map((item) => ({ start: item.start, end: item.end })),
  };
}

/**
 * The exact source text of a node.
 * @param text - The config text.
 * @param node - A value node.
 * @returns Its literal text.
 */
function raw(text: string, node: TomlNode): string {
  return text.slice(node.start, node.end);
}
