/**
 * The policy module's data: validated, compiled policy files and packs, and what layering reads.
 * Pure (no runtime API). Every map keyed by an outside name is a `Map` (STYLE #6).
 *
 * Source: SPEC §4 (policy), §4.3 (packs).
 * @module
 */

import type { RuleSource, ToolDefinition } from "../engine/index.ts";

/**
 * One tool entry after validation (SPEC §4.2 per-tool keys), in the engine's camelCase.
 * Absent keys mean "this entry does not set it". `argPatterns` are compiled once, anchored
 * `^(?:…)$` with the `u` flag (SPEC §2.4).
 */
export interface ToolEntry {
  readonly action?: "allow" | "ask" | "deny";
  readonly exfiltrating?: boolean;
  readonly sinkParams?: readonly string[];
  readonly trustedDestinations?: readonly string[];
  readonly onTainted?: "deny" | "ask";
  readonly taintFields?: "lenient" | "strict";
  readonly writeParams?: readonly string[];
  readonly allowedPathPrefixes?: readonly string[];
  readonly argPatterns?: ReadonlyMap<string, RegExp>;
  readonly maxCalls?: number;
  readonly trustedOutput?: boolean;
  readonly replace?: boolean;
}

/** The `defaults:` section of a user file (SPEC §4.2). Absent keys are not set by this file. */
export interface DefaultsEntry {
  readonly heuristics?: boolean;
  readonly onTainted?: "deny" | "ask";
  readonly taintFields?: "lenient" | "strict";
  readonly taintMinLength?: number;
  readonly unclassified?: "allow" | "ask";
  readonly trustedDestinations?: readonly string[];
}

/** One `servers.<name>:` section (SPEC §4.1): its own defaults and tool entries. */
export interface ServerEntry {
  /** `servers.<name>.defaults.trusted_destinations` — ranks with the server's entries. */
  readonly trustedDestinations?: readonly string[];
  readonly tools: ReadonlyMap<string, ToolEntry>;
}

/** One validated user policy file (one `--policy FILE`). */
export interface PolicyFile {
  /** The file name as given; rules from it carry the source `user:<file>`. */
  readonly file: string;
  readonly defaults: DefaultsEntry;
  readonly servers: ReadonlyMap<string, ServerEntry>;
  /** Top-level tool entries and those under `tools:`. */
  readonly tools: ReadonlyMap<string, ToolEntry>;
}

/**
 * Which servers a pack is for (SPEC §4.3). Patterns are case-insensitive globs (`*` = any run of
 * characters) on the package or image in the command line, on `serverInfo.name`, and — only when no
 * pack matched by those — on the `--upstream-name`.
 */
export interface PackMatch {
  readonly commands: readonly string[];
  readonly serverNames: readonly string[];
  readonly upstreamNames: readonly string[];
}

/** A curated pack (SPEC §4.3): tool entries plus `match`. */
export interface Pack {
  /** The pack's name (its file name without `.yaml`); rules from it carry `pack:<name>`. */
  readonly name: string;
  /** The pack file's leading comment: which server and version it was checked against. */
  readonly header: string;
  readonly match: PackMatch;
  readonly tools: ReadonlyMap<string, ToolEntry>;
}

/** The whole policy in force: the user's files in order (later files win) and the available packs. */
export interface Policy {
  readonly files: readonly PolicyFile[];
  readonly packs: readonly Pack[];
}

/** What a server looks like for pack matching (SPEC §4.3, §5.9 `server` event). */
export interface ServerFacts {
  /** The upstream command line, command first. */
  readonly command?: readonly string[];
  /** `serverInfo.name` from the upstream's `initialize` result. */
  readonly serverInfoName?: string;
  /** The `--upstream-name`. */
  readonly upstreamName: string;
}

/** A pack that matched a server, and why (for `bouncer explain` and `bouncer doctor`). */
export interface MatchedPack {
  readonly pack: Pack;
  readonly by: "command" | "server_name" | "upstream_name";
  /** The pattern of `match:` that matched. */
  readonly pattern: string;
  /** The value it matched (a command-line token, the serverInfo name or the upstream name). */
  readonly value: string;
  /**
   * For `by: "command"`: the index of the matching token in the command line's words (those of a
   * `cmd /c`, `sh -c` or `powershell -Command` command, the interpreter's switches dropped and a
   * one-string command split: `commandWords`).
   */
  readonly commandIndex?: number;
}

/** What {@link resolveToolRules} needs about the tool and its server (SPEC §4.1, §4.4). */
export interface ResolveContext {
  /** The server's `--upstream-name` (selects `servers.<name>` entries). */
  readonly server: string;
  readonly tool: string;
  /** The pinned definition: its input schema and annotations feed the heuristics. */
  readonly definition?: ToolDefinition;
  /** The packs that matched this server (from `matchPacks`), strongest first. */
  readonly packs: readonly MatchedPack[];
  /**
   * Packs that did not match here but may where the server runs (`check` and `explain` know no
   * command line or `serverInfo.name`): layers weaker than `packs`, with no command token. For the
   * views' warnings only, never for deciding.
   */
  readonly possiblePacks?: readonly Pack[];
  /** The upstream command line, for `$COMMAND_LINE_DIRS` in pack prefixes. */
  readonly command?: readonly string[];
  /**
   * Without a command line, keep `$COMMAND_LINE_DIRS` as written instead of dropping it — for showing
   * rules only (`explain`), never for deciding: such a prefix confines nothing real.
   */
  readonly showPlaceholders?: boolean;
}

/** A stable code for each kind of policy issue. */
export type PolicyIssueCode =
  | "yaml_syntax"
  | "not_mapping"
  | "unknown_key"
  | "wrong_type"
  | "bad_regex"
  | "replace_without_exfiltrating"
  | "refused_name"
  | "duplicate_tool"
  | "duplicate_key"
  | "not_in_pack"
  | "pack_only"
  | "no_match"
  | "bad_version";

/** One problem found in a policy or pack file (SPEC §4.2): where, which tool and key, and what. */
export interface PolicyIssue {
  readonly code: PolicyIssueCode;
  readonly file: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
  /** The detail, without the location, e.g. `unknown key "alow" in tool "send_email" (did you mean "action"?)`. */
  readonly message: string;
  readonly tool?: string;
  readonly server?: string;
  readonly key?: string;
  /** The closest valid key or value, for a typo. */
  readonly suggestion?: string;
}

/** A non-empty list of issues (a failed check always has at least one). */
export type PolicyIssues = readonly [PolicyIssue, ...PolicyIssue[]];

/** The non-throwing result of checking a policy file (STYLE #13). */
export type CheckPolicyResult =
  | { readonly ok: true; readonly policy: PolicyFile }
  | { readonly ok: false; readonly issues: PolicyIssues };

/** The non-throwing result of checking a pack file (STYLE #13). */
export type CheckPackResult =
  | { readonly ok: true; readonly pack: Pack }
  | { readonly ok: false; readonly issues: PolicyIssues };

/** A rule source, re-exported for the layering code. */
export type { RuleSource };
