/**
 * A pack file's text → a validated, compiled {@link Pack}, read by the YAML library (positions for
 * every message) and validated by `checkPackSource`.
 * Pure: the caller reads or embeds the file.
 *
 * Source: SPEC §4.3 (packs), §4.2 (format); STYLE #13 (twin API).
 * @module
 */

import { checkPackSource } from "./check-pack-source.ts";
import { PolicyError } from "./policy-error.ts";
import type { CheckPackResult, Pack } from "./types.ts";
import { readYamlSource } from "./yaml-source.ts";

/**
 * Validates a pack file.
 *
 * @param text - The pack's YAML text.
 * @param name - The pack's name (its file name without `.yaml`); rules carry `pack:<name>`.
 * @returns `{ ok: true, pack }` or `{ ok: false, issues }`.
 * Source: SPEC §4.3.
 */
export function checkPack(text: string, name: string): CheckPackResult {
  return checkPackSource(readYamlSource(text, `${name}.yaml`), name);
}

/**
 * Validates a pack file and returns it, or throws.
 *
 * @param text - The pack's YAML text.
 * @param name - The pack's name.
 * @returns The validated pack.
 * @throws {PolicyError} `POLICY_INVALID` with every issue, when the pack is invalid.
 * Source: SPEC §4.3; STYLE #13.
 */
export function parsePack(text: string, name: string): Pack {
  const result = checkPack(text, name);
  if (!result.ok) throw new PolicyError(`${name}.yaml`, result.issues, { what: "pack" });
  return result.pack;
}
