/**
 * The pure planner of `bouncer init` (STYLE #16): (config text, client, selection, launcher) → the
 * new text, one action per entry, warnings. Nothing is read or written here; the command prints the
 * plan's diff and applies it atomically. Every plan is verified by parsing the new text again
 * (`verify-rewrite.ts`). Pure.
 *
 * Source: SPEC §5.2, STYLE #16.
 * @module
 */

import type { ClientInfo } from "./client-table.ts";
import { readJsonConfig } from "./json-config.ts";
import { hasSecretArgs, literalSecretWarnings, secretArgValues } from "./secret-args.ts";
import { maskValues } from "./secrets.ts";
import { readTomlConfig } from "./toml-config.ts";
import type { Assignment, ConfigEntry, Edit, Launcher, ParsedConfig } from "./types.ts";
import { deepEqual, verifyRewrite } from "./verify-rewrite.ts";

/** What `init` does with one entry. */
export type EntryActionKind = "wrap" | "unwrap" | "keep" | "refuse";

/** One entry's outcome, with a message for people (no values of secrets). */
export interface EntryAction {
  readonly entry: ConfigEntry;
  readonly action: EntryActionKind;
  readonly message: string;
}

/** Options of {@link planInit}. */
export interface PlanOptions {
  readonly client: ClientInfo;
  /** `wrap` (default `init`) or `undo` (`init --undo`). */
  readonly mode: "wrap" | "undo";
  /** Only these server names (empty or absent: all). */
  readonly servers?: readonly string[];
  /** Absolute policy paths for `--policy` (wrap only). */
  readonly policies?: readonly string[];
  /** How the client will start Bouncer (required to wrap). */
  readonly launcher?: Launcher;
}

/** The plan for one file. */
export interface InitPlan {
  readonly before: string;
  readonly after: string;
  readonly changed: boolean;
  readonly config: ParsedConfig;
  readonly actions: readonly EntryAction[];
  readonly warnings: readonly string[];
}

/**
 * Reads a config text with its client's format.
 *
 * Source: SPEC §5.2.
 * @param text - The file's text (without a byte-order mark).
 * @param client - Its client.
 * @returns The parsed config.
 * @throws {ConfigSyntaxError} When it does not parse.
 */
export function readConfig(text: string, client: ClientInfo): ParsedConfig {
  return client.format === "toml"
    ? readTomlConfig(text)
    : readJsonConfig(text, { format: client.format, sections: client.sections });
}

/**
 * Applies non-overlapping text edits in one pass, in the same order as `jsonc-parser`'s `applyEdits`
 * (by offset, then length, then as given) but in time linear in the text: `applyEdits` copies the
 * whole text once per edit, minutes for a 30 MB `~/.claude.json` with thousands of entries.
 *
 * Source: SPEC §5.2 (edits are surgical).
 * @param text - The text.
 * @param edits - Ranges to replace (`offset`, `length`, `content`), in any order.
 * @returns The edited text.
 * @throws {RangeError} When two edits overlap or one reaches past the text.
 */
export function applyTextEdits(text: string, edits: readonly Edit[]): string {
  // `sort` is stable: edits equal in offset and length stay in the order given.
  const sorted = [...edits].sort((a, b) => a.offset - b.offset || a.length - b.length);
  const parts: string[] = [];
  let cursor = 0;
  for (const edit of sorted) {
    if (edit.offset < cursor || edit.offset + edit.length > text.length) {
      throw new RangeError(`Overlapping or out-of-range edit at offset ${edit.offset}`);
    }
    parts.push(text.slice(cursor, edit.offset), edit.content);
    cursor = edit.offset + edit.length;
  }
  parts.push(text.slice(cursor));
  return parts.join("");
}

/**
 * Plans `bouncer init` (or `--undo`) for one config text.
 *
 * Source: SPEC §5.2.
 * @param text - The file's text (without a byte-order mark).
 * @param options - Client, mode, selection, policies and launcher.
 * @returns The plan; `changed` is false when nothing is to be written.
 * @throws {ConfigSyntaxError} When the text does not parse.
 * @throws {Error} When the rewrite would change anything but the selected entries (a bug, refused).
 * @example planInit('{"mcpServers":{"fs":{"command":"npx"}}}', { client, mode: "wrap", launcher })
 */
export function planInit(text: string, options: PlanOptions): InitPlan {
  const config = readConfig(text, options.client);
  const selected = new Set(options.servers ?? []);
  const actions: EntryAction[] = [];
  const edits: Edit[] = [];
  const assignments: Assignment[] = [];
  const warnings: string[] = [];
  for (const entry of config.entries) {
    if (selected.size > 0 && !selected.has(entry.name)) continue;
    warnings.push(...literalSecretWarnings(entry));
    const action = options.mode === "wrap" ? planWrap(config, entry, options) : planUndo(config, entry);
    actions.push(action.action);
    edits.push(...(action.edits?.edits ?? []));
    assignments.push(...(action.edits?.assignments ?? []));
  }
  const after = edits.length === 0 ? text : applyTextEdits(text, edits);
  const strict = options.client.format === "json" && isStrictJson(text);
  if (options.client.format === "json" && !strict) {
    warnings.push(`The config has comments or trailing commas, which ${options.client.title} may not accept`);
  }
  if (after !== text) {
    const reread = readConfig(after, options.client);
    verifyRewrite(config.value, { after: reread.value, assignments });
    if (strict && !isStrictJson(after))
      throw new Error("Cannot rewrite the config: the result is not strict JSON");
  }
  return { before: text, after, changed: after !== text, config, actions, warnings };
}

/**
 * Whether a text is strict JSON (what Claude Desktop, Claude Code and Cursor read).
 * @param text - A config text.
 * @returns True when `JSON.parse` accepts it.
 */
function isStrictJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The wrap action of one entry.
 * @param config - The parsed config.
 * @param entry - The entry.
 * @param options - The plan options.
 * @returns The action and, when wrapping, its edits.
 */
function planWrap(
  config: ParsedConfig,
  entry: ConfigEntry,
  options: PlanOptions,
): { action: EntryAction; edits?: ReturnType<ParsedConfig["wrapEdits"]> } {
  const name = `"${entry.label}"`;
  switch (entry.kind) {
    case "stdio": {
      if (options.launcher === undefined) throw new TypeError("Cannot wrap without a launcher");
      // An entry whose arguments hold a secret gets no stash: the secret is not copied (F11).
      const secretArgs = hasSecretArgs([entry.command ?? "", ...(entry.args ?? [])]);
      const stash = options.client.stash && !secretArgs;
      const spec = { launcher: options.launcher, policies: options.policies ?? [], stash };
      const note =
        options.client.stash && secretArgs ? " (no x-bouncer-upstream: its arguments hold a secret)" : "";
      const action: EntryAction = {
        entry,
        action: "wrap",
        message: `wrap ${name}${note}${commandLineNote(entry)}${entry.urlBeside === true ? URL_BESIDE_NOTE : ""}`,
      };
      return { action, edits: config.wrapEdits(entry, spec) };
    }
    case "wrapped": {
      const asked = options.policies ?? [];
      const has = entry.wrapped?.policies ?? [];
      // `--policy` for an entry wrapped with other files would silently not apply: say so.
      if (asked.length > 0 && (asked.length !== has.length || asked.some((file, i) => file !== has[i]))) {
        const now =
          has.length === 0 ? "no --policy" : `--policy ${has.map((file) => `"${file}"`).join(", ")}`;
        const message = `${name} is already wrapped, with ${now}: --policy is not applied to it (run bouncer init --undo first, then wrap it again)`;
        return { action: { entry, action: "refuse", message } };
      }
      return { action: { entry, action: "keep", message: `${name} is already wrapped` } };
    }
    case "remote":
      return {
        action: {
          entry,
          action: "keep",
          message: `${name} is a ${entry.reason ?? "remote server"}: not wrapped`,
        },
      };
    default:
      if (entry.unwrappable === true) {
        // A stdio server left as it is runs unchecked: not a quiet "left alone" (SPEC §5.2).
        const message = `${name} cannot be wrapped: ${entry.reason ?? "unknown reason"}`;
        return { action: { entry, action: "refuse", message } };
      }
      return {
        action: {
          entry,
          action: "keep",
          message: `${name} left alone: ${entry.reason ?? "not a stdio server"}`,
        },
      };
  }
}

/**
 * The note for a stdio entry with a `url` beside its `command` and no `type`: its command is wrapped
 * (the clients that start it run Bouncer), but a client that prefers the URL connects there, past
 * Bouncer (a remote server is not wrapped).
 *
 * Source: SPEC §5.2 (say what is done); the review of init on odd entries.
 */
const URL_BESIDE_NOTE =
  ' (it has a "url" too: clients that start its command run it through Bouncer; one that prefers the URL, such as Gemini CLI, connects there unchecked)';

/**
 * A note for an entry whose `command` reads as a whole command line (`"npx -y @x/y"`, no `args`):
 * MCP clients that start a server directly, and `bouncer run` after it, take the whole text for
 * one program's name, so such a server does not start. Wrapped as written all the same (a client
 * that runs it through a shell might start it); an absolute path with spaces (`C:\Program
 * Files\…\node.exe`) is a program's name and gets no note.
 *
 * Source: SPEC §5.2 (say what is done); the review of init on odd entries.
 * @param entry - A stdio entry.
 * @returns The note, starting with a space, or `""`.
 */
function commandLineNote(entry: ConfigEntry): string {
  const command = entry.command ?? "";
  const [first = ""] = command.trim().split(/\s/);
  if ((entry.args ?? []).length > 0 || !/\S\s+\S/.test(command.trim()) || /[\\/]/.test(first)) return "";
  // Its words are arguments: the secrets among them are masked as the diff masks them.
  const shown = maskValues(command, secretArgValues(command.trim().split(/\s+/)));
  return ` (its command ${JSON.stringify(shown)} holds spaces and it has no args: started as one program's name, it will not start; split it into "command" and "args" if the server does not start)`;
}

/**
 * Whether a wrapped entry's `x-bouncer-upstream` stash names another command line than the one after
 * its `--` (what the client runs): one of them was edited by hand, and `--undo` refuses to guess
 * which is meant (`--check` reports it).
 *
 * Source: SPEC §5.2 ("`--undo` rebuilds each wrapped entry from its args after `--` (refusing if
 * they disagree with the stash)").
 * @param entry - A config entry.
 * @returns True for a wrapped `-- COMMAND` entry whose stash has another command or arguments.
 */
export function stashDisagrees(entry: ConfigEntry): boolean {
  const { wrapped, stash } = entry;
  if (entry.kind !== "wrapped" || wrapped?.form !== "dash" || stash === undefined) return false;
  return stash.command !== wrapped.command || !deepEqual(stash.args, wrapped.args);
}

/**
 * The undo action of one entry: restore a wrapped entry from its arguments after `--`, refusing when
 * those disagree with the stash.
 * @param config - The parsed config.
 * @param entry - The entry.
 * @returns The action and, when restoring, its edits.
 */
function planUndo(
  config: ParsedConfig,
  entry: ConfigEntry,
): { action: EntryAction; edits?: ReturnType<ParsedConfig["unwrapEdits"]> } {
  const name = `"${entry.label}"`;
  const wrapped = entry.wrapped;
  if (entry.kind !== "wrapped" || wrapped === undefined) {
    return { action: { entry, action: "keep", message: `${name} is not wrapped` } };
  }
  if (wrapped.form !== "dash") {
    return {
      action: { entry, action: "refuse", message: `${name} is wrapped with "--config": restore it by hand` },
    };
  }
  if (stashDisagrees(entry)) {
    const message = `${name}: the command after "--" disagrees with x-bouncer-upstream: restore it by hand`;
    return { action: { entry, action: "refuse", message } };
  }
  return {
    action: { entry, action: "unwrap", message: `restore ${name}` },
    edits: config.unwrapEdits(entry),
  };
}
