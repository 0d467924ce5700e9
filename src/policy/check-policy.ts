/**
 * A user policy file's text → a validated, compiled {@link PolicyFile}, as a non-throwing check
 * and a throwing parse over one implementation: the text is read by the YAML library (positions for
 * every message) and validated by `checkPolicySource`.
 * Pure: the caller reads the file.
 *
 * Source: SPEC §4.2 (file format, strict validation); STYLE #4 (compile once), #13 (twin API).
 * @module
 */

import { checkPolicySource } from "./check-policy-source.ts";
import { PolicyError } from "./policy-error.ts";
import type { CheckPolicyResult, PolicyFile } from "./types.ts";
import { readYamlSource } from "./yaml-source.ts";

/**
 * Validates a policy file. Never throws for bad input: every problem is an issue with file,
 * line:column, tool and key. An empty file is an empty policy.
 *
 * @param text - The file's text.
 * @param fileName - The file name as the user gave it (messages and `user:<file>` sources).
 * @returns `{ ok: true, policy }` or `{ ok: false, issues }` (issues in file order).
 * Source: SPEC §4.2.
 * @example
 * ```ts
 * const result = checkPolicy("send_email: { alow: true }\n", "bouncer.yaml");
 * if (!result.ok) result.issues[0].message; // unknown key "alow" in tool "send_email" (did you mean "action"?)
 * ```
 */
export function checkPolicy(text: string, fileName: string): CheckPolicyResult {
  return checkPolicySource(readYamlSource(text, fileName));
}

/**
 * Validates a policy file and returns it, or throws.
 *
 * @param text - The file's text.
 * @param fileName - The file name as the user gave it.
 * @returns The validated, compiled policy file.
 * @throws {PolicyError} `POLICY_INVALID` with every issue, when the file is invalid.
 * Source: SPEC §4.2; STYLE #13.
 */
export function parsePolicy(text: string, fileName: string): PolicyFile {
  const result = checkPolicy(text, fileName);
  if (!result.ok) throw new PolicyError(fileName, result.issues);
  return result.policy;
}
