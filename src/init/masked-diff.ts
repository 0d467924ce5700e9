/**
 * The unified diff `bouncer init` shows before writing, with secrets masked: every `env` and header
 * value, every value after a secret-named flag and every token-shaped string becomes `********` on
 * both sides, so the diff still lines up but never shows a secret. Pure.
 *
 * Source: SPEC §5.2 ("A unified diff is shown with secrets masked"), field case F11.
 * @module
 */

import type { ClientInfo } from "./client-table.ts";
import { unifiedDiff } from "./line-diff.ts";
import type { InitPlan } from "./plan.ts";
import { readConfig } from "./plan.ts";
import { maskText } from "./secrets.ts";

/**
 * The masked unified diff of a plan.
 *
 * Source: SPEC §5.2.
 * @param plan - The plan (its old and new text, and the old text's secret ranges).
 * @param options - The file name shown in the diff's header, and the file's client (to find the
 *   secret ranges of the new text).
 * @returns The diff text (empty when nothing changes).
 */
export function maskedDiff(
  plan: InitPlan,
  options: { readonly file: string; readonly client: ClientInfo },
): string {
  const { file, client } = options;
  if (!plan.changed) return "";
  const afterSpans = readConfig(plan.after, client).secretSpans;
  const before = maskText(plan.before, plan.config.secretSpans);
  const after = maskText(plan.after, afterSpans);
  return unifiedDiff(file, { before, after });
}

/**
 * Colours a unified diff for a terminal (removed lines red, added lines green, hunk headers cyan).
 *
 * Source: SPEC §5.2.
 * @param diff - A unified diff.
 * @param colors - The colour functions (picocolors).
 * @returns The coloured diff.
 */
export function colorDiff(
  diff: string,
  colors: {
    readonly red: (s: string) => string;
    readonly green: (s: string) => string;
    readonly cyan: (s: string) => string;
  },
): string {
  return diff
    .split("\n")
    .map((line) => {
      if (line.startsWith("+++") || line.startsWith("---")) return line;
      if (line.startsWith("+")) return colors.green(line);
      if (line.startsWith("-")) return colors.red(line);
      if (line.startsWith("@@")) return colors.cyan(line);
      return line;
    })
    .join("\n");
}
