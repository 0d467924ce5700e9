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
import { BouncerError, errorCode } from "./errors.ts";
import { describeFsError } from "./fs-error-text.ts";
import { readRegularTextFile } from "./regular-file.ts";

/**
 * Reads the policy files.
 *
 * Source: SPEC §4.1 (`--policy`, repeatable).
 * @param files - The names as the user gave them, in command-line order.
 * @param cwd - The directory they are relative to.
 * @returns Each file's text under the name the user gave (rules carry `user:<name>`).
 * @throws {BouncerError} `POLICY_UNREADABLE` (exit 2) when a name is empty, or a file is missing, is
 *   not a regular file (a directory, a FIFO, a device: never waited on), is not UTF-8 text, or
 *   cannot be read.
 */
export async function readPolicyTexts(files: readonly string[], cwd: string): Promise<PolicyText[]> {
  const texts: PolicyText[] = [];
  for (const file of files) {
    if (file === "") throw new BouncerError("POLICY_UNREADABLE", "Cannot read policy: no file name given");
    const path = resolve(cwd, file);
    try {
      // Only a regular file of UTF-8 text is read: a FIFO or a device could block the start-up for
      // ever, and bytes that are not UTF-8 would rename a tool silently.
      texts.push({ text: readRegularTextFile(path), fileName: file });
    } catch (error) {
      const code = errorCode(error);
      const why =
        code === "ENOENT"
          ? "no such file"
          : code === "EISDIR"
            ? "it is a directory"
            : code === "ENOTREG"
              ? "it is not a regular file"
              : describeFsError(error);
      throw new BouncerError("POLICY_UNREADABLE", `Cannot read policy "${file}": ${why}`, { cause: error });
    }
  }
  return texts;
}
