/**
 * Several policy files plus the packs → one {@link Policy}; and the check of several file texts at
 * once, collecting every file's issues.
 * Pure: the caller reads the files (in `--policy` order).
 *
 * Source: SPEC §4.1 ("`--policy`, repeatable, later files win"), §5.5 (`bouncer check`).
 * @module
 */

import { checkPolicy } from "./check-policy.ts";
import { PolicyError } from "./policy-error.ts";
import type { Pack, Policy, PolicyFile, PolicyIssue, PolicyIssues } from "./types.ts";

/** One policy file's text and name, as read by the edge. */
export interface PolicyText {
  readonly text: string;
  readonly fileName: string;
}

/** The result of checking several files: the policy, or every issue of every file. */
export type CheckPolicyFilesResult =
  | { readonly ok: true; readonly policy: Policy }
  | { readonly ok: false; readonly issues: PolicyIssues };

/**
 * Combines validated files and packs. File order is precedence order: later files win key by key;
 * pack order is precedence among packs (earlier wins).
 *
 * @param files - Validated policy files, in `--policy` order.
 * @param packs - The available packs (e.g. `builtinPacks()`).
 * @returns The policy.
 * Source: SPEC §4.1.
 */
export function createPolicy(files: readonly PolicyFile[], packs: readonly Pack[]): Policy {
  return { files: [...files], packs: [...packs] };
}

/**
 * Checks several policy texts and combines them with the packs. Never throws for bad input.
 *
 * @param texts - The files' texts and names, in `--policy` order.
 * @param packs - The available packs.
 * @returns `{ ok: true, policy }`, or `{ ok: false, issues }` with the issues of every file.
 * Source: SPEC §4.1, §4.2, §5.5.
 */
export function checkPolicyFiles(
  texts: readonly PolicyText[],
  packs: readonly Pack[],
): CheckPolicyFilesResult {
  const files: PolicyFile[] = [];
  const issues: PolicyIssue[] = [];
  for (const { text, fileName } of texts) {
    const result = checkPolicy(text, fileName);
    if (result.ok) files.push(result.policy);
    else issues.push(...result.issues);
  }
  const [first, ...rest] = issues;
  if (first !== undefined) return { ok: false, issues: [first, ...rest] };
  return { ok: true, policy: createPolicy(files, packs) };
}

/**
 * Checks several policy texts and combines them with the packs, or throws.
 *
 * @param texts - The files' texts and names, in `--policy` order.
 * @param packs - The available packs.
 * @returns The policy.
 * @throws {PolicyError} `POLICY_INVALID` naming the first file with an issue, carrying every issue.
 * Source: SPEC §3.2 (an invalid policy never runs ungated), §4.2.
 */
export function parsePolicyFiles(texts: readonly PolicyText[], packs: readonly Pack[]): Policy {
  const result = checkPolicyFiles(texts, packs);
  if (!result.ok) throw new PolicyError(result.issues[0].file, result.issues);
  return result.policy;
}
