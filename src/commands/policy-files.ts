/**
 * Loading the policy in force at the edge: reads each `--policy FILE` (in command-line order, later
 * files win) and hands the texts with the built-in packs to the policy module, which validates and
 * combines them. Two twins (STYLE #13): {@link checkPolicyPaths} returns every issue,
 * {@link loadPolicyPaths} throws. Edge.
 *
 * Source: SPEC §4.1 (`--policy`, repeatable, later files win), §4.2 (strict validation), §5.5.
 * @module
 */

import { escapeControls } from "../engine/index.ts";
import { builtinPacks } from "../platform/packs.ts";
import { readPolicyTexts, tryReadPolicyText } from "../platform/policy-texts.ts";
import {
  type CheckPolicyFilesResult,
  checkPolicyFiles,
  type Policy,
  type PolicyIssue,
  parsePolicyFiles,
} from "../policy/index.ts";

/**
 * Validates every policy file with the built-in packs. Never throws for an invalid file.
 *
 * Source: SPEC §4.2, §5.5.
 * @param files - The `--policy` values in command-line order.
 * @param options - The directory relative names resolve against.
 * @returns The policy, or every issue of every file.
 * @throws {BouncerError} `POLICY_UNREADABLE` when a file cannot be read.
 */
export async function checkPolicyPaths(
  files: readonly string[],
  options: { readonly cwd: string },
): Promise<CheckPolicyFilesResult> {
  return checkPolicyFiles(await readPolicyTexts(files, options.cwd), builtinPacks());
}

/**
 * An issue of a policy file that cannot be read, in the shape of a policy issue (`bouncer check
 * --json` lists both): line and column 0 stand for the whole file.
 */
export interface UnreadableIssue {
  readonly code: "unreadable";
  /** The name as the user gave it. */
  readonly file: string;
  readonly line: 0;
  readonly column: 0;
  /** Why, e.g. `no such file`, `it is a folder, not a file (EISDIR)`, `it is not UTF-8 text (line 1, column 3)`. */
  readonly message: string;
}

/** What {@link checkEveryPolicyPath} found: the policy, or every issue of every file. */
export type CheckEveryPolicyResult =
  | { readonly ok: true; readonly policy: Policy }
  | {
      readonly ok: false;
      readonly issues: readonly [PolicyIssue | UnreadableIssue, ...(PolicyIssue | UnreadableIssue)[]];
    };

/**
 * Validates every policy file with the built-in packs, a file that cannot be read being one more
 * issue (in command-line order) instead of an error. Never throws for a file.
 *
 * Source: SPEC §4.2, §5.5 (`check --json`: one document, also when a file cannot be read).
 * @param files - The `--policy` values in command-line order.
 * @param options - The directory relative names resolve against.
 * @returns The policy, or every issue of every file.
 */
export function checkEveryPolicyPath(
  files: readonly string[],
  options: { readonly cwd: string },
): CheckEveryPolicyResult {
  const read = files.map((file) => tryReadPolicyText(file, options.cwd));
  const texts = read.flatMap((one) => (one.ok ? [one.text] : []));
  if (texts.length === read.length) return checkPolicyFiles(texts, builtinPacks());
  const issues: (PolicyIssue | UnreadableIssue)[] = [];
  for (const one of read) {
    if (!one.ok) {
      const { file, reason } = one.unreadable;
      issues.push({ code: "unreadable", file, line: 0, column: 0, message: reason });
      continue;
    }
    const checked = checkPolicyFiles([one.text], builtinPacks());
    if (!checked.ok) issues.push(...checked.issues);
  }
  const [first, ...rest] = issues;
  if (first === undefined) throw new Error("checkEveryPolicyPath: an unreadable file gave no issue");
  return { ok: false, issues: [first, ...rest] };
}

/**
 * Loads the policy in force, or throws.
 *
 * Source: SPEC §3.2 (never run ungated), §4.2.
 * @param files - The `--policy` values in command-line order.
 * @param options - The directory relative names resolve against.
 * @returns The policy with the built-in packs.
 * @throws {PolicyError} `POLICY_INVALID` (exit 2) naming file, line and column.
 * @throws {BouncerError} `POLICY_UNREADABLE` (exit 2) when a file cannot be read.
 */
export async function loadPolicyPaths(
  files: readonly string[],
  options: { readonly cwd: string },
): Promise<Policy> {
  return parsePolicyFiles(await readPolicyTexts(files, options.cwd), builtinPacks());
}

/**
 * Renders one issue as `FILE:LINE:COLUMN: message` (the compiler convention editors link to), its
 * control and invisible characters (from names in the file) escaped as `\u{…}`.
 *
 * Source: SPEC §4.2, §5.5 (file, line:column).
 * @param issue - A policy issue.
 * @returns One line, no newline.
 */
export function formatIssueLine(issue: PolicyIssue): string {
  return escapeControls(`${issue.file}:${issue.line}:${issue.column}: ${issue.message}`);
}
