/**
 * The engine's public contract (STYLE #9): explicit named exports only. Pure: no I/O, no runtime API.
 * Edges import from here and never from deeper engine files.
 * @module
 */

export { renderHost, renderUntrusted } from "./render.ts";
export type { EngineState, EngineStateOptions } from "./state.ts";
export { approvalKeyString, budgetKey, createEngineState } from "./state.ts";
export type { IndexEntry, RecordedOutput, TaintStore, TaintStoreOptions } from "./taint-index.ts";
export type {
  ApprovalKey,
  AskAnswer,
  CallInput,
  Contract,
  ContractResult,
  Decision,
  Evidence,
  ExternalTaintLookup,
  JsonObject,
  JsonValue,
  PathContext,
  PathResolver,
  PinDiff,
  PinStatus,
  Question,
  Reason,
  Reasons,
  RuleSource,
  Sourced,
  ToolDefinition,
  ToolPolicy,
  ToolRules,
  Verdict,
} from "./types.ts";
