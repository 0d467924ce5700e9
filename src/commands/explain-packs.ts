/**
 * Which packs `bouncer explain` applies, matched as `bouncer run` matches them: on the upstream's
 * command line (given after `--`) and its `serverInfo.name` (`--server-info-name`), with the
 * `--server` name as the fallback — and, when some of those facts are missing, a note saying what
 * the match could not see. Edge (display only).
 *
 * Source: SPEC §4.3 (packs match the command line and `serverInfo.name`, the upstream name as a
 * fallback; "`bouncer explain` ... print which pack matched"), §5.5.
 * @module
 */

import { type JsonObject, safeName } from "../engine/index.ts";
import { type MatchedPack, matchPacks, type Pack } from "../policy/index.ts";

/** What the packs are matched on: every member optional, as `explain`'s flags give them. */
export interface PackFacts {
  /** `--server`: the upstream name (the fallback, and the `servers.<name>` section). */
  readonly upstreamName?: string;
  /** The upstream command line given after `--`, command first. */
  readonly command?: readonly string[];
  /** `--server-info-name`: the `serverInfo.name` the upstream answers `initialize` with. */
  readonly serverInfoName?: string;
}

/** The packs that matched, and what the match could not see. */
export interface ExplainedPacks {
  readonly matched: MatchedPack[];
  /** True when both the command line and `serverInfo.name` were given: the packs are run's. */
  readonly exact: boolean;
  /** What the match lacked, for people (absent when `exact`). */
  readonly note?: string;
}

/**
 * Matches the packs on the facts given, as `bouncer run` does (no pack without any fact; the name
 * fallback only with `--server`), and says what was not given.
 *
 * Source: SPEC §4.3, §5.5.
 * @param packs - The available packs.
 * @param facts - The server name, command line and `serverInfo.name` given.
 * @returns The matched packs, whether they are exactly run's, and the note.
 */
export function explainPacks(packs: readonly Pack[], facts: PackFacts): ExplainedPacks {
  const { upstreamName, command, serverInfoName } = facts;
  const matched =
    upstreamName === undefined && command === undefined && serverInfoName === undefined
      ? []
      : matchPacks(packs, {
          upstreamName: upstreamName ?? "",
          ...(command === undefined ? {} : { command }),
          ...(serverInfoName === undefined ? {} : { serverInfoName }),
          // Without --server there is no name to fall back on.
        }).filter((found) => upstreamName !== undefined || found.by !== "upstream_name");
  if (command !== undefined && serverInfoName !== undefined) return { matched, exact: true };
  return { matched, exact: false, note: missingNote(facts) };
}

/** The note for the facts that were not given. */
function missingNote(facts: PackFacts): string {
  if (facts.command === undefined && facts.serverInfoName === undefined) {
    if (facts.upstreamName === undefined)
      return "No --server, upstream command (after --) or --server-info-name given: no pack was matched";
    return "Packs were looked for by the server name only: bouncer run also matches them by the upstream's command line and serverInfo.name, and a pack matched there replaces those matched by name (give the upstream command after -- and --server-info-name NAME to match as bouncer run does)";
  }
  if (facts.command === undefined)
    return "No upstream command given (after --): a pack bouncer run matches by the command line is not shown, nor are the directories $COMMAND_LINE_DIRS stands for";
  return "No --server-info-name given: a pack bouncer run matches by the server's serverInfo.name is not shown";
}

/**
 * Describes the packs that matched, e.g. `gmail (command "@gongrzhe/server-gmail-autoauth-mcp")`.
 * @param packs - The matched packs.
 * @returns One line per pack.
 */
export function packLines(packs: readonly MatchedPack[]): string[] {
  const by = { command: "command", server_name: "serverInfo.name", upstream_name: "server name" } as const;
  return packs.map(
    (matched) =>
      `  ${matched.pack.name}  (${by[matched.by]} ${safeName(matched.value)} matches ${safeName(matched.pattern)})`,
  );
}

/**
 * The `--json` members for the packs: `packs` (name, by, pattern, value), `matched_on` (the facts
 * given: `upstream_name`, `command`, `server_info_name`) and `packs_note` when the match lacked some.
 *
 * Source: SPEC §4.3, §5.5.
 * @param explained - The packs and note from {@link explainPacks}.
 * @param facts - The facts given.
 * @returns The members.
 */
export function packsMembers(explained: ExplainedPacks, facts: PackFacts): JsonObject {
  const { upstreamName, command, serverInfoName } = facts;
  return {
    packs: explained.matched.map((matched) => ({
      name: matched.pack.name,
      by: matched.by,
      pattern: matched.pattern,
      value: matched.value,
    })),
    matched_on: {
      ...(upstreamName === undefined ? {} : { upstream_name: upstreamName }),
      ...(command === undefined ? {} : { command: [...command] }),
      ...(serverInfoName === undefined ? {} : { server_info_name: serverInfoName }),
    },
    ...(explained.note === undefined ? {} : { packs_note: explained.note }),
  };
}
