/**
 * The engine's public contract (STYLE #9): explicit named exports only. Pure: no I/O, no runtime API.
 * Edges import from here and never from deeper engine files.
 * @module
 */

export { ACCEPT_HASH_DIGITS, acceptCommand, listCommand, shellWord } from "./accept-command.ts";
export type { RememberedAnswer } from "./answers.ts";
export { answerKey, applyAnswer, rememberedAnswer } from "./answers.ts";
export { argumentLines } from "./argument-lines.ts";
export { evaluateBudget } from "./budget.ts";
export { compileCallRules } from "./call-rules.ts";
export type { CanonicalOptions } from "./canonical.ts";
export { canonicalize } from "./canonical.ts";
export { canonicalJson } from "./canonical-json.ts";
export {
  ACTION_IDENTITY,
  confirmsOneCall,
  evaluateConstraints,
  MAX_PATTERN_VALUE_BYTES,
} from "./constraints.ts";
export { decide } from "./decide.ts";
export type { DestinationRule, SelectOptions } from "./destination-rule.ts";
export { destinationRule } from "./destination-rule.ts";
export type { DestinationPiece, DestinationValue, PieceOptions } from "./destinations.ts";
export { destinationPieces, flattenValue, selectDestinations } from "./destinations.ts";
export { errorText } from "./error-text.ts";
export type { EmailIdentity, Identity, ScalarIdentity, UrlIdentity } from "./identity.ts";
export { identify, isUrlShaped } from "./identity.ts";
export { removeInvisible } from "./invisible.ts";
export { isJsonObject, member } from "./json-access.ts";
export { isDestinationShapedKey, isSinkShapedName, splitWords, withoutCollectionWord } from "./key-shapes.ts";
export { normalizePath } from "./normalize-path.ts";
export type { ArgumentKeys, ParamMismatch, ParamPath, ParamValue, ParamValues } from "./param-paths.ts";
export { collectParamValues, compileParamPath, createArgumentKeys, foldKey } from "./param-paths.ts";
export type { PathContext, PathResolver, RelativeBase } from "./path-context.ts";
export type { PathCheck } from "./paths.ts";
export { checkPathConfinement, normalizeRelativeBases } from "./paths.ts";
export { patternText, renderPattern } from "./pattern-text.ts";
export { diffToolDefinitions } from "./pin-diff.ts";
export { describePinDiff, summarizePinDiff } from "./pin-diff-render.ts";
export type { ComparePinsOptions, PinComparison, ToolPinResult } from "./pinning.ts";
export {
  canonicalToolJson,
  comparePins,
  evaluatePinning,
  hasSuspiciousCharacters,
  PIN_HASH_SCHEME,
  PINS_FORGOTTEN_HINT,
  PINS_OFF_HINT,
} from "./pinning.ts";
export { type RecordOptions, recordCallOutput, recordOutput } from "./record-output.ts";
export { escapeControls, renderHost, renderUntrusted, renderUntrustedEnd, safeName } from "./render.ts";
export {
  admitsUnlistedKeys,
  itemsOf,
  listedProperties,
  schemaProperties,
  walkSchema,
} from "./schema-walk.ts";
export { evaluateSinkGate } from "./sink-gate.ts";
export type { EngineState, EngineStateOptions, ServerMemory } from "./state.ts";
export {
  approvalKeyString,
  budgetKey,
  createEngineState,
  restoreServerState,
  takeServerState,
} from "./state.ts";
export type {
  IndexEntry,
  RecordedOutput,
  TaintStore,
  TaintStoreOptions,
  TokenOccurrences,
  WorkCounter,
} from "./taint-index.ts";
export { createTaintStore, DEFAULT_WINDOW_BYTES } from "./taint-index.ts";
export { matchTrusted } from "./trust.ts";
export type {
  ApprovalKey,
  AskAnswer,
  CallInput,
  CompiledCallRules,
  Contract,
  ContractResult,
  Decision,
  Evidence,
  ExternalTaintLookup,
  JsonObject,
  JsonValue,
  PinDiff,
  PinDiffLine,
  PinStatus,
  Question,
  Reason,
  Reasons,
  RuleSource,
  Sourced,
  ToolDefinition,
  ToolRules,
  Verdict,
} from "./types.ts";
export { forEachYamlNode } from "./yaml-walk.ts";
