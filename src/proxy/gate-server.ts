/**
 * What the gate keeps per upstream server: its context and matched packs, the last walk and pin
 * view, the path context decisions resolve in, and the effective rules compiled once per (tool,
 * pinned definition). Edge (no I/O; the gate's helpers).
 *
 * Source: SPEC §2.4 (path context), §4.1 (layers), §4.3 (packs by server).
 * @module
 */

import {
  normalizeRelativeBases,
  type PathContext,
  type RelativeBase,
  type ToolDefinition,
  type ToolRules,
} from "../engine/index.ts";
import { commandLineDirectories, resolveToolRules } from "../policy/index.ts";
import type { MatchedPack, Policy } from "../policy/types.ts";
import type { PinView } from "./gate-pins.ts";
import type { GateOptions } from "./gate-types.ts";
import { makeRoom } from "./make-room.ts";
import type { ServerContext } from "./memory-pin-store.ts";

/**
 * What the gate knows about one server.
 *
 * Source: SPEC §2.2, §2.4, §4.3.
 */
export interface ServerState {
  readonly context: ServerContext;
  readonly packs: readonly MatchedPack[];
  /** The last walk's tools as the upstream listed them. */
  listed?: readonly ToolDefinition[];
  /** The last comparison of the walk with the pins. */
  view?: PinView | undefined;
  /** The last pin event per tool, so a re-walk reports only changes. */
  lastEvents: Map<string, string>;
  /** Rules by `[tool, definition hash]`: compiled once per pinned definition (a bounded cache). */
  readonly rules: Map<string, ToolRules>;
  /**
   * Where the server's paths resolve (SPEC §2.4): its cwd, the home, the platform, the walk, and the
   * other bases of relative paths (its command-line directories, the roots the client gave it).
   */
  paths: PathContext;
}

/**
 * A fresh state for a server: packs matched, nothing walked yet (or the last walk, when the server is
 * registered again), the path context from its cwd (or Bouncer's), the home, the platform, and its
 * command-line directories as bases of relative paths, with the roots the client gave it before.
 *
 * Source: SPEC §2.4 (relative prefixes resolve against the upstream's working directory), §4.3.
 * @param context - The server's name and facts.
 * @param packs - The packs that matched it, strongest first.
 * @param options - The gate's options (cwd, home, platform, path resolver, protected paths), and the server's
 *   `previous` state when it is registered again (its last walk and client roots stay).
 * @returns The state, with empty caches.
 */
export function serverState(
  context: ServerContext,
  packs: readonly MatchedPack[],
  options: Pick<GateOptions, "cwd" | "home" | "platform" | "resolvePath" | "protectedPaths"> & {
    readonly previous?: ServerState;
  },
): ServerState {
  const { resolvePath, previous, protectedPaths } = options;
  const entry: ServerState = {
    context,
    packs,
    lastEvents: new Map(),
    rules: new Map(),
    // The bases are normalised once here and when the client's roots change, not per call.
    paths: normalizeRelativeBases({
      cwd: context.cwd ?? options.cwd,
      home: options.home,
      platform: options.platform ?? "posix",
      ...(resolvePath === undefined ? {} : { resolve: resolvePath }),
      ...(protectedPaths === undefined ? {} : { protectedPaths }),
      relativeBases: commandLineBases(context.command, packs),
    }),
  };
  if (previous === undefined) return entry;
  if (previous.listed !== undefined) entry.listed = previous.listed;
  const roots = previous.paths.relativeBases?.filter((base) => base.from === "client_root") ?? [];
  entry.paths = withClientRoots(
    entry.paths,
    roots.map((base) => base.dir),
  );
  return entry;
}

/**
 * The directories on a server's command line, as `$COMMAND_LINE_DIRS` finds them: after the token of
 * each pack matched by the command line, or, with none, the arguments shaped like paths. A relative
 * path value must stay inside the prefixes resolved against each of them too (a filesystem server
 * resolves it against its directories, not its working directory).
 *
 * Source: SPEC §2.4 (relative values), §4.3 (`$COMMAND_LINE_DIRS`).
 * @param command - The upstream command line, command first (none: no bases).
 * @param packs - The packs that matched the server.
 * @returns The bases, each directory once.
 */
function commandLineBases(
  command: readonly string[] | undefined,
  packs: readonly MatchedPack[],
): RelativeBase[] {
  if (command === undefined) return [];
  const indexes = packs.flatMap((matched) =>
    matched.commandIndex === undefined ? [] : [matched.commandIndex],
  );
  const dirs =
    indexes.length === 0
      ? commandLineDirectories(command)
      : indexes.flatMap((after) => commandLineDirectories(command, { after }));
  return [...new Set(dirs)].map((dir) => ({ dir, from: "command_line" }));
}

/**
 * The path context with the roots a client gave the server added to its bases of relative paths
 * (each root once; roots given earlier in the session stay: the upstream may still use them).
 *
 * Source: SPEC §2.4 (relative values).
 * @param paths - The server's path context.
 * @param roots - Root URIs or paths from the client's `roots/list` answer.
 * @returns The same context when nothing is new, else a new one, its bases normalised.
 */
export function withClientRoots(paths: PathContext, roots: readonly string[]): PathContext {
  const bases = paths.relativeBases ?? [];
  const known = new Set(bases.filter((base) => base.from === "client_root").map((base) => base.dir));
  const added = roots.filter((dir) => !known.has(dir));
  if (added.length === 0) return paths;
  const fresh = [...new Set(added)].map((dir): RelativeBase => ({ dir, from: "client_root" }));
  return normalizeRelativeBases({ ...paths, relativeBases: [...bases, ...fresh] });
}

/**
 * Compiled rules a server's cache holds at most. Its keys are (tool, definition hash), and the
 * upstream chooses both (a new tool's listed definition can change on every walk): past it the
 * oldest entry is dropped, and compiled again when needed (rules are a function of the policy and
 * the definition).
 *
 * Source: SPEC §3.3 (fail closed), §7 (memory); STYLE #4 (compile once, decide many).
 */
export const MAX_CACHED_RULES = 1024;

/**
 * The effective rules of a tool on a server, compiled once per (tool, pinned definition) and cached
 * in the server's state (at most {@link MAX_CACHED_RULES}): layers, packs and heuristics from the
 * policy module (SPEC §4.1, §4.4).
 *
 * Source: SPEC §4.1, §4.4.
 * @param policy - The validated user files and the packs.
 * @param entry - The server's state (its `rules` cache is filled in place).
 * @param tool - The tool name.
 * @returns The rules.
 */
export function cachedRules(policy: Policy, entry: ServerState, tool: string): ToolRules {
  const effective = entry.view?.effective.get(tool);
  const key = effective?.key ?? JSON.stringify([tool, ""]);
  const cached = entry.rules.get(key);
  if (cached !== undefined) return cached;
  const { command } = entry.context;
  const rules = resolveToolRules(policy, {
    server: entry.context.name,
    tool,
    packs: entry.packs,
    ...(effective === undefined ? {} : { definition: effective.definition }),
    ...(command === undefined ? {} : { command }),
  });
  makeRoom(entry.rules, MAX_CACHED_RULES);
  entry.rules.set(key, rules);
  return rules;
}
