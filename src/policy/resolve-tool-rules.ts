/**
 * Layering: the effective {@link ToolRules} of one tool of one server, each value with the layer it
 * came from. Strongest first: the user's `servers.<name>` entries (and `servers.<name>.defaults`),
 * the user's top-level entries (later files win), the matched packs, the user's `defaults`, then
 * the heuristics. Key by key, except `sink_params` and `trusted_destinations`, which are unions of
 * every layer; `replace: true` discards the layers below its entry.
 * Pure. Call once per (server, tool, pinned definition); the call path only reads the result.
 *
 * Source: SPEC §4.1 (layers and precedence), §4.3 (filesystem confinement), §4.4 (heuristics).
 * @module
 */

import { compileCallRules, type RuleSource, type Sourced, type ToolRules } from "../engine/index.ts";
import { heuristicRules } from "./heuristics.ts";
import { commandLineDirectories } from "./match-packs.ts";
import type { Policy, ResolveContext, ToolEntry } from "./types.ts";
import { COMMAND_LINE_DIRS } from "./value-rules.ts";

/** The default `taint_min_length` (SPEC §2.5). */
export const DEFAULT_TAINT_MIN_LENGTH = 6;

/** One layer's entry for the tool, with its source and, for packs, the matched command token. */
interface Contribution {
  readonly entry: ToolEntry;
  readonly source: RuleSource;
  /** The part of a user file: `servers.<name>` or `defaults` (none for a top-level entry). */
  readonly layer?: string;
  readonly commandIndex?: number;
}

type KeyedField = Exclude<keyof ToolEntry, "sinkParams" | "trustedDestinations" | "replace">;

/**
 * The effective rules for one tool.
 *
 * @param policy - The user's files (in command-line order) and the available packs.
 * @param ctx - Server name, tool name, pinned definition, matched packs and command line.
 * @returns The tool's rules, every value carrying its {@link RuleSource}.
 * Source: SPEC §4.1, §4.4.
 * @example
 * ```ts
 * const rules = resolveToolRules(policy, { server: "mail", tool: "send_email", packs: [] });
 * rules.exfiltrating; // { value: true, source: "user:bouncer.yaml" }
 * ```
 */
export function resolveToolRules(policy: Policy, ctx: ResolveContext): ToolRules {
  const newestFirst = [...policy.files].reverse();
  const serverEntries: Contribution[] = [];
  const userEntries: Contribution[] = [];
  const trusted: Sourced<string>[] = [];
  for (const file of newestFirst) {
    const source: RuleSource = `user:${file.file}`;
    const server = file.servers.get(ctx.server);
    const serverEntry = server?.tools.get(ctx.tool);
    const layer = `servers.${ctx.server}`;
    if (serverEntry) serverEntries.push({ entry: serverEntry, source, layer });
    for (const value of server?.trustedDestinations ?? [])
      trusted.push({ value, source, layer: `${layer}.defaults` });
    const topEntry = file.tools.get(ctx.tool);
    if (topEntry) userEntries.push({ entry: topEntry, source });
  }
  const packEntries: Contribution[] = [];
  for (const matched of ctx.packs) {
    const entry = matched.pack.tools.get(ctx.tool);
    if (!entry) continue;
    const index = matched.commandIndex;
    packEntries.push({
      entry,
      source: `pack:${matched.pack.name}`,
      ...(index === undefined ? {} : { commandIndex: index }),
    });
  }
  for (const pack of ctx.possiblePacks ?? []) {
    const entry = pack.tools.get(ctx.tool);
    if (entry) packEntries.push({ entry, source: `pack:${pack.name}` });
  }
  const named = [...serverEntries, ...userEntries, ...packEntries];
  const replaceAt = named.findIndex((c) => c.entry.replace === true);
  const layers = replaceAt === -1 ? [...named] : named.slice(0, replaceAt + 1);
  const replaced = replaceAt !== -1;

  const defaults = resolveDefaults(policy);
  if (!replaced) {
    for (const file of newestFirst) {
      if (file.defaults.onTainted !== undefined || file.defaults.taintFields !== undefined) {
        const { onTainted, taintFields } = file.defaults;
        layers.push({
          entry: {
            ...(onTainted === undefined ? {} : { onTainted }),
            ...(taintFields === undefined ? {} : { taintFields }),
          },
          source: `user:${file.file}`,
          layer: "defaults",
        });
      }
    }
  }
  const pick = <K extends KeyedField>(key: K): Sourced<NonNullable<ToolEntry[K]>> | undefined => {
    const found = layers.find((c) => c.entry[key] !== undefined);
    return found ? sourced(found.entry[key] as NonNullable<ToolEntry[K]>, found) : undefined;
  };

  const sinkParams = union(
    layers.flatMap((c) => (c.entry.sinkParams ?? []).map((value) => sourced(value, c))),
  );
  for (const c of layers)
    for (const value of c.entry.trustedDestinations ?? []) trusted.push(sourced(value, c));
  if (!replaced)
    for (const file of newestFirst)
      for (const value of file.defaults.trustedDestinations ?? [])
        trusted.push({ value, source: `user:${file.file}`, layer: "defaults" });

  // The strongest layer that states `exfiltrating` or declares sinks decides: declaring sinks marks
  // the tool exfiltrating unless that layer (or a stronger one) says `exfiltrating` explicitly, so a
  // user's sink_params is not switched off by a weaker pack's `exfiltrating: false`.
  const deciding = layers.find(
    (c) => c.entry.exfiltrating !== undefined || (c.entry.sinkParams?.length ?? 0) > 0,
  );
  let exfiltrating =
    deciding === undefined ? undefined : sourced(deciding.entry.exfiltrating ?? true, deciding);
  let onTainted = pick("onTainted");
  let maxCalls = pick("maxCalls");
  if (defaults.heuristics.value && !replaced) {
    const proposed = heuristicRules(ctx.tool, ctx.definition, {
      declaredSinks: sinkParams.map((s) => s.value),
      namedByPolicy: named.length > 0,
    });
    if (exfiltrating === undefined && proposed.exfiltrating)
      exfiltrating = { value: true, source: "heuristic" };
    if (onTainted === undefined && proposed.onTainted)
      onTainted = { value: proposed.onTainted, source: "heuristic" };
    if (maxCalls === undefined && proposed.maxCalls !== undefined)
      maxCalls = { value: proposed.maxCalls, source: "heuristic" };
  }

  const action = pick("action");
  const taintFields = pick("taintFields");
  const writeParams = pick("writeParams");
  const { prefixes, overridden } = resolvePrefixes(layers, ctx.command, ctx.showPlaceholders === true);
  const argPatterns = pick("argPatterns");
  const overriddenWriteParams = overriddenPackValue(layers, "writeParams");
  const overriddenArgPatterns = overriddenPackValue(layers, "argPatterns");
  const trustedOutput = pick("trustedOutput");
  const rules: ToolRules = {
    server: ctx.server,
    tool: ctx.tool,
    action: action ?? { value: "allow", source: "default" },
    ...(exfiltrating === undefined ? {} : { exfiltrating }),
    sinkParams,
    trustedDestinations: union(trusted),
    onTainted: onTainted ?? { value: "deny", source: "default" },
    taintFields: taintFields ?? { value: "lenient", source: "default" },
    ...(writeParams === undefined ? {} : { writeParams }),
    ...(prefixes === undefined ? {} : { allowedPathPrefixes: prefixes }),
    ...(overridden === undefined ? {} : { overriddenPathPrefixes: overridden }),
    ...(overriddenWriteParams === undefined ? {} : { overriddenWriteParams }),
    ...(argPatterns === undefined ? {} : { argPatterns }),
    ...(overriddenArgPatterns === undefined ? {} : { overriddenArgPatterns }),
    ...(maxCalls === undefined ? {} : { maxCalls }),
    ...(trustedOutput === undefined ? {} : { trustedOutput }),
    unclassified: defaults.unclassified,
    taintMinLength: defaults.taintMinLength.value,
    heuristics: defaults.heuristics.value,
    settingSources: {
      taintMinLength: defaults.taintMinLength.source,
      heuristics: defaults.heuristics.source,
    },
  };
  // What a call reads, compiled here once rather than on every call (STYLE #4).
  return { ...rules, compiled: compileCallRules(rules) };
}

/** A layer's value with its source (and the part of a user file that set it). */
function sourced<T>(value: T, from: { readonly source: RuleSource; readonly layer?: string }): Sourced<T> {
  return from.layer === undefined
    ? { value, source: from.source }
    : { value, source: from.source, layer: from.layer };
}

/**
 * When a user layer sets the key (and so wins it, key by key): the value of the strongest pack layer
 * below it that sets the key too — what the user's value overrides (SPEC §4.1). For the views'
 * warnings only; undefined when a pack wins the key, or no pack below sets it.
 */
function overriddenPackValue<K extends "writeParams" | "argPatterns">(
  layers: readonly Contribution[],
  key: K,
): Sourced<NonNullable<ToolEntry[K]>> | undefined {
  const at = layers.findIndex((c) => c.entry[key] !== undefined);
  if (at === -1 || !layers[at]!.source.startsWith("user:")) return undefined;
  const pack = layers.slice(at + 1).find((c) => c.source.startsWith("pack:") && c.entry[key] !== undefined);
  return pack === undefined ? undefined : sourced(pack.entry[key] as NonNullable<ToolEntry[K]>, pack);
}

/** The session-wide settings of `defaults:` (later files win). */
interface ResolvedDefaults {
  readonly heuristics: Sourced<boolean>;
  readonly unclassified: Sourced<"allow" | "ask">;
  readonly taintMinLength: Sourced<number>;
}

function resolveDefaults(policy: Policy): ResolvedDefaults {
  let heuristics: Sourced<boolean> = { value: true, source: "default" };
  let unclassified: Sourced<"allow" | "ask"> = { value: "allow", source: "default" };
  let taintMinLength: Sourced<number> = { value: DEFAULT_TAINT_MIN_LENGTH, source: "default" };
  for (const file of policy.files) {
    const from = { source: `user:${file.file}` as RuleSource, layer: "defaults" };
    if (file.defaults.heuristics !== undefined) heuristics = sourced(file.defaults.heuristics, from);
    if (file.defaults.unclassified !== undefined) unclassified = sourced(file.defaults.unclassified, from);
    if (file.defaults.taintMinLength !== undefined)
      taintMinLength = sourced(file.defaults.taintMinLength, from);
  }
  return { heuristics, unclassified, taintMinLength };
}

/**
 * `allowed_path_prefixes` of the strongest layer that sets it, with `$COMMAND_LINE_DIRS` replaced by
 * the directories on the upstream's command line (kept as written, with no command line, when only
 * showing the rules). An empty list confines nothing (SPEC §2.4: prefixes apply when non-empty): one
 * written `[]` is kept, with its layer, so that views show what turned the confinement off, and
 * `overridden` is what the next layer that sets the key would have given (when non-empty); a list
 * that only the expansion left empty is dropped.
 */
function resolvePrefixes(
  layers: readonly Contribution[],
  command: readonly string[] | undefined,
  showPlaceholders: boolean,
): { prefixes?: Sourced<readonly string[]>; overridden?: Sourced<readonly string[]> } {
  const setting = layers.filter((c) => c.entry.allowedPathPrefixes !== undefined);
  const [found, below] = setting;
  if (found === undefined) return {};
  const prefixes = expandPrefixes(found, command, showPlaceholders);
  if (prefixes === undefined) return {};
  if (prefixes.value.length > 0 || below === undefined) return { prefixes };
  const overridden = expandPrefixes(below, command, showPlaceholders);
  return overridden === undefined || overridden.value.length === 0 ? { prefixes } : { prefixes, overridden };
}

/** One layer's prefixes, expanded; a written `[]` stays; a list the expansion empties is undefined. */
function expandPrefixes(
  found: Contribution,
  command: readonly string[] | undefined,
  showPlaceholders: boolean,
): Sourced<readonly string[]> | undefined {
  const written = found.entry.allowedPathPrefixes ?? [];
  if (written.length === 0) return sourced([], found);
  const expanded = written.flatMap((prefix) => {
    if (prefix !== COMMAND_LINE_DIRS) return [prefix];
    if (command === undefined) return showPlaceholders ? [COMMAND_LINE_DIRS] : [];
    return commandLineDirectories(
      command,
      found.commandIndex === undefined ? {} : { after: found.commandIndex },
    );
  });
  return expanded.length === 0 ? undefined : sourced([...new Set(expanded)], found);
}

/** Distinct values, each with its strongest source (the list is strongest first). */
function union(values: readonly Sourced<string>[]): Sourced<string>[] {
  const seen = new Set<string>();
  return values.filter((item) => {
    if (seen.has(item.value)) return false;
    seen.add(item.value);
    return true;
  });
}
