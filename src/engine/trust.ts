/**
 * Matching an identity against `trusted_destinations` (SPEC §2.5 "Classification" step 1): exact
 * entries, `*@domain`, `*.domain` and URL prefixes ending in `/*`. Pure.
 * @module
 */

import { canonicalize } from "./canonical.ts";
import { type Identity, identify, type UrlIdentity } from "./identity.ts";
import { hostKey } from "./token-shapes.ts";
import type { Sourced } from "./types.ts";

function urlOf(entry: string): UrlIdentity | undefined {
  const identity = identify(entry, canonicalize(entry, { destination: true }));
  return identity.kind === "url" && !identity.fromCanonical ? identity : undefined;
}

/** Whether one entry covers the identity. */
function covers(entry: string, identity: Identity): boolean {
  if (entry.startsWith("*@")) {
    return identity.kind === "email" && identity.domain === canonicalize(entry.slice(2));
  }
  if (entry.startsWith("*.")) {
    const domain = hostKey(canonicalize(entry.slice(2)));
    return identity.kind === "url" && domain !== "" && identity.host.endsWith(`.${domain}`);
  }
  if (entry.endsWith("/*")) {
    if (identity.kind !== "url") return false;
    const base = urlOf(entry.slice(0, -1));
    if (base === undefined) return false;
    const prefix = base.prefix.endsWith("/") ? base.prefix : `${base.prefix}/`;
    return identity.prefix.startsWith(prefix) || `${identity.prefix}/` === prefix;
  }
  if (identity.kind === "url") {
    const exact = urlOf(entry);
    if (exact === undefined) return false;
    return exact.href === `${exact.origin}/`
      ? exact.origin === identity.origin
      : exact.href === identity.href;
  }
  const canonical = canonicalize(entry, { destination: true });
  if (identity.kind === "email" || identity.kind === "string") return canonical === identity.id;
  const exact = identify(entry, canonical);
  return exact.kind === identity.kind && exact.id === identity.id;
}

/**
 * Finds the `trusted_destinations` entry that covers an identity: an exact entry (a URL entry with a
 * path is that exact URL, one without a path is the whole site); `*@domain` (an address whose domain
 * is exactly `domain`); `*.domain` (URL hosts strictly below `domain`, not the apex); a URL prefix
 * ending in `/*` (origin + path prefix on a `/` boundary). The caller checks first that the raw value
 * was already canonical: canonicalisation may widen taint, never grant trust.
 *
 * Source: SPEC §2.5 "Classification" (trusted), §4.2 `trusted_destinations`.
 * @param identity - The destination's identity.
 * @param entries - The tool's trusted destinations from every layer.
 * @returns The matching entry with its source, or undefined.
 * @example matchTrusted(identify("boss@corp.example", "boss@corp.example"), [{ value: "*@corp.example", source: "default" }])
 */
export function matchTrusted(
  identity: Identity,
  entries: readonly Sourced<string>[],
): Sourced<string> | undefined {
  if (identity.kind === "url" && (identity.fromCanonical || !identity.trustable)) return undefined;
  return entries.find((entry) => covers(entry.value.trim(), identity));
}
