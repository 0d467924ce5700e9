/**
 * The curated packs, embedded: each `packs/*.yaml` is a text import, so `bun build --compile` puts
 * it inside the binary and the same code runs from source. Parsed and validated on first use.
 * Edge (runtime-specific: text imports).
 *
 * Source: SPEC §4.3 (packs), §6 (packs embedded by text imports).
 * @module
 */

import fetchPack from "../../packs/fetch.yaml" with { type: "text" };
import filesystemPack from "../../packs/filesystem.yaml" with { type: "text" };
import gdrivePack from "../../packs/gdrive.yaml" with { type: "text" };
import githubPack from "../../packs/github.yaml" with { type: "text" };
import gmailPack from "../../packs/gmail.yaml" with { type: "text" };
import slackPack from "../../packs/slack.yaml" with { type: "text" };
import { type Pack, parsePack } from "../policy/index.ts";

/** The embedded pack texts by name, in precedence order (earlier wins where two packs match). */
const PACK_TEXTS: readonly (readonly [string, string])[] = [
  ["filesystem", filesystemPack],
  ["gmail", gmailPack],
  ["slack", slackPack],
  ["github", githubPack],
  ["gdrive", gdrivePack],
  ["fetch", fetchPack],
];

let cached: readonly Pack[] | undefined;

/**
 * The names and YAML texts of the embedded packs, for `bouncer packs show` and for tests.
 *
 * @returns `[name, text]` pairs in precedence order.
 * Source: SPEC §4.3, §5.7.
 */
export function builtinPackTexts(): readonly (readonly [string, string])[] {
  return PACK_TEXTS;
}

/**
 * The embedded packs, parsed and validated once.
 *
 * @returns Every built-in pack, in precedence order.
 * @throws {PolicyError} `POLICY_INVALID` if an embedded pack is invalid (a build defect; tests
 * parse every pack).
 * Source: SPEC §4.3, §6.
 */
export function builtinPacks(): readonly Pack[] {
  cached ??= PACK_TEXTS.map(([name, text]) => parsePack(text, name));
  return cached;
}
