/**
 * Recording a tool result, a tool error or another result (SPEC §2.5 "Untrusted text, recorded"):
 * which of its parts are text blocks, structured output or free text. Every string the upstream
 * sent is recorded — the parts MCP names by their meaning, every other field (`_meta`,
 * `annotations`, a legacy `toolResult`, fields of future versions) as text blocks — except base64
 * payloads of types no client shows as text. Pure; keys of outputs are hostile (STYLE #6).
 * @module
 */

import { decodeBase64Text, isBase64, isTextualMime, looksLikeText } from "./base64-text.ts";
import { isJsonObject, member } from "./json-access.ts";
import { type Recorder, recordFreeText } from "./output-recorder.ts";
import { recordStructured, recordTextBlock, recordTextSeams } from "./record-text.ts";
import type { JsonObject, JsonValue } from "./types.ts";

/**
 * Field names of MCP's own objects: the protocol's words, not the upstream's, so their values are
 * recorded and their names are not. Any other name is recorded too (an upstream may write anything).
 */
const PROTOCOL_KEYS: ReadonlySet<string> = new Set([
  "_meta",
  "annotations",
  "blob",
  "code",
  "content",
  "data",
  "description",
  "icons",
  "isError",
  "mimeType",
  "name",
  "resource",
  "size",
  "structuredContent",
  "text",
  "title",
  "toolResult",
  "type",
  "uri",
]);

/**
 * A base64 payload: decoded and recorded as a text block when a client may show it as text — a
 * `blob` whose `mimeType` is textual or absent, an image's or audio's `data` of a textual type
 * (`image/svg+xml`); a payload that is not base64 at all is recorded as it stands.
 */
function recordPayload(
  recorder: Recorder,
  data: string,
  mimeType: JsonValue | undefined,
  blob: boolean,
): void {
  const typed = typeof mimeType === "string";
  // Not base64 at all (`data: "Forward everything to …"`): text as it stands, whatever its type.
  if (!isBase64(data)) {
    recordTextBlock(recorder, data);
    return;
  }
  const textual = typed ? isTextualMime(mimeType) : blob;
  // An untyped blob is decoded only when its start reads as text (binary is not text to a client).
  if (!textual || (!typed && !looksLikeText(data))) return;
  for (const text of decodeBase64Text(data, typed ? mimeType : undefined) ?? [data])
    recordTextBlock(recorder, text);
}

/**
 * Records every string, number and key of a part of a result, each as a text block. A `blob`
 * string, and the `data` string of an object typed `image` or `audio`, is a base64 payload.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param recorder - The output's recorder.
 * @param value - Any part of a result.
 * @returns Nothing.
 */
export function recordStrings(recorder: Recorder, value: JsonValue): void {
  const stack: JsonValue[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === "string") recordTextBlock(recorder, item);
    else if (typeof item === "number") recordTextBlock(recorder, JSON.stringify(item));
    else if (Array.isArray(item)) for (let i = item.length - 1; i >= 0; i -= 1) stack.push(item[i] ?? null);
    else if (item !== null && typeof item === "object") {
      const type = member(item, "type");
      const media = type === "image" || type === "audio";
      const keys = Object.keys(item);
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i] as string;
        const child = item[key] as JsonValue;
        const payload = key === "blob" || (media && key === "data");
        if (payload && typeof child === "string")
          recordPayload(recorder, child, member(item, "mimeType"), !media);
        else stack.push(child);
        stack.push(key);
      }
    }
  }
}

/** Records the fields of an MCP object that `handled` does not name: values, and names of its own. */
function recordOtherFields(recorder: Recorder, object: JsonObject, handled: ReadonlySet<string>): void {
  for (const key of Object.keys(object)) {
    if (handled.has(key)) continue;
    const child = object[key] as JsonValue;
    if (!PROTOCOL_KEYS.has(key)) recordTextBlock(recorder, key);
    // An object or list keeps its keys (`toolResult: {sender: …}`, `_meta: {from: …}`): a value under
    // a destination-shaped key is a field value there (an ask), as in `structuredContent`.
    if (isJsonObject(child) || Array.isArray(child)) recordStructured(recorder, child);
    else recordStrings(recorder, child);
  }
}

/** A string field as a text block (or as free text), any other value by its strings. */
function recordField(recorder: Recorder, value: JsonValue | undefined, free = false): void {
  if (typeof value === "string") {
    if (free) recordFreeText(recorder, value);
    else recordTextBlock(recorder, value);
  } else if (value !== undefined) recordStrings(recorder, value);
}

const TEXT_BLOCK = new Set(["type", "text"]);
const EMBEDDED = new Set(["type", "resource"]);
const RESOURCE = new Set(["text", "uri", "blob"]);
const LINK = new Set(["type", "uri", "name", "title", "description"]);
const MEDIA = new Set(["type", "data"]);
const RESULT = new Set(["content", "structuredContent"]);
const ERROR = new Set(["code", "message", "data"]);

/** An embedded resource's contents: text as a text block, uri as free text, a blob by its type. */
function recordResourceContents(recorder: Recorder, resource: JsonValue | undefined): void {
  if (!isJsonObject(resource)) {
    if (resource !== undefined) recordStrings(recorder, resource);
    return;
  }
  recordField(recorder, member(resource, "text"));
  // Its uri reaches the model too, as a resource link's does.
  recordField(recorder, member(resource, "uri"), true);
  const blob = member(resource, "blob");
  if (typeof blob === "string") recordPayload(recorder, blob, member(resource, "mimeType"), true);
  else if (blob !== undefined) recordStrings(recorder, blob);
  recordOtherFields(recorder, resource, RESOURCE);
}

function recordContentBlock(recorder: Recorder, block: JsonValue): void {
  if (!isJsonObject(block)) {
    recordStrings(recorder, block);
    return;
  }
  const type = member(block, "type");
  if (type === "text") {
    recordField(recorder, member(block, "text"));
    recordOtherFields(recorder, block, TEXT_BLOCK);
  } else if (type === "resource") {
    recordResourceContents(recorder, member(block, "resource"));
    recordOtherFields(recorder, block, EMBEDDED);
  } else if (type === "resource_link") {
    for (const name of LINK) if (name !== "type") recordField(recorder, member(block, name), true);
    recordOtherFields(recorder, block, LINK);
  } else if (type === "image" || type === "audio") {
    const data = member(block, "data");
    if (typeof data === "string") recordPayload(recorder, data, member(block, "mimeType"), false);
    else if (data !== undefined) recordStrings(recorder, data);
    recordOtherFields(recorder, block, MEDIA);
  } else recordStrings(recorder, block);
}

/**
 * The text of a text block or an embedded resource, for {@link recordTextSeams}.
 * @param block - A content block.
 * @returns `[text]` for a text block or embedded resource with a string text, else nothing.
 */
function blockText(block: JsonValue): string[] {
  if (!isJsonObject(block)) return [];
  const type = member(block, "type");
  const holder = type === "text" ? block : type === "resource" ? member(block, "resource") : undefined;
  const text = isJsonObject(holder) ? member(holder, "text") : undefined;
  return typeof text === "string" ? [text] : [];
}

/**
 * Records a `tools/call` result: its content blocks by type (text and embedded-resource text as text
 * blocks; resource uri and resource-link uri, name, title and description as free text; base64
 * payloads decoded when textual), the tokens only neighbouring text blocks run together hold, its
 * `structuredContent` by its structure, and every other string of it (`_meta`, `annotations`,
 * unknown fields and block types) as a text block.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param recorder - The output's recorder.
 * @param value - The result.
 * @returns Nothing.
 */
export function recordToolResult(recorder: Recorder, value: JsonValue): void {
  if (!isJsonObject(value)) {
    recordStrings(recorder, value);
    return;
  }
  const content = member(value, "content");
  if (Array.isArray(content)) {
    for (const block of content) recordContentBlock(recorder, block);
    recordTextSeams(recorder, content.flatMap(blockText));
  } else if (content !== undefined) recordStrings(recorder, content);
  const structured = member(value, "structuredContent");
  if (structured !== undefined && structured !== null) recordStructured(recorder, structured);
  recordOtherFields(recorder, value, RESULT);
}

/**
 * Records a `tools/call` error: its message (a text block), its data (a text block, or structured),
 * and every other string of it.
 *
 * Source: SPEC §2.5 "Untrusted text, recorded".
 * @param recorder - The output's recorder.
 * @param value - The JSON-RPC error object.
 * @returns Nothing.
 */
export function recordError(recorder: Recorder, value: JsonValue): void {
  if (!isJsonObject(value)) {
    recordStrings(recorder, value);
    return;
  }
  recordField(recorder, member(value, "message"));
  const data = member(value, "data");
  if (typeof data === "string") recordTextBlock(recorder, data);
  else if (typeof data === "object" && data !== null) recordStructured(recorder, data);
  else if (typeof data === "number") recordTextBlock(recorder, JSON.stringify(data));
  recordOtherFields(recorder, value, ERROR);
}
