/**
 * What untrusted output is recorded, and how (SPEC §2.5 "Untrusted text, recorded", "Free text
 * versus field values"): tool results, errors, definitions and other results, each string sorted
 * into field values and free text. Pure; keys of outputs are hostile (STYLE #6).
 * @module
 */

import { canonicalize } from "./canonical.ts";
import { flattenValue } from "./destinations.ts";
import { isDestinationShapedKey } from "./key-shapes.ts";
import {
  createRecorder,
  flushFreeScalars,
  queueFreeScalar,
  type Recorder,
  recordCanonicalFree,
  recordFieldValue,
  recordFreeText,
} from "./output-recorder.ts";
import { parseStructuredText, walkStructured } from "./structured.ts";
import type { IndexEntry, RecordedOutput, TaintStore } from "./taint-index.ts";
import { flushWindow } from "./text-window.ts";
import { extractTokens } from "./tokens.ts";
import type { JsonObject, JsonValue, ToolRules } from "./types.ts";

/**
 * Options of {@link recordOutput}.
 *
 * Source: SPEC §3.7 (the session store appends the tokens each instance indexes).
 */
export interface RecordOptions {
  /** List the index entries new to the store (default false). */
  readonly listIndexed?: boolean;
}

const NONE: readonly IndexEntry[] = Object.freeze([]);

/** A `Key: value` line of unstructured text: indentation, an optional `- ` or `* `, a short key. */
const KEY_VALUE_LINE = /^[ \t]*(?:[-*][ \t]+)?([^:\n]{1,64}?)[ \t]*:[ \t]*(\S.*?)[ \t]*$/;
/** Lines longer than this are never `Key: value` lines (a key of three words, one identity). */
const MAX_FIELD_LINE = 1024;
/** Free lines are gathered into slices of about this many UTF-16 code units. */
const FREE_SLICE = 256 * 1024;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** The key of a `Key: value` line when that line is a field value (SPEC §2.5), else undefined. */
function fieldLineKey(line: string): { key: string; value: string } | undefined {
  if (line.length > MAX_FIELD_LINE || !line.includes(":")) return undefined;
  const match = KEY_VALUE_LINE.exec(line);
  const key = match?.[1];
  const value = match?.[2];
  if (key === undefined || value === undefined) return undefined;
  const words = key.replace(/[^\p{L}\p{N}\s_-]/gu, " ");
  return isDestinationShapedKey(words, { maxWords: 3 }) ? { key: key.trim(), value } : undefined;
}

/** Walks a structured value: field values recorded one by one, free scalars scanned together. */
function recordStructured(recorder: Recorder, value: JsonValue): void {
  walkStructured(value, {
    field: (text, key) => recordFieldValue(recorder, text, { key }),
    free: (text) => queueFreeScalar(recorder, text),
  });
  flushFreeScalars(recorder);
}

/**
 * Unstructured text: a `Key: value` line whose key is at most three words and destination-shaped
 * is a field value; every other line is free text.
 */
function recordUnstructured(recorder: Recorder, text: string): void {
  let from = 0;
  let freeStart = 0;
  const flushFree = (end: number): void => {
    if (end > freeStart) recordFreeText(recorder, text.slice(freeStart, end));
  };
  while (from <= text.length) {
    let end = text.indexOf("\n", from);
    if (end === -1) end = text.length;
    const field = fieldLineKey(text.slice(from, end).replace(/\r$/, ""));
    if (field !== undefined) {
      flushFree(from);
      recordFieldValue(recorder, field.value, { key: field.key });
      freeStart = end + 1;
    } else if (end - freeStart >= FREE_SLICE) {
      flushFree(end);
      freeStart = end + 1;
    }
    from = end + 1;
  }
  flushFree(text.length);
}

/**
 * A text block: structured when it parses as JSON or YAML to a mapping or sequence (≤ 1 MiB),
 * otherwise unstructured. YAML comments are free text. For JSON, any token of the raw text the walk
 * did not meet (an escaped spelling, say) is recorded as free text.
 */
function recordTextBlock(recorder: Recorder, text: string): void {
  const structured = parseStructuredText(text);
  if (structured === undefined) {
    recordUnstructured(recorder, text);
    return;
  }
  recorder.blockKeys = new Set();
  recordStructured(recorder, structured.value);
  for (const comment of structured.comments) recordFreeText(recorder, comment);
  const met = recorder.blockKeys;
  recorder.blockKeys = undefined;
  if (structured.format !== "json") return;
  const missed = new Set<string>();
  extractTokens(canonicalize(text, { output: true }), (key) => {
    if (!met.has(key)) missed.add(key);
  });
  if (missed.size > 0) recordCanonicalFree(recorder, [...missed].join(" "));
}

/** Every string value (not key) of an unknown result, each as a text block; `blob` data skipped. */
function recordStrings(recorder: Recorder, value: JsonValue): void {
  for (const { path, value: text } of flattenValue(value, "")) {
    if (!/(^|\.)(blob|mimeType)$/.test(path)) recordTextBlock(recorder, text);
  }
}

function recordContentBlock(recorder: Recorder, block: JsonValue): void {
  if (!isObject(block)) {
    recordStrings(recorder, block);
    return;
  }
  const type = own(block, "type");
  const text = own(block, "text");
  if (type === "text" && typeof text === "string") recordTextBlock(recorder, text);
  else if (type === "resource") {
    const resource = own(block, "resource");
    const inner = isObject(resource) ? own(resource, "text") : undefined;
    if (typeof inner === "string") recordTextBlock(recorder, inner);
    // Its uri reaches the model too, as a resource link's does.
    const uri = isObject(resource) ? own(resource, "uri") : undefined;
    if (typeof uri === "string") recordFreeText(recorder, uri);
  } else if (type === "resource_link") {
    for (const name of ["uri", "name", "title", "description"]) {
      const field = own(block, name);
      if (typeof field === "string") recordFreeText(recorder, field);
    }
  } else if (type !== "image" && type !== "audio") {
    recordStrings(recorder, block);
  }
}

function recordToolResult(recorder: Recorder, value: JsonValue): void {
  if (!isObject(value)) {
    recordStrings(recorder, value);
    return;
  }
  const content = own(value, "content");
  if (Array.isArray(content)) for (const block of content) recordContentBlock(recorder, block);
  const structured = own(value, "structuredContent");
  if (structured !== undefined && structured !== null) recordStructured(recorder, structured);
}

function recordError(recorder: Recorder, value: JsonValue): void {
  if (!isObject(value)) {
    recordStrings(recorder, value);
    return;
  }
  const message = own(value, "message");
  if (typeof message === "string") recordTextBlock(recorder, message);
  const data = own(value, "data");
  if (typeof data === "string") recordTextBlock(recorder, data);
  else if (typeof data === "object" && data !== null) recordStructured(recorder, data);
}

/**
 * Records one untrusted output into the session's taint store: tool results (text blocks,
 * embedded-resource text and uri, `structuredContent`, resource-link uri/name/title/description), a
 * `tools/call` error's message and data, tool definitions and server instructions (every occurrence a
 * definition occurrence, which asks at most), and any other result (every string). Structured output
 * is split into field values and free text; in unstructured text only short destination-shaped
 * `Key: value` lines are field values. In a call's own result, identities from its own arguments
 * count as field values at most. Linear in the output's size; keeps no copy beyond the window.
 *
 * The caller records nothing for denied calls; a call's own output goes through
 * {@link recordCallOutput}, which skips tools with `trusted_output: true`.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded", "Free text versus field values", "Index, not rescans".
 * @param store - The session's taint store (changed in place).
 * @param output - The output with its provenance and, for a tool result, the call's arguments.
 * @param options - `listIndexed`: list the index entries new to this store (default false: none are
 *   listed, and no string is made per new token — a 1 MiB result can hold 25,000 of them).
 * @returns With `listIndexed`, the index entries new to this store (token-shaped only), for sharing
 *   across the session's processes (SPEC §3.7); otherwise an empty list.
 * @example recordOutput(state.taint, { server: "mail", tool: "read_inbox", seq: 1, kind: "tool_result", value: result })
 */
export function recordOutput(
  store: TaintStore,
  output: RecordedOutput,
  options: RecordOptions = {},
): readonly IndexEntry[] {
  const ownResult = output.kind === "tool_result" || output.kind === "tool_error";
  const recorder = createRecorder(store, {
    server: output.server,
    tool: output.tool,
    seq: output.seq,
    definition: output.kind === "definition",
    arguments: ownResult ? output.arguments : undefined,
    listIndexed: options.listIndexed,
  });
  if (output.kind === "tool_result") recordToolResult(recorder, output.value);
  else if (output.kind === "tool_error") recordError(recorder, output.value);
  else if (output.kind === "definition") {
    for (const { value } of flattenValue(output.value, "")) recordFreeText(recorder, value);
  } else if (isObject(output.value) && Array.isArray(own(output.value, "content"))) {
    recordToolResult(recorder, output.value);
  } else recordStrings(recorder, output.value);
  flushWindow(store.window);
  return recorder.entries ?? NONE;
}

/**
 * Records a forwarded call's result or upstream error as untrusted output, unless the tool's
 * effective rules mark it `trusted_output: true` — then nothing of it is recorded (SPEC §2.5
 * "Untrusted text, recorded": everything the upstream says is recorded "unless the tool is marked
 * `trusted_output: true`"; §4.2). Never call it for a denied call: its output never happened.
 *
 * Source: SPEC §2.5, §4.2.
 * @param store - The session's taint store (changed in place).
 * @param rules - The tool's effective rules (only `trustedOutput` is read).
 * @param output - The call's output, `kind` `tool_result` or `tool_error`, with the call's arguments.
 * @param options - As for {@link recordOutput}.
 * @returns With `listIndexed`, the index entries new to this store; none for a `trusted_output` tool.
 * @example recordCallOutput(state.taint, rules, { server: "mail", tool: "read_inbox", seq: 1, kind: "tool_result", value: result })
 */
export function recordCallOutput(
  store: TaintStore,
  rules: Pick<ToolRules, "trustedOutput">,
  output: RecordedOutput,
  options: RecordOptions = {},
): readonly IndexEntry[] {
  if (rules.trustedOutput?.value === true) return NONE;
  return recordOutput(store, output, options);
}
