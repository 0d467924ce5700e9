/**
 * The walk of an upstream's `tools/list` (SPEC §2.2 "When"): every page, following `nextCursor`,
 * stopping on a cursor seen before or after 100 pages, as Bouncer's own requests to the upstream.
 * Edge.
 *
 * Source: SPEC §2.2 ("walks all pages of the upstream's tools/list (stopping on a repeated cursor or
 * after 100 pages)").
 * @module
 */

import type { JsonObject, JsonValue, ToolDefinition } from "../engine/index.ts";
import { isJsonObject, member } from "./jsonrpc.ts";

/** Pages walked at most (SPEC §2.2). */
export const MAX_TOOL_PAGES = 100;

/** One complete walk. */
export interface ToolWalk {
  /** Every tool with a string name and an object shape, in the upstream's order, as listed. */
  readonly tools: readonly ToolDefinition[];
  /** Pages fetched. */
  readonly pages: number;
  /** Why the walk stopped early, when it did (a repeated cursor, the page limit). */
  readonly truncated?: string;
}

/**
 * Walks every page of `tools/list`.
 *
 * Source: SPEC §2.2.
 * @param request - Sends one `tools/list` request with these params; rejects on an error answer.
 * @param options - The page limit (default 100) and a logger for skipped entries.
 * @returns The tools and how the walk ended.
 * @throws {Error} The first page's or a later page's error answer, or a result that is not a tool list.
 */
export async function walkToolPages(
  request: (params: JsonObject) => Promise<JsonValue>,
  options: { readonly maxPages?: number; readonly log?: (message: string) => void } = {},
): Promise<ToolWalk> {
  const maxPages = options.maxPages ?? MAX_TOOL_PAGES;
  const tools: ToolDefinition[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const result = await request(cursor === undefined ? {} : { cursor });
    pages++;
    const list = isJsonObject(result) ? member(result, "tools") : undefined;
    if (!Array.isArray(list))
      throw new TypeError("Cannot walk tools/list: the upstream's result has no tools list");
    for (const tool of list) {
      if (isJsonObject(tool) && typeof member(tool, "name") === "string") {
        tools.push(tool as unknown as ToolDefinition);
      } else {
        options.log?.("Skipped a tools/list entry without a name: it cannot be called");
      }
    }
    const next = isJsonObject(result) ? member(result, "nextCursor") : undefined;
    if (typeof next !== "string") return { tools, pages };
    if (seen.has(next)) return { tools, pages, truncated: `the cursor ${JSON.stringify(next)} came back` };
    if (pages >= maxPages) return { tools, pages, truncated: `the walk reached ${maxPages} pages` };
    seen.add(next);
    cursor = next;
  }
}
