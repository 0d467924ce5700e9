/**
 * The schema heuristics, the weakest policy layer: sink-shaped arguments make a tool exfiltrating,
 * read-like URL tools get `on_tainted: ask`, destructive verbs (and an explicit `destructiveHint`)
 * get a budget of 2. They fill only keys no stronger layer sets; layering applies them.
 * Pure.
 *
 * Source: SPEC §4.4.
 * @module
 */

import {
  isJsonObject,
  isSinkShapedName,
  type JsonObject,
  member,
  type ToolDefinition,
  walkSchema,
  withoutCollectionWord,
} from "../engine/index.ts";

/** The default budget of a destructive tool (SPEC §4.4). */
export const DESTRUCTIVE_MAX_CALLS = 2;

/** Destructive verbs, matched as whole words of the tool name (SPEC §4.4). */
const DESTRUCTIVE_VERBS: ReadonlySet<string> = new Set([
  "delete",
  "remove",
  "rm",
  "drop",
  "destroy",
  "purge",
  "truncate",
]);

/** First words of read-like tools (SPEC §4.4). */
const READ_VERBS: ReadonlySet<string> = new Set(["get", "fetch", "read", "open", "browse", "visit"]);

/** Last words of an argument that holds a URL. */
const URL_WORDS: ReadonlySet<string> = new Set(["url", "uri", "urls", "uris"]);

/** What the heuristics propose for one tool; absent keys propose nothing. */
export interface HeuristicRules {
  readonly exfiltrating?: true;
  readonly onTainted?: "ask";
  readonly maxCalls?: number;
}

/** Options of {@link heuristicRules}. */
export interface HeuristicOptions {
  /**
   * Sinks declared by stronger layers (`sink_params`): a read-like tool whose declared sink holds a
   * URL is a read-like URL tool even when the name is not sink-shaped.
   */
  readonly declaredSinks?: readonly string[];
  /** True when a user entry or a pack names this tool: annotations are then ignored (SPEC §4.4). */
  readonly namedByPolicy?: boolean;
}

/**
 * The words of a tool or argument name: split on `_`, `-`, `.`, `/`, spaces and camelCase,
 * lower-cased (`sendEmail` → `send`, `email`; `HTTPGet` → `http`, `get`).
 *
 * @param name - A tool or argument name.
 * @returns Its words, in order.
 * Source: SPEC §4.4 ("split on `_`, `-`, spaces and camelCase").
 */
export function nameWords(name: string): string[] {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(/[\s_\-./]+/u)
    .filter((word) => word !== "")
    .map((word) => word.toLowerCase());
}

/**
 * Whether a tool name holds a destructive verb as a whole word (`delete_item`, `rm`, `dropTable`;
 * not `format_string` or `confirm_order`).
 *
 * @param tool - The tool name.
 * @returns True when destructive.
 * Source: SPEC §4.4.
 */
export function isDestructiveName(tool: string): boolean {
  return nameWords(tool).some((word) => DESTRUCTIVE_VERBS.has(word));
}

/**
 * What the §4.4 heuristics propose for a tool, from its name and pinned definition.
 *
 * @param tool - The tool name.
 * @param definition - The pinned definition (schema and annotations), when known.
 * @param options - Declared sinks of stronger layers; whether a stronger layer names the tool.
 * @returns The proposed keys (layering keeps only those no stronger layer sets).
 * Source: SPEC §4.4.
 * @example
 * ```ts
 * heuristicRules("delete_item", undefined); // { maxCalls: 2 }
 * ```
 */
export function heuristicRules(
  tool: string,
  definition: ToolDefinition | undefined,
  options: HeuristicOptions = {},
): HeuristicRules {
  const walked = walkSchema(definition?.inputSchema);
  const args = walked.properties;
  const sinks = args.filter(([name]) => isSinkShapedName(name, tool));
  // Every sink of the tool, sink-shaped or declared, and whether each holds a URL: only a tool all
  // of whose sinks are URLs is a read-like URL tool (a tainted `to` of `fetch_and_send(url, to)` is
  // still denied, not asked about because the tool also takes a URL).
  const sinkUrls = [
    ...sinks.map(([name, schema]) => holdsUrl(name, schema)),
    ...(options.declaredSinks ?? []).map((path) => {
      const last = path.split(".").at(-1)?.replace(/\[\]/gu, "") ?? "";
      const schema = args.find(([name]) => name === last)?.[1] ?? {};
      return holdsUrl(last, schema);
    }),
  ];
  const urlTool = sinkUrls.length > 0 && sinkUrls.every((url) => url);
  const firstWord = nameWords(tool)[0] ?? "";
  const annotations = definition?.annotations;
  const destructiveHint = isJsonObject(annotations) && member(annotations, "destructiveHint") === true;
  const destructive = isDestructiveName(tool) || (destructiveHint && options.namedByPolicy !== true);
  return {
    // A schema too large to walk whole may hide a sink-shaped name: fail closed.
    ...(sinks.length > 0 || walked.truncated ? { exfiltrating: true as const } : {}),
    ...(READ_VERBS.has(firstWord) && urlTool ? { onTainted: "ask" as const } : {}),
    ...(destructive ? { maxCalls: DESTRUCTIVE_MAX_CALLS } : {}),
  };
}

/** JSON Schema formats of a URL. */
const URL_FORMATS: ReadonlySet<unknown> = new Set(["uri", "url", "iri", "uri-reference"]);

/**
 * Whether a sink argument holds URLs: its schema's `format` (or its items' `format`) is a URL's, or
 * its name's last word is `url`/`uri`, read through a trailing `list` or `array` as sink-shaped
 * names are (`url_list`).
 *
 * Source: SPEC §4.4 "Read-like URL tools"; review of the heuristics (`fetch_pages(url_list)` was
 * no URL tool, so a link read on a page was denied rather than asked about).
 * @param name - The argument's name.
 * @param schema - Its schema.
 * @returns True when it holds URLs.
 */
function holdsUrl(name: string, schema: JsonObject): boolean {
  if (URL_FORMATS.has(member(schema, "format"))) return true;
  const items = member(schema, "items");
  if (isJsonObject(items) && URL_FORMATS.has(member(items, "format"))) return true;
  return URL_WORDS.has(withoutCollectionWord(nameWords(name)).at(-1) ?? "");
}
