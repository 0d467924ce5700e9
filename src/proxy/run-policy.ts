/**
 * What `bouncer run` checks before the upstream is spawned: the user's policy files, read and
 * validated (fast: the packs are not parsed here; they join the files when the gate is built, after
 * the spawn), and the `--record` file, opened. An unusable policy or session file becomes the
 * JSON-RPC error every client request is answered with. Edge.
 *
 * Source: SPEC §3.2 step 1 ("load and validate the policy (fast), spawn the upstream"), step 2
 * ("answer with a JSON-RPC error carrying the policy error and exit 2 — never run ungated"), §4.2,
 * §3.6.
 * @module
 */

import { resolve } from "node:path";
import type { SessionRecorder } from "../audit/index.ts";
import type { PolicyFile } from "../policy/index.ts";
import type { RpcErrorObject } from "./jsonrpc.ts";
import type { RunOptions } from "./run-args.ts";

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

/**
 * Opens the `--record` session file, when asked for (the audit module is loaded only then), so that
 * a file that cannot be written refuses the session before the upstream starts.
 *
 * Source: SPEC §3.6, §3.2 step 1.
 * @param run - The flags.
 * @param cwd - Bouncer's working directory (a relative `--record` resolves against it).
 * @returns The recorder (none without `--record`), or the error that refuses the session.
 */
export async function openRecorder(
  run: RunOptions,
  cwd: string,
): Promise<
  | { readonly ok: true; readonly recorder?: SessionRecorder }
  | { readonly ok: false; readonly error: RpcErrorObject }
> {
  if (run.record === undefined) return { ok: true };
  const { createSessionRecorder } = await import("../audit/index.ts");
  try {
    return { ok: true, recorder: createSessionRecorder(resolve(cwd, run.record)) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code: SESSION_REFUSED_CODE, message, data: {} } };
  }
}
