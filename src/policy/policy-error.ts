/**
 * The error thrown when a policy or pack file is invalid, and the one-line rendering of an issue.
 * Pure.
 *
 * Source: SPEC §4.2, §5 (policy errors exit 2); STYLE #11 (codes), #12 (message grammar).
 * @module
 */

import { escapeControls } from "../engine/index.ts";
import type { PolicyIssue, PolicyIssues } from "./types.ts";

/**
 * Renders one issue as `line 4, column 3: unknown key "alow" in tool "send_email" (did you mean
 * "action"?)` — the part after the file name, control and invisible characters escaped as `\u{…}`.
 *
 * @param issue - The issue.
 * @returns One line, no final period.
 * Source: SPEC §4.2; STYLE #12.
 */
export function formatPolicyIssue(issue: PolicyIssue): string {
  // Names in messages come from the file as written: a terminal must not act on their controls.
  return `line ${issue.line}, column ${issue.column}: ${escapeControls(issue.message)}`;
}

/**
 * An invalid policy or pack file. A `SyntaxError` (the file cannot be used as written) carrying the
 * stable code `POLICY_INVALID`, every issue found, and the first issue's position. The CLI maps it
 * to exit code 2; the proxy answers `initialize` with it and never runs ungated.
 *
 * @example
 * ```ts
 * try { parsePolicy(text, "bouncer.yaml"); } catch (e) { if (e instanceof PolicyError) e.issues; }
 * ```
 * Source: SPEC §3.2, §4.2, §5; STYLE #11, #12.
 */
export class PolicyError extends SyntaxError {
  override readonly name = "PolicyError";
  readonly code = "POLICY_INVALID";
  readonly file: string;
  readonly issues: PolicyIssues;
  /** 1-based line of the first issue. */
  readonly line: number;
  /** 1-based column of the first issue. */
  readonly column: number;

  /**
   * @param file - The file the issues are in.
   * @param issues - Every issue found (at least one).
   * @param options - `what` names the kind of file in the message (`policy` or `pack`).
   */
  constructor(file: string, issues: PolicyIssues, options: { readonly what?: "policy" | "pack" } = {}) {
    const first = issues[0];
    const more =
      issues.length > 1 ? `, and ${issues.length - 1} more ${issues.length === 2 ? "issue" : "issues"}` : "";
    super(`Cannot load ${options.what ?? "policy"} "${file}": ${formatPolicyIssue(first)}${more}`);
    this.file = file;
    this.issues = issues;
    this.line = first.line;
    this.column = first.column;
  }
}
