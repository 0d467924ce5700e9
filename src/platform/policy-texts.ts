/**
 * Reading the `--policy` files: each file's text under the name the user gave, in command-line
 * order. Loads nothing of the policy module, so `bouncer run` can read (and check) the files before
 * it spawns the upstream without loading the YAML library or the engine. Edge.
 *
 * Source: SPEC §4.1 (`--policy`, repeatable, later files win), §3.2 step 1.
 * @module
 */

import { resolve } from "node:path";
import type { PolicyText } from "../policy/index.ts";
import { BouncerError } from "./errors.ts";
import { describeReadError } from "./fs-error-text.ts";
import { readRegularTextFile } from "./regular-file.ts";

/** A policy file that cannot be read: its name as given and why, in words. */
export interface UnreadablePolicy {
  /** The name as the user gave it (`""` when none was given). */
  readonly file: string;
  /** Why, e.g. `no such file`, `it is a folder, not a file (EISDIR)`, `it is not UTF-8 text (line 1, column 3)`. */
  readonly reason: string;
  readonly cause?: unknown;
}

/**
 * Reads one policy file, or says why it cannot be read: the non-throwing twin of
 * {@link readPolicyTexts} (STYLE #13), for `bouncer check --json`, which reports every file.
 *
 * Source: SPEC §4.1 (`--policy`), §5.5.
 * @param file - The name as the user gave it.
 * @param cwd - The directory it is relative to.
 * @returns The file's text under that name, or why it cannot be read: the name is empty, or the file
 *   is missing, is not a regular file (a directory, a FIFO, a device: never waited on), is not UTF-8
 *   text, or cannot be read.
 */
export function tryReadPolicyText(
  file: string,
  cwd: string,
):
  | { readonly ok: true; readonly text: PolicyText }
  | { readonly ok: false; readonly unreadable: UnreadablePolicy } {
  if (file === "") return { ok: false, unreadable: { file, reason: "no file name given" } };
  try {
    // Only a regular file of UTF-8 text is read: a FIFO or a device could block the start-up for
    // ever, and bytes that are not UTF-8 would rename a tool silently.
    return { ok: true, text: { text: readRegularTextFile(resolve(cwd, file)), fileName: file } };
  } catch (error) {
    const reason = describeReadError(error);
    return { ok: false, unreadable: { file, reason, cause: error } };
  }
}

/**
 * Reads the policy files.
 *
 * Source: SPEC §4.1 (`--policy`, repeatable).
 * @param files - The names as the user gave them, in command-line order.
 * @param cwd - The directory they are relative to.
 * @returns Each file's text under the name the user gave (rules carry `user:<name>`).
 * @throws {BouncerError} `POLICY_UNREADABLE` (exit 2) for the first file {@link tryReadPolicyText}
 *   cannot read.
 */
export async function readPolicyTexts(files: readonly string[], cwd: string): Promise<PolicyText[]> {
  const texts: PolicyText[] = [];
  for (const file of files) {
    const read = tryReadPolicyText(file, cwd);
    if (read.ok) {
      texts.push(read.text);
      continue;
    }
    const { reason, cause } = read.unreadable;
    const message = file === "" ? `Cannot read policy: ${reason}` : `Cannot read policy "${file}": ${reason}`;
    throw new BouncerError("POLICY_UNREADABLE", message, cause === undefined ? {} : { cause });
  }
  return texts;
}
