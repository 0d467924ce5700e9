/**
 * The policy module's public contract (STYLE #9): explicit named exports only.
 *
 * Pure: YAML text in, validated and compiled policy out; layering and heuristics as functions of
 * plain values. No I/O and no runtime API — files are read and packs embedded at the edge
 * (`src/platform/packs.ts`). Type-checks under `tsconfig.engine.json` and runs under Deno.
 *
 * Typical use at an edge:
 * ```ts
 * const policy = parsePolicyFiles([{ text, fileName: "bouncer.yaml" }], builtinPacks());
 * const packs = matchPacks(policy.packs, { command, serverInfoName, upstreamName: "mail" });
 * const rules = resolveToolRules(policy, { server: "mail", tool: "send_email", definition, packs, command });
 * ```
 *
 * `checkParsedPolicy` / `checkParsedPack` are the fast path for a text the runtime's own YAML parser
 * has read (no `yaml` library); an edge that must not load the rest of the module (the engine, the
 * `yaml` library) before the upstream is spawned imports them from `check-parsed.ts` directly.
 *
 * Source: SPEC §4 (policy), §4.3 (packs), §4.4 (heuristics), §5.5 (`check`, `explain`).
 * @module
 */

export { checkPack, parsePack } from "./check-pack.ts";
export type { ParsedText } from "./check-parsed.ts";
export { checkParsedPack, checkParsedPolicy } from "./check-parsed.ts";
export { checkPolicy, parsePolicy } from "./check-policy.ts";
export { editDistance } from "./closest-key.ts";
export type { ConfinementContext, ConfinementWarning } from "./confinement-warnings.ts";
export { confinementWarnings } from "./confinement-warnings.ts";
export type { CheckPolicyFilesResult, PolicyText } from "./create-policy.ts";
export { checkPolicyFiles, createPolicy, parsePolicyFiles } from "./create-policy.ts";
export type { RuleRow } from "./explain-tool-rules.ts";
export { explainToolRules, packJson, policyFileJson, toolEntryJson } from "./explain-tool-rules.ts";
export type { HeuristicOptions, HeuristicRules } from "./heuristics.ts";
export { DESTRUCTIVE_MAX_CALLS, heuristicRules, isDestructiveName, nameWords } from "./heuristics.ts";
export { commandLineDirectories, globMatches, matchPacks } from "./match-packs.ts";
export { formatPolicyIssue, PolicyError } from "./policy-error.ts";
export { DEFAULT_TAINT_MIN_LENGTH, resolveToolRules } from "./resolve-tool-rules.ts";
export { serverCaseWarning, serverSectionsInOtherCase } from "./server-name-case.ts";
export { schemaArgumentWarnings, unlistedEntryWarnings } from "./tool-list-warnings.ts";
export type {
  CheckPackResult,
  CheckPolicyResult,
  DefaultsEntry,
  MatchedPack,
  Pack,
  PackMatch,
  Policy,
  PolicyFile,
  PolicyIssue,
  PolicyIssueCode,
  PolicyIssues,
  ResolveContext,
  ServerEntry,
  ServerFacts,
  ToolEntry,
} from "./types.ts";
export { COMMAND_LINE_DIRS } from "./value-rules.ts";
