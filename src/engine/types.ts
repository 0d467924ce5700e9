/**
 * The engine's data contract: every value the decision reads or returns (the path context is in
 * `path-context.ts`). Pure (no runtime API).
 *
 * The edges (proxy, replay, serve) build a {@link CallInput} and a {@link ToolRules} value, keep one
 * {@link EngineState} per client session, call `decide()` and render the returned {@link Decision}.
 *
 * Source: SPEC §2 (the decision), §2.1 (the decision record), §4.1 (layers and sources).
 * @module
 */

import type { ParamPath } from "./param-paths.ts";
import type { PathContext } from "./path-context.ts";

/** A verdict of the decision table (SPEC §2.1). */
export type Verdict = "allow" | "deny" | "ask";

/** The contract that decided (SPEC §2.1); `default` when nothing objected. */
export type Contract = "pinning" | "budget" | "constraint" | "sink_gate" | "default";

/**
 * Where a rule came from (SPEC §2.1, §4.1): a user policy file, a curated pack, the schema
 * heuristics of §4.4, or Bouncer's built-in default.
 */
export type RuleSource = `user:${string}` | `pack:${string}` | "heuristic" | "default";

/** A value together with the policy layer that set it (SPEC §4.1, `bouncer explain`). */
export interface Sourced<T> {
  readonly value: T;
  readonly source: RuleSource;
  /**
   * For a user file's rule, the part of the file that set it when not a top-level tool entry:
   * `servers.<name>`, `servers.<name>.defaults` or `defaults` (shown by `explain` and `check`; the
   * decision's `source` stays `user:<file>`, SPEC §2.1).
   */
  readonly layer?: string;
}

/** JSON as it arrives on the wire, after parsing. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object; keys are hostile (STYLE #6): read with `Object.hasOwn`, never `in`. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Where a destination was seen before (SPEC §2.1 "evidence", §2.5 provenance).
 * `kind` says how it occurred: `free_text` taints, `field` is a field value (asks, shows provenance),
 * `definition` is a tool definition or server instructions (field value at most).
 */
export interface Evidence {
  readonly server: string;
  readonly tool: string;
  /**
   * The per-session call sequence number of the output that held the value (from 1); 0 for output
   * that no `tools/call` produced (another request's answer, a notification).
   */
  readonly seq: number;
  readonly kind: "free_text" | "field" | "definition";
  /** For a field value: the key it stood under (e.g. `sender`), when known. */
  readonly field?: string;
  /** For in-process evidence: a short excerpt around the occurrence (untrusted text). */
  readonly excerpt?: string;
}

/** One reason of a decision (SPEC §2.1): a stable code, a message, the argument path, the source. */
export interface Reason {
  /** Stable machine code, e.g. `sink_tainted`, `budget_exhausted`, `path_outside_prefixes`. */
  readonly code: string;
  /** One human sentence, untrusted values rendered safely (SPEC §3.4). */
  readonly message: string;
  /** The argument path concerned (`to`, `files[0].path`), when there is one. */
  readonly path?: string;
  readonly source: RuleSource;
  readonly evidence?: readonly Evidence[];
}

/**
 * What an approval or a decline is remembered under (SPEC §2.5 "Approvals"): server, tool,
 * parameter and identity. For pinning questions `param` is `""` and `identity` is the current
 * definition's hash; for `action: ask`, `param` is `""` and `identity` is `"action:"` and the
 * canonical arguments; for `unclassified: ask`, `param` is `""` and `identity` is `"unclassified"`.
 * Those questions about the tool itself have `subject: "tool"`, so that no destination's key is one
 * of theirs (an argument named `""` may hold any value, a definition's hash too); a URL
 * destination's whole site is `subject: "site"` with the origin as identity, never the key of one
 * URL (`sftp://files.example`, with no path, is its own origin as text).
 */
export interface ApprovalKey {
  readonly server: string;
  readonly tool: string;
  readonly param: string;
  readonly identity: string;
  /**
   * `tool` for a question about the tool itself (pinning, `action: ask`, `unclassified: ask`),
   * `site` for a URL destination's whole site; absent for one destination.
   */
  readonly subject?: "tool" | "site";
}

/** A question an ask puts to the human (SPEC §2.5 "Ask once per call", §3.4). */
export interface Question {
  readonly kind: "destination" | "changed_tool" | "new_tool" | "action";
  /** One human sentence (untrusted values rendered safely). */
  readonly message: string;
  readonly key: ApprovalKey;
  /** For a URL destination: its origin, so the human may approve the whole site (SPEC §3.4 `scope`). */
  readonly origin?: string;
  /**
   * For a destination whose `key` is its spelling (a value not already canonical): the key of its
   * identity (a URL's canonical URL with its query), under which a decline is remembered too, so a
   * declined destination respelled (`Y <y@x.example>`, `y%40x.example`) is denied, not asked again
   * (SPEC §2.5: "A decline is remembered the same way", keyed by identity). Approvals never use it.
   */
  readonly declineKey?: ApprovalKey;
  readonly evidence?: readonly Evidence[];
}

/** A reason list that cannot be empty (STYLE #2). */
export type Reasons = readonly [Reason, ...Reason[]];

/** The decision record (SPEC §2.1). Audit lines, asks and CLI output all render from it. */
export type Decision =
  | { readonly verdict: "allow"; readonly contract: Contract; readonly reasons: readonly Reason[] }
  | { readonly verdict: "deny"; readonly contract: Contract; readonly reasons: Reasons }
  | {
      readonly verdict: "ask";
      readonly contract: Contract;
      readonly reasons: Reasons;
      readonly questions: readonly [Question, ...Question[]];
    };

/**
 * The effective rules for one tool of one server, after layering (SPEC §4.1) and heuristics (§4.4).
 * Built by the policy module once per (server, tool, pinned definition); read-only on the call path.
 * Absent keys mean "no layer set it".
 */
export interface ToolRules {
  readonly server: string;
  readonly tool: string;
  readonly action: Sourced<"allow" | "ask" | "deny">;
  /** Absent: unclassified — `unclassified` decides (SPEC §4.2 `defaults.unclassified`). */
  readonly exfiltrating?: Sourced<boolean>;
  /** Declared sinks: the union of the user's and packs' `sink_params` (never heuristics). */
  readonly sinkParams: readonly Sourced<string>[];
  /** Union of every layer's `trusted_destinations` (tool, server defaults, defaults). */
  readonly trustedDestinations: readonly Sourced<string>[];
  readonly onTainted: Sourced<"deny" | "ask">;
  readonly taintFields: Sourced<"lenient" | "strict">;
  readonly writeParams?: Sourced<readonly string[]>;
  readonly allowedPathPrefixes?: Sourced<readonly string[]>;
  /**
   * When `allowedPathPrefixes` is a written `[]`: the prefixes of the strongest weaker layer that sets
   * non-empty ones, which the `[]` overrides (for the confinement warnings of `check`, `explain` and
   * `run`; never read by a decision). Absent when nothing below sets prefixes, or under `replace: true`.
   */
  readonly overriddenPathPrefixes?: Sourced<readonly string[]>;
  /**
   * When a user layer sets `writeParams`: the list of the strongest pack below it that sets the key
   * too, which key-by-key merging overrides (for the views' warnings; never read by a decision).
   */
  readonly overriddenWriteParams?: Sourced<readonly string[]>;
  /** Compiled once at load: anchored `^(?:…)$`, Unicode (SPEC §2.4). */
  readonly argPatterns?: Sourced<ReadonlyMap<string, RegExp>>;
  /** As {@link ToolRules.overriddenWriteParams}, for `argPatterns`: the pack's patterns a user's override. */
  readonly overriddenArgPatterns?: Sourced<ReadonlyMap<string, RegExp>>;
  readonly maxCalls?: Sourced<number>;
  readonly trustedOutput?: Sourced<boolean>;
  /** `defaults.unclassified` (SPEC §4.2). */
  readonly unclassified: Sourced<"allow" | "ask">;
  /** `defaults.taint_min_length` (SPEC §2.5, default 6). */
  readonly taintMinLength: number;
  /** Whether §4.4 heuristics apply (sink-shaped argument additions in §2.5). */
  readonly heuristics: boolean;
  /** Where `taintMinLength` and `heuristics` came from (for `check` and `explain`; absent: not known). */
  readonly settingSources?: { readonly taintMinLength: RuleSource; readonly heuristics: RuleSource };
  /**
   * What a call reads of these rules in a form made once, when they are built (`compileCallRules`,
   * STYLE #4). Absent (rules written out by hand): each call makes it again, with the same result.
   */
  readonly compiled?: CompiledCallRules;
}

/** The parts of {@link ToolRules} a call reads, compiled once (see `compileCallRules`). */
export interface CompiledCallRules {
  /** The tool's budget counter key: `budgetKey(server, tool)` of the rules' server and tool. */
  readonly budgetKey: string;
  /** Every parameter path of `writeParams`, `argPatterns` and `sinkParams`, compiled, by its text. */
  readonly paramPaths: ReadonlyMap<string, ParamPath>;
}

/** An MCP tool definition as listed by `tools/list` (the fields pinning covers, SPEC §2.2). */
export interface ToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: JsonObject;
  readonly outputSchema?: JsonObject;
  readonly annotations?: JsonObject;
}

/** What pinning says about the called tool (SPEC §2.2), computed by the edge from the pin store. */
export type PinStatus =
  | { readonly kind: "pinned" }
  | { readonly kind: "changed"; readonly diff: PinDiff; readonly hash: string }
  | {
      readonly kind: "new";
      readonly hash: string;
      readonly suspicious: boolean;
      /** The definition the upstream lists, shown when the question is asked. */
      readonly definition?: ToolDefinition;
    }
  | { readonly kind: "unknown" };

/** A description of how a tool definition changed (SPEC §2.2, STYLE #7). */
export interface PinDiff {
  readonly descriptionChanged: boolean;
  readonly titleChanged: boolean;
  readonly propertiesAdded: readonly string[];
  readonly propertiesRemoved: readonly string[];
  readonly schemaChanged: boolean;
  readonly outputSchemaChanged: boolean;
  readonly annotationsChanged: boolean;
  /** The description's changed lines, removed (pinned) and added (current), in order. */
  readonly descriptionLines?: readonly PinDiffLine[];
  /**
   * True when only the description's line endings changed (`\n`, `\r\n`, a lone `\r`): its lines
   * are then split at `\n` alone, so each changed line shows its `\r` (rendered `\u{d}`).
   */
  readonly descriptionLineEndings?: boolean;
  /**
   * The changed leaves of the title, input and output schema and annotations (`path: JSON value`,
   * keys sorted), in order.
   */
  readonly fieldLines?: readonly PinDiffLine[];
  /** Annotation keys added, removed or changed, sorted. */
  readonly annotationKeys?: readonly string[];
}

/** One changed line of a tool description or field (SPEC §2.2 "saying what changed"). */
export interface PinDiffLine {
  readonly op: "removed" | "added";
  /** The line's text (untrusted: render it before showing it). */
  readonly text: string;
  /** For a leaf of a field: its path; the text is `path: JSON value` (the path is always shown). */
  readonly path?: string;
}

/** Taint evidence from outside this process (SPEC §3.7), for token-shaped identities only. */
export type ExternalTaintLookup = (identity: string) => readonly Evidence[];

/** One `tools/call` to decide (SPEC §2). */
export interface CallInput {
  readonly server: string;
  readonly tool: string;
  /** The arguments exactly as they will be forwarded (already checked for duplicate keys). */
  readonly arguments: JsonObject;
  readonly rules: ToolRules;
  /** The pinned definition's input schema, which selects destinations (SPEC §2.5). */
  readonly schema?: JsonObject;
  readonly pin: PinStatus;
  /**
   * The `--pins` mode (SPEC §2.2); under `off` nothing is stored for `bouncer pins accept`, so a
   * pinning reason does not name it. Absent: a mode that stores pins.
   */
  readonly pinMode?: "tofu" | "strict" | "off";
  /**
   * True when the server's pin file was removed (`bouncer pins forget`) while this session runs: the
   * session keeps its pins in memory and stores nothing more, so a pinning reason does not name
   * `bouncer pins accept` but a restart (SPEC §2.2).
   */
  readonly pinsForgotten?: boolean;
  readonly paths: PathContext;
  /**
   * True on the first evaluation of a client request: the budget counts it (SPEC §2.3). False on the
   * re-decision after an approval.
   */
  readonly countAttempt: boolean;
  /** Keys the human approved for this request only (`remember` off), honoured on the re-decision. */
  readonly oneTimeApprovals?: readonly ApprovalKey[];
  readonly externalTaint?: ExternalTaintLookup;
}

/**
 * What one contract found (SPEC §2 intro): every deny reason and every ask (a reason with its question).
 * Empty lists mean the contract has no objection. `decide()` combines these by one table.
 */
export interface ContractResult {
  readonly denies: readonly Reason[];
  readonly asks: readonly { readonly reason: Reason; readonly question: Question }[];
}

/** The human's answer to an ask (SPEC §3.4): accepted or not, remembered or not, URL scope. */
export interface AskAnswer {
  readonly accepted: boolean;
  /** Remember for the rest of the session (default true; SPEC §2.5 "Approvals"). */
  readonly remember: boolean;
  /** For URL destinations: approve this exact URL or the whole site (its origin). */
  readonly scope?: "url" | "site";
}
