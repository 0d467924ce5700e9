/**
 * What untrusted output is recorded, and how (SPEC §2.5 "Untrusted text, recorded", "Free text
 * versus field values"): tool results, errors, definitions and other results, each string sorted
 * into field values and free text. Pure; keys of outputs are hostile (STYLE #6).
 * @module
 */

import { flattenValue } from "./destinations.ts";
import { isJsonObject, member } from "./json-access.ts";
import { createRecorder, recordFreeText } from "./output-recorder.ts";
import { recordError, recordStrings, recordToolResult } from "./record-result.ts";
import { recordTextSeams, textMembers } from "./record-text.ts";
import type { IndexEntry, RecordedOutput, TaintStore } from "./taint-index.ts";
import { flushWindow } from "./text-window.ts";
import type { ToolRules } from "./types.ts";

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

/**
 * Records one untrusted output into the session's taint store: tool results (text blocks,
 * embedded-resource text and uri, `structuredContent`, resource-link uri/name/title/description,
 * textual base64 payloads decoded, and every other string, number and key of the result), a
 * `tools/call` error's message and data (and its other fields), tool definitions and server
 * instructions (every occurrence a definition occurrence, which asks at most), and any other result
 * (every string). Structured output
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
 * @throws {RangeError} When the store's index is full (`MAX_INDEXED_TOKENS`): what was read of the
 *   output so far stays recorded (more taint, never less), and the caller must not relay it.
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
  try {
    if (output.kind === "tool_result") recordToolResult(recorder, output.value);
    else if (output.kind === "tool_error") recordError(recorder, output.value);
    else if (output.kind === "definition") {
      for (const { value } of flattenValue(output.value, "")) recordFreeText(recorder, value);
    } else if (isJsonObject(output.value) && Array.isArray(member(output.value, "content"))) {
      recordToolResult(recorder, output.value);
    } else {
      recordStrings(recorder, output.value);
      // `resources/read` contents, `prompts/get` messages: texts a client may show run together.
      recordTextSeams(recorder, textMembers(output.value));
    }
  } finally {
    // Also when the index is full (a throw): the window keeps no slice of this output.
    flushWindow(store.window);
  }
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
