/**
 * The warnings `bouncer run` gives on stderr once the server's tools are listed: user tool entries
 * that name no listed tool, and user `write_params`, `arg_patterns` and `sink_params` naming an
 * argument the tool's pinned input schema cannot hold (`src/policy/tool-list-warnings.ts`). Each
 * line is said once per session, however often the tools are walked again. Edge.
 *
 * Source: SPEC §4.1, §2.4, §2.5, §3.2 step 3 (the tools walk).
 * @module
 */

import type { ToolRules } from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import { type Policy, schemaArgumentWarnings, unlistedEntryWarnings } from "../policy/index.ts";
import { makeRoom } from "./make-room.ts";
import type { ListedTools } from "./tool-list-state.ts";

/**
 * Warning lines remembered as said, at most. A line quotes the listed schema's property names (the
 * upstream's), and under `--mode audit` every new listing of a tool the policy names can make a new
 * one; past it the oldest is forgotten (said again if it comes again).
 *
 * Source: SPEC §3.3 (fail closed), §7 (memory).
 */
export const MAX_SAID_WARNINGS = 1024;

/** What {@link listedToolWarnings} needs. */
export interface ListedWarningOptions {
  /** The user's files with the packs. */
  readonly policy: Policy;
  /** The `--upstream-name`. */
  readonly server: string;
  /** The tool's rules as the gate decides them now (resolved with its pinned definition). */
  readonly rulesFor: (tool: string) => ToolRules;
  /** One line to stderr. */
  readonly log: (message: string) => void;
}

/**
 * A listener for `ToolListState`'s `onListed`: logs each new warning once (among the last
 * {@link MAX_SAID_WARNINGS} said). Never throws (a failure
 * to work out a warning is logged as such).
 *
 * Source: SPEC §4.1, §2.4, §2.5.
 * @param options - The policy, the server name, the gate's rules and the logger.
 * @returns The listener.
 */
export function listedToolWarnings(options: ListedWarningOptions): (listed: ListedTools) => void {
  const { policy, server, rulesFor, log } = options;
  const said = new Set<string>();
  const named = new Set<string>();
  for (const file of policy.files) {
    for (const tool of file.tools.keys()) named.add(tool);
    for (const tool of file.servers.get(server)?.tools.keys() ?? []) named.add(tool);
  }
  return (listed) => {
    try {
      const lines =
        listed.complete && named.size > 0
          ? unlistedEntryWarnings(
              policy.files,
              server,
              listed.listed.map((tool) => tool.name),
            )
          : [];
      for (const definition of listed.visible) {
        if (named.has(definition.name))
          lines.push(...schemaArgumentWarnings(rulesFor(definition.name), definition));
      }
      for (const line of lines) {
        if (said.has(line)) continue;
        makeRoom(said, MAX_SAID_WARNINGS);
        said.add(line);
        log(line);
      }
    } catch (error) {
      log(`Cannot check the policy against the listed tools: ${errorText(error)}`);
    }
  };
}
