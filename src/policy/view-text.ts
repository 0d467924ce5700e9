/**
 * How the policy's warnings name a rule's layer and a list of values: the texts the confinement,
 * override and tool-list warnings share. Every part is a name from a file or a server, shown with
 * `safeName` (SPEC §3.4). Edge (policy).
 * @module
 */

import { type Sourced, safeName } from "../engine/index.ts";

/**
 * A layer as the views show it: `user:FILE`, with the part of the file after it.
 *
 * Source: SPEC §3.4 (rendering untrusted strings), §4.1 (layers).
 * @param from - A value with the layer it was read from.
 * @returns e.g. `user:/home/u/.bouncer/policy.yaml servers.gmail`.
 */
export function layerText(from: Sourced<unknown>): string {
  const source = safeName(from.source);
  return from.layer === undefined ? source : `${source} ${safeName(from.layer)}`;
}

/**
 * A list as the views show it, each value with `safeName`.
 *
 * Source: SPEC §3.4 (rendering untrusted strings).
 * @param values - The values (prefixes, argument names).
 * @returns e.g. `[./out, ~/notes]`.
 */
export function listText(values: readonly string[]): string {
  return `[${values.map((value) => safeName(value)).join(", ")}]`;
}
