/**
 * Hosts of destinations that are no URL to the WHATWG parser, yet name a host that other tools
 * connect to (SPEC §2.5 "Identity": what the data would reach): a scheme-relative `//host/path`, a
 * Windows UNC path `\\host\share` and an scp-style `user@host:path` (a git remote). A single
 * backslash (`notes.md\archive`) or a colon followed by a space (`bob@corp.example: see below`) names
 * no host: file names and prose are read as written. Read for taint only: such a value is never a URL, so it is never trusted or approved as one.
 * Pure.
 * @module
 */

import { hostKey, isHostShaped } from "./token-shapes.ts";

/**
 * The written forms, each capturing the host: `//host`, `\\host`, and `user@host:` followed by a
 * path or port (not `host:port`, nor a colon ending a sentence). A host here is a run of label characters and dots (its shape is checked after).
 */
const SCHEME_LESS_HOST = [
  /^\/\/(?:[^/?#@\\\s]*@)?([\p{L}\p{M}\p{N}_.-]+)(?=$|[/?#:\\])/u,
  /^\\\\(?:[^\\/@\s]*@)?([\p{L}\p{M}\p{N}_.-]+)(?=$|[\\/@])/u,
  /^[^@/\\:\s]+@([\p{L}\p{M}\p{N}_.-]+):(?=\S)/u,
];

/**
 * The host a scheme-less destination reaches, when it is written in one of the forms above and
 * the host is host-shaped (dotted labels ending in a letter, or a dotted quad), in its index form
 * (punycode, no trailing dot).
 *
 * Source: SPEC §2.5 "Identity", "Index, not rescans".
 * @param canonical - A canonical destination that is no URL, email, phone or IBAN.
 * @returns The host, or undefined.
 * @example schemeLessHost("git@collect.evil.example:org/repo.git") // => "collect.evil.example"
 */
export function schemeLessHost(canonical: string): string | undefined {
  for (const form of SCHEME_LESS_HOST) {
    const host = form.exec(canonical)?.[1]?.replace(/\.+$/, "");
    if (host !== undefined && isHostShaped(host)) return hostKey(host);
  }
  return undefined;
}
