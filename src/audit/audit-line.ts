/**
 * One audit line's content: the record in the field order of SPEC §3.5, redacted, with its `ts`
 * stamp. Edge (pure apart from `node:crypto` in redaction).
 *
 * Source: SPEC §3.5.
 * @module
 */

import { cachedByName } from "../platform/name-cache.ts";
import type { AuditEntry, AuditRecord } from "./audit-record.ts";
import { redactCutTokens, redactJson, redactText } from "./redact.ts";
import { argumentSecrets, secretHider } from "./redact-values.ts";

/** {@link redactText} of a tool name, remembered (a session calls the same few tools again and again). */
const redactToolName: (name: string) => string = cachedByName((name) => redactText(name));

/**
 * Builds the line object in the field order of SPEC §3.5, redacting `tool`, `args`, `reason` and
 * `evidence`.
 *
 * Source: SPEC §3.5 (fields, redaction).
 * @param entry - The entry.
 * @param stamp - `ts` and `bouncer`.
 * @param options - `hideKnown`: hides secrets known beforehand (the upstream's secret-named
 *   environment values, `secretHider`) where the reason and evidence quote them — output that
 *   prints its configuration puts them into excerpts.
 * @returns The record as it will be written.
 */
export function toRecord(
  entry: AuditEntry,
  stamp: { readonly ts: string; readonly bouncer: string },
  options: { readonly hideKnown?: (text: string) => string } = {},
): AuditRecord {
  const record: Record<string, unknown> = { ts: stamp.ts, event: entry.event, session: entry.session };
  if (entry.seq !== undefined) record.seq = entry.seq;
  record.server = entry.server;
  // A tool's name comes from the upstream: a token-shaped one is hidden as it is in the reason.
  if (entry.tool !== undefined) record.tool = redactToolName(entry.tool);
  if (entry.args !== undefined) record.args = redactJson(entry.args);
  // A reason or evidence that quotes a secret-named argument must not show it either — unless the
  // "secret" is the name of a server or tool of the record: an agent passing `token: "read_inbox"`
  // would otherwise blank where its destination was seen.
  // No part of a value `args` show (the recipient) is hidden either: `password: "evil"` would blank
  // it out of `attacker@evil.example` where the reason names the destination.
  const found = entry.args === undefined ? { secrets: [], shown: [] } : argumentSecrets(entry.args);
  // Most calls pass no secret-named argument: the names are gathered only when there is one.
  const names = found.secrets.length === 0 ? undefined : recordNames(entry);
  const secrets = names === undefined ? [] : found.secrets.filter((value) => !names.has(value.toLowerCase()));
  if (entry.verdict !== undefined) record.verdict = entry.verdict;
  if (entry.contract !== undefined) record.contract = entry.contract;
  const fromArgs = secrets.length === 0 ? undefined : secretHider(secrets, found.shown);
  const { hideKnown } = options;
  const hide =
    hideKnown === undefined || fromArgs === undefined
      ? (fromArgs ?? hideKnown)
      : (text: string): string => hideKnown(fromArgs(text));
  const redactString = hide === undefined ? redactText : (text: string): string => redactText(hide(text));
  // A reason also shows the start of a token where it cut a value at 200 characters (`…`).
  if (entry.reason !== undefined) record.reason = redactCutTokens(redactString(entry.reason));
  if (entry.source !== undefined) record.source = entry.source;
  if (entry.evidence !== undefined) record.evidence = redactJson(entry.evidence, redactString);
  if (entry.outcome !== undefined) record.outcome = entry.outcome;
  if (entry.mode !== undefined) record.mode = entry.mode;
  record.bouncer = stamp.bouncer;
  return record as unknown as AuditRecord;
}

/**
 * The server and tool names an audit entry mentions (its own and its evidence's), lower-cased.
 * @param entry - The entry.
 * @returns The names.
 */
function recordNames(entry: AuditEntry): Set<string> {
  const names = new Set<string>([entry.server.toLowerCase()]);
  if (entry.tool !== undefined) names.add(entry.tool.toLowerCase());
  const evidence: unknown = entry.evidence;
  for (const item of Array.isArray(evidence) ? evidence : []) {
    for (const key of ["server", "tool"]) {
      const name: unknown = typeof item === "object" && item !== null ? Reflect.get(item, key) : undefined;
      if (typeof name === "string") names.add(name.toLowerCase());
    }
  }
  return names;
}

/**
 * Formats `ts` values (ISO 8601 UTC with milliseconds), reusing the text up to the seconds while the
 * second does not change (the same text as `Date.prototype.toISOString`).
 *
 * Source: SPEC §3.5 (`ts`: ISO 8601 UTC, ms).
 * @returns From milliseconds since the epoch to e.g. `2026-01-02T03:04:05.006Z`.
 */
export function isoStamper(): (ms: number) => string {
  let second = Number.NaN;
  let head = "";
  return (ms) => {
    if (!Number.isInteger(ms)) return new Date(ms).toISOString();
    const whole = Math.floor(ms / 1000);
    if (whole !== second) {
      head = new Date(ms).toISOString().slice(0, -4);
      second = whole;
    }
    return `${head}${String(ms - whole * 1000).padStart(3, "0")}Z`;
  };
}

/** Lines up to this many UTF-16 code units are encoded into a reused buffer (3 bytes each at most). */
const SCRATCH_CHARS = 16 * 1024;

/**
 * Encodes lines as UTF-8 into one reused buffer (no allocation per record); a longer line gets its
 * own. The bytes returned are valid until the next call.
 * @returns From a line to its UTF-8 bytes.
 */
export function lineEncoder(): (line: string) => Uint8Array {
  const encoder = new TextEncoder();
  const scratch = new Uint8Array(SCRATCH_CHARS * 3);
  return (line) => {
    if (line.length > SCRATCH_CHARS) return encoder.encode(line);
    const { written } = encoder.encodeInto(line, scratch);
    return scratch.subarray(0, written);
  };
}
