/**
 * The audit folder's public contract: the audit log writer and reader (SPEC §3.5), the summary and
 * `bouncer audit` (§5.6), and the session recorder of `--record` (§3.6, §5.9). Explicit named exports
 * only (STYLE #9). Edge.
 * @module
 */

export type { AuditIssue, AuditReadResult } from "./audit-reader.ts";
export { listAuditFiles, parseAuditLine, parseAuditText, readAuditLog } from "./audit-reader.ts";
export type {
  AskOutcome,
  AuditCall,
  AuditCallRef,
  AuditEntry,
  AuditEvent,
  AuditRecord,
  DecisionEntryOptions,
  PinOutcome,
} from "./audit-record.ts";
export { decisionEntry, noiseEntry, outcomeEntry, pinEntry, upstreamExitEntry } from "./audit-record.ts";
export type { AuditWriter, AuditWriterOptions } from "./audit-writer.ts";
export { createAuditWriter, ROTATE_BYTES, ROTATE_KEEP } from "./audit-writer.ts";
export type { FollowOptions } from "./follow-audit-log.ts";
export { followAuditLog } from "./follow-audit-log.ts";
export { isSecretName, REDACTED, redactJson, redactText, redactTokens } from "./redact.ts";
export type {
  AmbiguousJson,
  LiveBlocked,
  RecordedCall,
  RecordedServer,
  SessionRecorder,
} from "./session-recorder.ts";
export {
  AMBIGUOUS_JSON,
  createSessionRecorder,
  isAmbiguousJson,
  isLiveBlocked,
  LIVE_BLOCKED,
} from "./session-recorder.ts";
export type { AuditSummary, Counts } from "./summarize-audit.ts";
export { summarizeAudit } from "./summarize-audit.ts";
