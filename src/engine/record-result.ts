/**
 * Recording a tool result, a tool error or another result (SPEC §2.5 "Untrusted text, recorded"):
 * which of its parts are text blocks, structured output or free text. Pure; keys of outputs are
 * hostile (STYLE #6).
 * @module
 */

import { flattenValue } from "./destinations.ts";
import { type Recorder, recordFreeText } from "./output-recorder.ts";
import { recordStructured, recordTextBlock } from "./record-text.ts";
import type { JsonObject, JsonValue } from "./types.ts";

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/**
 * Records every string of an unknown result, each as a text block; `blob` data skipped.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param recorder - The output's recorder.
 * @param value - Any part of a result.
 * @returns Nothing.
 */
export function recordStrings(recorder: Recorder, value: JsonValue): void {
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

/**
 * Records a `tools/call` result: its content blocks by type, and its `structuredContent`.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param recorder - The output's recorder.
 * @param value - The result.
 * @returns Nothing.
 */
export function recordToolResult(recorder: Recorder, value: JsonValue): void {
  if (!isObject(value)) {
    recordStrings(recorder, value);
    return;
  }
  const content = own(value, "content");
  if (Array.isArray(content)) for (const block of content) recordContentBlock(recorder, block);
  const structured = own(value, "structuredContent");
  if (structured !== undefined && structured !== null) recordStructured(recorder, structured);
}

/**
 * Records a `tools/call` error: its message and data.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param recorder - The output's recorder.
 * @param value - The JSON-RPC error object.
 * @returns Nothing.
 */
export function recordError(recorder: Recorder, value: JsonValue): void {
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
