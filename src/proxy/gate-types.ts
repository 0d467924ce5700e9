/**
 * The gate's public data: its options and what its methods return (see `gate.ts`). Edge.
 *
 * Source: SPEC §2, §2.2, §3.5, §5.9.
 * @module
 */

import type {
  ApprovalKey,
  Decision,
  EngineStateOptions,
  ExternalTaintLookup,
  IndexEntry,
  PathResolver,
  PinStatus,
  ToolDefinition,
  ToolRules,
} from "../engine/index.ts";
import type { PinStore } from "./memory-pin-store.ts";

/** Options of a `Gate`. */
export interface GateOptions {
  /** Where pins live (default: in memory, for replay and `--pins off`). */
  readonly pins?: PinStore;
  /** `--pins` mode (SPEC §2.2, default `tofu`). */
  readonly pinMode?: "tofu" | "strict" | "off";
  /** Whether the pin file was removed while the session runs (`bouncer pins forget`; SPEC §2.2). */
  readonly pinsForgotten?: () => boolean;
  /** The user's home directory, for `~` in paths (SPEC §2.4). */
  readonly home: string;
  /** The working directory of servers that do not state one. */
  readonly cwd: string;
  readonly platform?: "posix" | "win32";
  /** The lstat/readlink walk (SPEC §2.4); absent: the engine's lexical default. */
  readonly resolvePath?: PathResolver;
  /**
   * Bouncer's own files and folders (its home, the policy files, the audit log, the session file),
   * absolute: no `write_params` value may reach them (`PathContext.protectedPaths`).
   */
  readonly protectedPaths?: readonly string[];
  /** Taint seen by other instances of the client session (SPEC §3.7). */
  readonly externalTaint?: ExternalTaintLookup;
  /** Options of the session's taint store (window size). */
  readonly state?: EngineStateOptions;
  /**
   * List the tokens each recording newly indexes (`WalkResult.indexed` and the record methods'
   * results), for the cross-server session store (SPEC §3.7). Default false: nothing reads them
   * yet, and listing costs a string per new token.
   */
  readonly listIndexed?: boolean;
}

/** A pin event of a walk or an approval (SPEC §3.5 `pin` records). */
export interface PinEvent {
  /** `pinned` on first sight, `changed` hash differs, `hidden` new tool held back, `accepted` by the human. */
  readonly kind: "pinned" | "changed" | "hidden" | "accepted";
  readonly server: string;
  readonly tool: string;
  /** SHA-256 (hex) of the current canonical definition. */
  readonly hash: string;
  /** For `hidden`: the definition holds invisible or bidi control characters. */
  readonly suspicious?: boolean;
  /** For `accepted`: accepted outside this instance (`bouncer pins accept`, another instance). */
  readonly elsewhere?: boolean;
}

/** The result of `Gate.walkTools()`. */
export interface WalkResult {
  /**
   * The tool list the client should see (pinned definitions for changed tools, new tools hidden;
   * every tool as listed under `showListed`).
   */
  readonly visible: readonly ToolDefinition[];
  /** What changed in pinning since the previous walk of this server. */
  readonly events: readonly PinEvent[];
  /**
   * Tokens newly indexed from the definitions, for the cross-server session store (SPEC §3.7); empty
   * unless the gate was made with `listIndexed`.
   */
  readonly indexed: readonly IndexEntry[];
  /**
   * Every changed and new tool of this walk, with the definition compared (the one a question
   * shows): what waits for `bouncer pins accept` now (SPEC §2.2).
   */
  readonly pending: readonly PendingTool[];
}

/** A definition that waits for approval: a changed pinned tool, or a new one. */
export interface PendingTool {
  readonly definition: ToolDefinition;
  readonly kind: "changed" | "new";
}

/** A server's pins as read from the gate's own pin store (`PinStore.load`) for one decision. */
export interface PinsRead {
  /** What `load` returned: `undefined` when the server has never been pinned. */
  readonly pins: ReadonlyMap<string, ToolDefinition> | undefined;
}

/** Options of `Gate.decideCall()`. */
export interface DecideOptions {
  /** True on a request's first evaluation (default): the budget counts it (SPEC §2.3). */
  readonly countAttempt?: boolean;
  /** Keys approved for this request only (from `Gate.answer()`). */
  readonly oneTimeApprovals?: readonly ApprovalKey[];
  /** The request's sequence number on a re-decision; a new one is assigned when absent. */
  readonly seq?: number;
  /**
   * The server's pins as the caller read them from this gate's store just before, for this request
   * (SPEC §2.2: "they re-read the pin file before deciding" — once, not twice); the decision is made
   * on exactly these. Absent: the gate reads them itself.
   */
  readonly pins?: PinsRead;
}

/** The result of `Gate.decideCall()`. */
export interface GateDecision {
  readonly decision: Decision;
  /** The per-session call sequence number of this request (SPEC §3.5 `seq`). */
  readonly seq: number;
  readonly rules: ToolRules;
  readonly pin: PinStatus;
}

/** The result of `Gate.answer()`. */
export interface AnswerResult {
  /** Pass these in {@link DecideOptions.oneTimeApprovals} when deciding the request again. */
  readonly oneTimeApprovals: readonly ApprovalKey[];
  /** Tools re-pinned by the approval; the proxy sends `notifications/tools/list_changed`. */
  readonly events: readonly PinEvent[];
}
