/**
 * Reading the `--policy` files: each file's text under the name the user gave, in command-line
 * order. Loads nothing of the policy module, so `bouncer run` can read (and check) the files before
 * it spawns the upstream without loading the YAML library or the engine. Edge.
 *
 * Source: SPEC §4.1 (`--policy`, repeatable, later files win), §3.2 step 1.
 * @module
 */

import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { PolicyText } from "../policy/index.ts";
import { BouncerError, errorCode } from "./errors.ts";
import { describeFsError } from "./fs-error-text.ts";

/**
 * Reads the policy files.
 *
 * Source: SPEC §4.1 (`--policy`, repeatable).
 * @param files - The names as the user gave them, in command-line order.
 * @param cwd - The directory they are relative to.
 * @returns Each file's text under the name the user gave (rules carry `user:<name>`).
 * @throws {BouncerError} `POLICY_UNREADABLE` (exit 2) when a name is empty, or a file is missing, is
 *   not a regular file (a directory, a FIFO, a device: never waited on) or cannot be read.
 */
export async function readPolicyTexts(files: readonly string[], cwd: string): Promise<PolicyText[]> {
  const texts: PolicyText[] = [];
  for (const file of files) {
    if (file === "") throw new BouncerError("POLICY_UNREADABLE", "Cannot read policy: no file name given");
    const path = resolve(cwd, file);
    try {
      // Only a regular file is read: a FIFO or a device could block the start-up for ever.
      const stats = await stat(path);
      if (stats.isDirectory()) throw Object.assign(new Error("directory"), { code: "EISDIR" });
      if (!stats.isFile()) throw Object.assign(new Error("not a regular file"), { code: "ENOTREG" });
      texts.push({ text: await readFile(path, "utf8"), fileName: file });
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
