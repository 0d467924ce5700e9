/**
 * One AgentDojo suite as Bouncer sees it: the tool list its fake server would answer `tools/list`
 * with, and the policy file a user would write from the corpus's sink classification — nothing
 * tuned to the corpus's values. The policy is YAML text, validated by the same code as `--policy`
 * files. Edge (bench tooling).
 *
 * Source: SPEC §4.2 (file format), §7; issue 6 part 1 ("`sink_class` and `dest_params` become that
 * suite's policy").
 * @module
 */

import { stringify } from "yaml";
import type { ToolDefinition } from "../../../src/engine/index.ts";
import type { CorpusSuite } from "./corpus.ts";

/** How `commit` tools (bookings with a third party) are treated. */
export type CommitChoice = "gate" | "off";

/** How tools the corpus does not classify as sinks are treated. */
export type OtherTools = "heuristics" | "not-exfiltrating";

/** Options of {@link suitePolicyText}. */
export interface SuitePolicyOptions {
  /**
   * `gate` (default): a commit tool is exfiltrating with its destination parameters as sinks; `off`:
   * no entry (the heuristics alone decide, and they find no sink-shaped name in these tools).
   */
  readonly commit?: CommitChoice;
  /**
   * `heuristics` (default): no entry, so the schema heuristics of SPEC §4.4 apply as they would to
   * any server; `not-exfiltrating`: `exfiltrating: false`, as a pack states where a heuristic
   * misfires (SPEC §4.3).
   */
  readonly others?: OtherTools;
  /** Added as `defaults.trusted_destinations` (e.g. the suite's directory allowlist). */
  readonly trusted?: readonly string[];
  /** `defaults.on_tainted: ask` when `ask` (a trade-off to measure; the product default is deny). */
  readonly onTainted?: "deny" | "ask";
  /** Tools given `on_tainted: ask`, named by whoever runs the bench (never by this code). */
  readonly askOnTainted?: readonly string[];
}

/**
 * The tool list of a suite's server, as an MCP server would list it.
 * @param suite - The suite from `meta.suites`.
 * @returns Definitions with `inputSchema` taken from the corpus's `input_schema`.
 */
export function suiteTools(suite: CorpusSuite): ToolDefinition[] {
  return suite.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input_schema,
  }));
}

/**
 * The policy file for a suite: every tool classified `exfiltrating` gets `exfiltrating: true` with
 * `sink_params` = its `dest_params`; `commit` tools likewise unless `commit: off`. Tool entries go
 * under `tools:` so that no tool name can clash with a reserved key. Nothing else is set unless an
 * option asks for it (no `defaults.on_tainted: deny`, which would override the heuristics' read-like
 * URL `ask`, SPEC §4.4).
 * @param suite - The suite from `meta.suites`.
 * @param options - Commit choice, treatment of other tools, trusted destinations.
 * @returns YAML text in the `--policy` format.
 */
export function suitePolicyText(suite: CorpusSuite, options: SuitePolicyOptions = {}): string {
  const commit = options.commit ?? "gate";
  const others = options.others ?? "heuristics";
  const askOnTainted = new Set(options.askOnTainted ?? []);
  const tools = new Map<string, Record<string, unknown>>();
  for (const tool of suite.tools) {
    const sinks = tool.dest_params ?? [];
    const gated = tool.sink_class === "exfiltrating" || (tool.sink_class === "commit" && commit === "gate");
    const entry: Record<string, unknown> = {};
    if (gated && sinks.length > 0) {
      entry.exfiltrating = true;
      entry.sink_params = [...sinks];
    } else if ((tool.sink_class ?? null) === null && others === "not-exfiltrating") {
      entry.exfiltrating = false;
    }
    if (askOnTainted.has(tool.name)) entry.on_tainted = "ask";
    if (Object.keys(entry).length > 0) tools.set(tool.name, entry);
  }
  const defaults: Record<string, unknown> = {};
  if (options.trusted !== undefined && options.trusted.length > 0) {
    defaults.trusted_destinations = [...options.trusted];
  }
  if (options.onTainted === "ask") defaults.on_tainted = "ask";
  const document: Record<string, unknown> = { version: 1 };
  if (Object.keys(defaults).length > 0) document.defaults = defaults;
  document.tools = Object.fromEntries(tools);
  return stringify(document);
}
