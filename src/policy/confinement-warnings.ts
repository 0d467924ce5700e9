/**
 * What a user's layer takes away without saying so. Path confinement that confines nothing: a
 * user's `allowed_path_prefixes: []` (an empty list turns confinement off, and key-by-key merging
 * lets it override a pack's or another file's prefixes), and prefixes on a tool no layer gives
 * `write_params` (nothing is checked against them); and a user's `write_params` or `arg_patterns`
 * that drops a pack's (`override-warnings.ts`). All are valid policy (SPEC §2.4, §4.1); `check`,
 * `explain` and `run` warn about them, and decide as before. Pure.
 *
 * Source: SPEC §2.4 ("It applies when prefixes are non-empty and the argument is present"), §4.1
 * (key-by-key merging), §4.3 (packs), §5.5.
 * @module
 */

import { type JsonObject, type RuleSource, safeName, type ToolRules } from "../engine/index.ts";
import { overrideWarnings } from "./override-warnings.ts";
import { resolveToolRules } from "./resolve-tool-rules.ts";
import type { Pack, Policy, ResolveContext } from "./types.ts";
import { layerText, listText } from "./view-text.ts";

/** A user's `allowed_path_prefixes` that confines nothing, or a user key that drops a pack's. */
export interface ConfinementWarning {
  /**
   * `empty_prefixes`: a written `[]`; `prefixes_without_write_params`: no path argument named;
   * `write_params_overridden` / `arg_patterns_overridden`: a user value that drops a pack's items.
   */
  readonly code:
    | "empty_prefixes"
    | "prefixes_without_write_params"
    | "write_params_overridden"
    | "arg_patterns_overridden";
  readonly tool: string;
  /** The user file that set the key (`user:FILE`). */
  readonly source: RuleSource;
  /** The part of that file: `servers.<name>`, or none for a top-level entry. */
  readonly layer?: string;
  /**
   * What the user's value overrides: for `empty_prefixes`, the weaker layer's prefixes, when one
   * sets them; for the `_overridden` codes, the pack's whole value (a list of write parameters, or
   * argument → pattern as written) and the items that no longer apply (`dropped`).
   */
  readonly overrides?: {
    readonly source: RuleSource;
    readonly layer?: string;
    readonly value: readonly string[] | JsonObject;
    /** For the `_overridden` codes: the pack's write parameters, or pattern arguments, dropped. */
    readonly dropped?: readonly string[];
    /** True when the pack did not match the server here but may where it runs (check, explain). */
    readonly elsewhere?: boolean;
  };
  /** One line for people, naming the tool, the file and what to do. */
  readonly message: string;
}

/** What {@link confinementWarnings} looks at. */
export interface ConfinementContext extends Omit<ResolveContext, "tool" | "definition" | "possiblePacks"> {
  /** The tools to look at (default: every tool the files name at the top level or in `servers.<server>`). */
  readonly tools?: readonly string[];
  /**
   * True when `packs` are exactly the packs that apply (`bouncer run`, after `initialize`). Otherwise
   * (`check`, `explain`) the other packs that name a tool count too: `run` may match them by the
   * command line or `serverInfo.name`.
   */
  readonly packsKnown?: boolean;
}

/**
 * The warnings for user prefixes that confine nothing (one at most per tool), then for user
 * `write_params` and `arg_patterns` that drop a pack's, in the tools' order.
 *
 * Source: SPEC §2.4, §4.1, §5.5.
 * @param policy - The user's files and the packs.
 * @param ctx - The server, its matched packs and command line, and the tools to look at.
 * @returns The warnings (empty when every user prefix list confines something and no user key
 *   drops a pack's).
 * @example
 * ```ts
 * confinementWarnings(policy, { server: "", packs: [], tools: ["write_file"], showPlaceholders: true });
 * // [{ code: "empty_prefixes", tool: "write_file", source: "user:u.yaml", overrides: { source: "pack:filesystem", ... }, message: "..." }]
 * ```
 */
export function confinementWarnings(policy: Policy, ctx: ConfinementContext): ConfinementWarning[] {
  const tools = ctx.tools ?? namedTools(policy, ctx.server);
  const warnings: ConfinementWarning[] = [];
  for (const tool of tools) {
    warnings.push(...toolWarnings(policy, ctx, tool));
  }
  return warnings;
}

/** The tools the files name at the top level or under `servers.<server>`, sorted. */
function namedTools(policy: Policy, server: string): string[] {
  const names = new Set<string>();
  for (const file of policy.files) {
    for (const name of file.tools.keys()) names.add(name);
    for (const name of file.servers.get(server)?.tools.keys() ?? []) names.add(name);
  }
  return [...names].sort();
}

function toolWarnings(policy: Policy, ctx: ConfinementContext, tool: string): ConfinementWarning[] {
  // Packs that did not match here but name the tool: `run` may match them where the server runs.
  const elsewhere: Pack[] =
    ctx.packsKnown === true
      ? []
      : policy.packs.filter(
          (pack) => pack.tools.has(tool) && !ctx.packs.some((matched) => matched.pack === pack),
        );
  const rules = resolveToolRules(policy, { ...ctx, tool, possiblePacks: elsewhere });
  const confinement = confinementWarning(rules, elsewhere);
  return [...(confinement === undefined ? [] : [confinement]), ...overrideWarnings(rules, elsewhere)];
}

function confinementWarning(rules: ToolRules, elsewhere: readonly Pack[]): ConfinementWarning | undefined {
  const { tool } = rules;
  const prefixes = rules.allowedPathPrefixes;
  if (prefixes === undefined || !prefixes.source.startsWith("user:")) return undefined;
  const at = layerText(prefixes);
  const name = safeName(tool);
  const base = {
    tool,
    source: prefixes.source,
    ...(prefixes.layer === undefined ? {} : { layer: prefixes.layer }),
  };
  if (prefixes.value.length === 0) {
    const below = rules.overriddenPathPrefixes;
    if (below === undefined) {
      const message = `${name}: allowed_path_prefixes: [] (${at}) confines nothing: an empty list turns path confinement off`;
      return { code: "empty_prefixes", ...base, message };
    }
    const fromPack = below.source.startsWith("pack:");
    const far = elsewhere.some((pack) => below.source === `pack:${pack.name}`);
    const overrides = {
      source: below.source,
      ...(below.layer === undefined ? {} : { layer: below.layer }),
      value: below.value,
      ...(far ? { elsewhere: true } : {}),
    };
    const whose = fromPack ? "the pack's " : "";
    const scope = far ? ", on the servers that pack matches" : "";
    const message = `${name}: allowed_path_prefixes: [] (${at}) confines nothing: it overrides ${whose}allowed_path_prefixes ${listText(below.value)} (${layerText(below)}${scope}), so the tool's writes are not confined (leave the key out to keep ${fromPack ? "the pack's" : "that"} confinement)`;
    return { code: "empty_prefixes", ...base, overrides, message };
  }
  if ((rules.writeParams?.value.length ?? 0) > 0) return undefined;
  const message = `${name}: allowed_path_prefixes ${listText(prefixes.value)} (${at}) confines nothing: no layer names a path argument of ${name} in write_params, so no argument is checked against them (add write_params: [ARG] for its path arguments)`;
  return { code: "prefixes_without_write_params", ...base, message };
}
