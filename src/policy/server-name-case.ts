/**
 * `servers.<name>` sections are matched to the `--upstream-name` exactly (case-sensitive), while
 * packs match names case-insensitively: a `servers: { GitHub: ... }` with `--upstream-name github`
 * applies to nothing. This finds such near misses, for the one-line warning `bouncer run` gives at
 * start. Pure; imports types only (`run` loads it before the upstream is spawned).
 *
 * Source: SPEC §4.1 (`servers.<name>` entries), §4.2 ("per wrapped server (its --upstream-name)"),
 * §4.3 (pack patterns are case-insensitive).
 * @module
 */

import type { PolicyFile } from "./types.ts";

/**
 * The `servers.<name>` sections that differ from the upstream name in case only, when no section
 * has exactly that name (then the server's own entries apply and there is nothing to say).
 *
 * Source: SPEC §4.1, §4.2.
 * @param files - The validated policy files.
 * @param upstreamName - The `--upstream-name`.
 * @returns The section names in file order, each once; empty when one matches exactly or none is near.
 * @example
 * ```ts
 * serverSectionsInOtherCase([parsePolicy("servers: { GitHub: {} }\n", "p.yaml")], "github"); // ["GitHub"]
 * ```
 */
export function serverSectionsInOtherCase(files: readonly PolicyFile[], upstreamName: string): string[] {
  if (files.some((file) => file.servers.has(upstreamName))) return [];
  const wanted = upstreamName.toLowerCase();
  const near = new Set<string>();
  for (const file of files) {
    for (const name of file.servers.keys()) if (name.toLowerCase() === wanted) near.add(name);
  }
  return [...near];
}

/**
 * The warning for {@link serverSectionsInOtherCase}'s sections, one line.
 * @param sections - The section names (non-empty).
 * @param upstreamName - The `--upstream-name`.
 * @returns The warning, without a trailing newline.
 */
export function serverCaseWarning(sections: readonly string[], upstreamName: string): string {
  const named = sections.map((name) => `servers.${JSON.stringify(name)}`).join(", ");
  const first = JSON.stringify(sections[0] ?? "");
  return `Warning: no servers section is named ${JSON.stringify(upstreamName)} (the --upstream-name), but ${named} differs from it in case only: section names are case-sensitive, so those entries do not apply to this server (rename the section to ${JSON.stringify(upstreamName)}, or run with --upstream-name ${first})`;
}
