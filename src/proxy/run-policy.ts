/**
 * What `bouncer run` checks before the upstream is spawned: the user's policy files, read and
 * validated, the `--audit-log` and `--record` paths looked at, and the `--record` file opened. An
 * unusable policy, log or session file becomes the JSON-RPC error every client request is answered
 * with. Edge.
 *
 * The check before the spawn is fast: under Bun each file is parsed by `Bun.YAML` and validated by
 * the policy module's fast path (`check-parsed.ts`, which loads neither the `yaml` library nor the
 * engine). A file the fast path cannot vouch for is read by the `yaml` library there and then, so an
 * invalid policy is refused before the upstream starts. A policy the fast path found valid is read
 * by the `yaml` library again after the spawn, while the upstream boots, and that reading is the
 * one the gate is built from; only when it is valid is anything relayed ({@link checkRunPolicyTexts}).
 * The packs are not parsed here; they join the files when the gate is built.
 *
 * Source: SPEC §3.2 step 1 ("load and validate the policy (fast), spawn the upstream"), step 2
 * ("answer with a JSON-RPC error carrying the policy error and exit 2 — never run ungated"), §4.2,
 * §3.6.
 * @module
 */

import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { SessionRecorder } from "../audit/index.ts";
// A deep import on purpose (STYLE #9 otherwise): `bouncer run` loads this before it spawns the upstream: not the whole engine (SPEC §3.2 step 1).
import { errorText } from "../engine/error-text.ts";
import { errorCode } from "../platform/errors.ts";
import { readPolicyTexts } from "../platform/policy-texts.ts";
import { notRegularReason } from "../platform/regular-file.ts";
import { parseYamlNatively } from "../platform/yaml-parse.ts";
import type { PolicyFile, PolicyText } from "../policy/index.ts";
import type { RpcErrorObject } from "./jsonrpc.ts";
import type { RunOptions } from "./run-args.ts";

/** The JSON-RPC error code of a refused session (server-defined range). */
export const SESSION_REFUSED_CODE = -32001;

/** The validated files, or the error that refuses the session (exit 2). */
export type RunPolicyCheck =
  | { readonly ok: true; readonly files: readonly PolicyFile[] }
  | { readonly ok: false; readonly error: RpcErrorObject };

/** What the check before the spawn found. */
export type RunPolicyPrecheck =
  /** Read by the `yaml` library: the final verdict. */
  | { readonly kind: "checked"; readonly check: RunPolicyCheck }
  /** Valid on the fast path: read again with {@link checkRunPolicyTexts} before anything is relayed. */
  | { readonly kind: "valid"; readonly texts: readonly PolicyText[] };

/**
 * Reads the `--policy` files and checks them fast. Never throws: an unreadable file is the refusal
 * (`POLICY_UNREADABLE`); a file the fast path does not find valid is checked by the `yaml` library.
 *
 * Source: SPEC §3.2 step 1–2, §4.1, §4.2.
 * @param files - The `--policy` values in command-line order.
 * @param cwd - The directory relative names resolve against.
 * @returns The final check, or the texts found valid (to be read again after the spawn).
 */
export async function precheckRunPolicy(files: readonly string[], cwd: string): Promise<RunPolicyPrecheck> {
  if (files.length === 0) return { kind: "checked", check: { ok: true, files: [] } };
  // The fast path's modules load while the files are read.
  const fastPath = import("../policy/check-parsed.ts");
  fastPath.catch(() => undefined); // awaited below; not left unhandled when a file cannot be read
  let texts: PolicyText[];
  try {
    texts = await readPolicyTexts(files, cwd);
  } catch (error) {
    return { kind: "checked", check: unreadable(error) };
  }
  const { checkParsedPolicy } = await fastPath;
  const valid = texts.every(({ text, fileName }) => {
    const parsed = parseYamlNatively(text);
    return parsed !== undefined && checkParsedPolicy({ text, value: parsed.value }, fileName) !== undefined;
  });
  return valid ? { kind: "valid", texts } : { kind: "checked", check: await checkRunPolicyTexts(texts) };
}

/**
 * Validates policy texts with the `yaml` library (without the packs). Never throws: an invalid file
 * is the refusal, with `data.code` `POLICY_INVALID` and every issue as `FILE:LINE:COLUMN: message`.
 *
 * Source: SPEC §3.2 step 1–2, §4.1, §4.2.
 * @param texts - The files' texts, in command-line order.
 * @returns The validated files in the same order, or the refusal.
 */
export async function checkRunPolicyTexts(texts: readonly PolicyText[]): Promise<RunPolicyCheck> {
  // The checker alone, not the policy module's index (that would load the engine too).
  const { checkPolicyFiles } = await import("../policy/create-policy.ts");
  try {
    const checked = checkPolicyFiles(texts, []);
    if (checked.ok) return { ok: true, files: checked.policy.files };
    const { formatIssueLine } = await import("../commands/policy-files.ts");
    const lines = checked.issues.map(formatIssueLine);
    const more =
      lines.length > 1 ? ` (and ${lines.length - 1} more: bouncer check --policy FILE lists them all)` : "";
    return refusal(`Invalid policy: ${lines[0]}${more}`, { code: "POLICY_INVALID", issues: lines });
  } catch (error) {
    return unreadable(error);
  }
}

/**
 * Reads and validates the `--policy` files with the `yaml` library (without the packs). Never
 * throws.
 *
 * Source: SPEC §3.2 step 1–2, §4.1, §4.2.
 * @param files - The `--policy` values in command-line order.
 * @param cwd - The directory relative names resolve against.
 * @returns The validated files in the same order, or the refusal (`POLICY_UNREADABLE`,
 *   `POLICY_INVALID`).
 */
export async function checkRunPolicy(files: readonly string[], cwd: string): Promise<RunPolicyCheck> {
  if (files.length === 0) return { ok: true, files: [] };
  try {
    return await checkRunPolicyTexts(await readPolicyTexts(files, cwd));
  } catch (error) {
    return unreadable(error);
  }
}

/**
 * The refusal for a file that cannot be read (or an unexpected failure while checking).
 * @param error - What was thrown.
 * @returns The failed check.
 */
function unreadable(error: unknown): RunPolicyCheck {
  return refusal(errorText(error), { code: "POLICY_UNREADABLE" });
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
 * Looks at the `--audit-log` and `--record` paths before the spawn: one that exists and is not a
 * regular file (a folder, a FIFO, a device; a link is followed) is a usage error, so that Bouncer
 * neither starts to block every call it cannot audit nor waits on a FIFO. A missing file is fine
 * (it is created, and its missing folders with mode 0700); one that cannot be looked at is left to
 * the open, which reports it.
 *
 * Source: README "Commands" (a file named on the command line that is a folder or a FIFO: exit 2),
 * SPEC §3.5, §3.6.
 * @param run - The flags.
 * @param cwd - Bouncer's working directory (relative paths resolve against it).
 * @returns The error that refuses the session (exit 2, `data.code` `USAGE`), or undefined.
 */
export function checkOutputFiles(run: RunOptions, cwd: string): RpcErrorObject | undefined {
  const named: readonly (readonly [string, string | undefined])[] = [
    ["--audit-log", run.auditLog],
    ["--record", run.record],
  ];
  for (const [flag, path] of named) {
    if (path === undefined) continue;
    let refused: ReturnType<typeof notRegularReason>;
    try {
      refused = notRegularReason(statSync(resolve(cwd, path)));
    } catch {
      continue;
    }
    if (refused === undefined) continue;
    const message = `Cannot use ${flag} ${JSON.stringify(path)}: ${refused.reason}`;
    return { code: SESSION_REFUSED_CODE, message, data: { code: "USAGE" } };
  }
  return undefined;
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
    const message = errorText(error);
    const code = errorCode(error);
    const data = code === undefined ? {} : { code };
    return { ok: false, error: { code: SESSION_REFUSED_CODE, message, data } };
  }
}
