/**
 * One server name, several identities: the same `--upstream-name` run with another command or in
 * another working directory has pin files of its own (SPEC §2.2 "Server identity"). `bouncer pins`
 * names each by its file id — the first 8 hex digits of the identity hash that names the file, as
 * `pins list` shows it in brackets — refuses to accept or forget for several identities at once, and
 * takes `--id` to choose one. Edge (pure).
 *
 * Source: SPEC §2.2 ("Server identity"), §5.7.
 * @module
 */

import { basename } from "node:path";
import { renderUntrusted } from "../engine/index.ts";
import { BouncerError } from "../platform/errors.ts";
import type { PinFile } from "./pin-file.ts";

/** Hex digits of a file id as shown; `--id` takes 8 to 64. */
const ID_DIGITS = 8;

/**
 * The file id of an identity, as `pins list` shows it in brackets.
 *
 * Source: SPEC §5.7.
 * @param path - The pin file (`<identity-hash>.json`).
 * @returns Its first 8 hex digits.
 */
export function identityId(path: string): string {
  return basename(path, ".json").slice(0, ID_DIGITS);
}

/**
 * Checks an `--id` value: 8 to 64 hex digits (the start of an identity hash).
 *
 * Source: SPEC §5.7.
 * @param id - The value as typed.
 * @param action - What the command does, for the message (`accept pins`, `forget server "mail"`).
 * @returns It in lower case.
 * @throws {BouncerError} `USAGE` (exit 2) for anything else.
 */
export function checkIdentityId(id: string, action: string): string {
  if (!/^[0-9a-fA-F]{8,64}$/.test(id)) {
    throw new BouncerError(
      "USAGE",
      `Cannot ${action}: --id ${JSON.stringify(id)} is not 8 to 64 hex digits of an identity (bouncer pins list shows them in brackets)`,
    );
  }
  return id.toLowerCase();
}

/**
 * Whether a pin file belongs to the identity an `--id` names.
 * @param path - The pin file.
 * @param id - The checked id (lower case), or undefined for every identity.
 * @returns True when it does (always without an id).
 */
export function hasIdentity(path: string, id: string | undefined): boolean {
  return id === undefined || basename(path, ".json").startsWith(id);
}

/**
 * The identities of a server, one per file, for a message: `[0a1b2c3d] cwd "/proj/a", command
 * "node server.js"` (a file that cannot be read: its id alone), joined by `; `.
 *
 * Source: SPEC §5.7.
 * @param files - The files, with their content when it could be read.
 * @returns One line.
 */
export function describeIdentities(
  files: readonly { readonly path: string; readonly file?: PinFile }[],
): string {
  return files
    .map(({ path, file }) => {
      const what =
        file === undefined
          ? "(cannot be read)"
          : `cwd ${renderUntrusted(file.cwd)}, command ${renderUntrusted(file.command.join(" "))}`;
      return `[${identityId(path)}] ${what}`;
    })
    .join("; ");
}
