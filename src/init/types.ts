/**
 * Shared shapes of `bouncer init` and `bouncer doctor`: client kinds, config formats, the launcher,
 * the entries read from a client config and the edits made to it. Pure (types only).
 *
 * Source: SPEC §5.2, §5.3.
 * @module
 */

import type { Edit } from "jsonc-parser";

export type { Edit } from "jsonc-parser";

/** How a client config file is written: strict JSON, JSON with comments, or TOML (Codex). */
export type ConfigFormat = "json" | "jsonc" | "toml";

/** The MCP clients whose config files `bouncer init` knows (SPEC §5.2); `generic` = recognised by content. */
export type ClientKind =
  | "claude-desktop"
  | "claude-code"
  | "cursor"
  | "vscode"
  | "windsurf"
  | "zed"
  | "codex"
  | "gemini"
  | "cline"
  | "generic";

/**
 * How a client starts Bouncer: `command` is spawned with `prefixArgs` before Bouncer's own arguments.
 * - installed: the `bouncer` found on PATH (Homebrew or scoop shim), `prefixArgs` empty;
 * - compiled binary: the absolute path of the running executable, `prefixArgs` empty;
 * - from source: the absolute path of the Bun executable, `prefixArgs` = [absolute path of `src/cli.ts`].
 *
 * Source: SPEC §5.2 ("the Bouncer launcher").
 */
export interface Launcher {
  /** Absolute path (or PATH name) of the executable the client spawns. */
  readonly command: string;
  /** Arguments that come before `run` (the CLI script when running from source). */
  readonly prefixArgs: readonly string[];
}

/** A half-open range of UTF-16 offsets in a config text: `[start, end)`. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** The original upstream kept under `x-bouncer-upstream` (never `env`). Source: SPEC §5.1, §5.2. */
export interface Stash {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
}

/** The `args` of a wrapped entry, split into Bouncer's part and the upstream's part. */
export interface WrappedArgs {
  /** The launcher's arguments before `run`. */
  readonly prefixArgs: readonly string[];
  /** The value of `--upstream-name`. */
  readonly upstreamName: string;
  /** The values of every `--policy`, in order. */
  readonly policies: readonly string[];
  /** The value of `--mode` when given (`audit` enforces nothing). */
  readonly mode?: string;
  /** The value of `--pins` when given (`off` turns the rug-pull guard off). */
  readonly pins?: string;
  /** `dash`: `run ... -- COMMAND ARGS...`; `config`: `run --config FILE` (the upstream is in the stash). */
  readonly form: "dash" | "config";
  /** The upstream command (the element after `--`); empty for the `config` form. */
  readonly command: string;
  /** The upstream arguments (after the command). */
  readonly args: readonly string[];
  /** Index of `--` in the entry's `args` (-1 for the `config` form). */
  readonly dashIndex: number;
}

/** What an entry is: wrappable stdio, already wrapped, remote, or something init leaves alone. */
export type EntryKind = "stdio" | "wrapped" | "remote" | "unsupported";

/** One server entry of a client config, as read (values decoded, nothing changed). */
export interface ConfigEntry {
  /** The server's key (also its `--upstream-name`). */
  readonly name: string;
  /** Path from the document root to the object holding the servers, e.g. `["mcpServers"]`. */
  readonly scope: readonly string[];
  /** How the entry is named to people: the name, plus the project for `~/.claude.json` projects. */
  readonly label: string;
  readonly kind: EntryKind;
  /** Why a remote or unsupported entry is left alone (never holds a URL or a secret). */
  readonly reason?: string;
  /** The command as written (for a wrapped entry: the launcher). */
  readonly command?: string;
  /** The arguments as written. */
  readonly args?: readonly string[];
  /** The `cwd` key, as written. */
  readonly cwd?: string;
  /** The `env` entries with string values (used to launch and to mask; never printed). */
  readonly env: readonly (readonly [string, string])[];
  /** For a wrapped entry: its arguments split. */
  readonly wrapped?: WrappedArgs;
  /** A well-formed `x-bouncer-upstream` stash, if present. */
  readonly stash?: Stash;
  /** True when an `x-bouncer-upstream` key is present but malformed. */
  readonly stashInvalid?: boolean;
  /** Zed's older shape: `command` is an object with `path`, `args`, `env`. */
  readonly nested?: boolean;
  /** Left alone because it runs `bouncer run` in a form `init` does not read (`--check` flags it). */
  readonly runsBouncer?: boolean;
  /** A stdio server `init` cannot wrap (`reason` says why): it runs unchecked (`--check` flags it). */
  readonly unwrappable?: boolean;
  /** A stdio entry with a `url` beside its `command` and no `type`: clients that prefer the URL use it. */
  readonly urlBeside?: boolean;
  /** Where the entry's text is (for tests and reports). */
  readonly span: Span;
}

/** One semantic change an edit makes: set (or delete, `value` undefined) the value at `path`. */
export interface Assignment {
  readonly path: readonly string[];
  readonly value?: unknown;
  readonly remove?: boolean;
}

/** The text edits for one entry and the semantic change they must produce. */
export interface EntryEdits {
  readonly edits: readonly Edit[];
  readonly assignments: readonly Assignment[];
}

/** What wrapping needs besides the entry. */
export interface WrapSpec {
  readonly launcher: Launcher;
  /** Absolute policy file paths, each becoming `--policy FILE`. */
  readonly policies: readonly string[];
  /** Whether to write the `x-bouncer-upstream` stash (per client, see `client-table.ts`). */
  readonly stash: boolean;
}

/** A client config read into entries, with the format-specific edit makers. */
export interface ParsedConfig {
  readonly format: ConfigFormat;
  /** Paths of the server sections found (empty: the file has no server section). */
  readonly sections: readonly (readonly string[])[];
  readonly entries: readonly ConfigEntry[];
  /** Ranges holding secrets (env values, headers, values after secret-named flags), masked in output. */
  readonly secretSpans: readonly Span[];
  /** The whole document as a value (null-prototype objects), for verifying a rewrite. */
  readonly value: unknown;
  /** Edits that wrap one stdio entry. */
  readonly wrapEdits: (entry: ConfigEntry, spec: WrapSpec) => EntryEdits;
  /** Edits that restore one wrapped (`dash` form) entry from its arguments after `--`. */
  readonly unwrapEdits: (entry: ConfigEntry) => EntryEdits;
}
