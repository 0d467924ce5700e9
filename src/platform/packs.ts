/**
 * The curated packs, embedded: each `packs/*.yaml` is a text import, so `bun build --compile` puts
 * it inside the binary and the same code runs from source. Parsed and validated on first use, by
 * `Bun.YAML` and the policy module's fast path (a millisecond, and no `yaml` library document held
 * in memory), or by the `yaml` library where that path declines a text (never for these packs:
 * tests/platform/packs.test.ts shows both readings give the same packs).
 * Edge (runtime-specific: text imports, `Bun.YAML`).
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
import { checkParsedPack, type Pack, parsePack } from "../policy/index.ts";
import { parseYamlNatively } from "./yaml-parse.ts";

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
  cached ??= PACK_TEXTS.map(([name, text]) => parseFast(text, name) ?? parsePack(text, name));
  return cached;
}

/**
 * A pack read by the runtime's YAML parser and the policy module's fast path.
 * @param text - The pack's text.
 * @param name - Its name.
 * @returns The pack, or `undefined` when the fast path cannot tell.
 */
function parseFast(text: string, name: string): Pack | undefined {
  const parsed = parseYamlNatively(text);
  return parsed === undefined ? undefined : checkParsedPack({ text, value: parsed.value }, name);
}
