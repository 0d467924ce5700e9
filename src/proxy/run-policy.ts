/**
 * The user's policy files for `bouncer run`, read and validated before the upstream is spawned
 * (fast: the packs are not parsed here; they join the files when the gate is built, after the
 * spawn). An unusable policy becomes the JSON-RPC error every client request is answered with.
 * Edge.
 *
 * Source: SPEC §3.2 step 1 ("load and validate the policy (fast), spawn the upstream"), step 2
 * ("answer with a JSON-RPC error carrying the policy error and exit 2 — never run ungated"), §4.2.
 * @module
 */

import type { PolicyFile } from "../policy/index.ts";
import type { RpcErrorObject } from "./jsonrpc.ts";

/** The JSON-RPC error code of a refused session (server-defined range). */
export const SESSION_REFUSED_CODE = -32001;

/** The validated files, or the error that refuses the session (exit 2). */
export type RunPolicyCheck =
  | { readonly ok: true; readonly files: readonly PolicyFile[] }
  | { readonly ok: false; readonly error: RpcErrorObject };

/**
 * Reads and validates the `--policy` files (without the packs). Never throws: an unreadable or
 * invalid file is the refusal, with `data.code` `POLICY_UNREADABLE` or `POLICY_INVALID` (and every
 * issue as `FILE:LINE:COLUMN: message`).
 *
 * Source: SPEC §3.2 step 1–2, §4.1, §4.2.
 * @param files - The `--policy` values in command-line order.
 * @param cwd - The directory relative names resolve against.
 * @returns The validated files in the same order, or the refusal.
 */
export async function checkRunPolicy(files: readonly string[], cwd: string): Promise<RunPolicyCheck> {
  if (files.length === 0) return { ok: true, files: [] };
  const [{ readPolicyTexts, formatIssueLine }, { checkPolicyFiles }] = await Promise.all([
    import("../commands/policy-files.ts"),
    import("../policy/index.ts"),
  ]);
  try {
    const checked = checkPolicyFiles(await readPolicyTexts(files, cwd), []);
    if (checked.ok) return { ok: true, files: checked.policy.files };
    const lines = checked.issues.map(formatIssueLine);
    return refusal(`Invalid policy: ${lines[0]}`, { code: "POLICY_INVALID", issues: lines });
  } catch (error) {
    return refusal(error instanceof Error ? error.message : String(error), { code: "POLICY_UNREADABLE" });
  }
}

/**
 * A refusal carrying the policy error.
 * @param message - The error message.
 * @param data - Its data (`code`, and `issues` when invalid).
 * @returns The failed check.
 */
function refusal(
  message: string,
  data: { readonly code: string; readonly issues?: readonly string[] },
): RunPolicyCheck {
  const json =
    data.issues === undefined ? { code: data.code } : { code: data.code, issues: [...data.issues] };
  return { ok: false, error: { code: SESSION_REFUSED_CODE, message, data: json } };
}
