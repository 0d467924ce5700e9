/**
 * Server identity for pinning (SPEC §2.2): the `--upstream-name`, the upstream command, its arguments
 * with secrets removed and its working directory — hashed with SHA-256, and the hash names the pin
 * file, so a name the user chose never becomes a path. Environment values never take part. Edge.
 *
 * Source: SPEC §2.2 ("Server identity … env values never take part and are never stored").
 * @module
 */

import { createHash } from "node:crypto";
import { REDACTED, redactJson, redactTokens } from "../audit/index.ts";
import { IDENTITY_NAME_PART, isIdentitySecretName } from "../platform/secret-shapes.ts";

/** The facts that make up a server's identity. */
export interface IdentityFacts {
  /** The `--upstream-name`. */
  readonly name: string;
  /** The upstream command line, command first. */
  readonly command: readonly string[];
  /** The upstream's working directory (absolute). */
  readonly cwd: string;
}

/** Version of the identity recipe, part of the hashed text (a new recipe names new files). */
const IDENTITY_VERSION = 1;

/**
 * The command line with secrets removed: token-shaped substrings, the value of a `--flag=VALUE`
 * whose flag names a secret (`--api-key=…`), and the argument after such a flag (`--token X`).
 *
 * Source: SPEC §2.2 ("the arguments with token-shaped values removed").
 * @param command - The command line, command first.
 * @returns The same line with secrets replaced by `[redacted]`.
 */
export function scrubCommand(command: readonly string[]): string[] {
  const out: string[] = [];
  let secretNext = false;
  for (const argument of command) {
    if (secretNext) {
      out.push(REDACTED);
      secretNext = false;
      continue;
    }
    const flag = /^--?([A-Za-z][A-Za-z0-9_.-]*)(=.*)?$/s.exec(argument);
    const name = flag?.[1];
    if (name !== undefined && isIdentitySecretName(name)) {
      if (flag?.[2] === undefined) {
        out.push(argument);
        secretNext = true;
      } else {
        out.push(`${argument.slice(0, argument.indexOf("=") + 1)}${REDACTED}`);
      }
      continue;
    }
    // Recipe 1's quick test of names: a later one would change what the identity holds.
    out.push(redactTokens(argument, { namePart: IDENTITY_NAME_PART }));
  }
  return out;
}

/** What follows a `-k` and is no key: a flag, a URL, a path (`curl -k https://…`: curl's `--insecure`). */
const NOT_A_KEY = /^(?:-|[a-z][a-z0-9+.-]*:\/\/|\.{0,2}\/|~\/)/i;

/** Short flags whose value is a secret by convention (`-k KEY`: the API key of many CLIs, as `init` holds). */
const SECRET_SHORT_FLAGS: ReadonlySet<string> = new Set(["-k"]);

/**
 * The command line as the pin file stores it (and `bouncer pins list` shows it): what
 * {@link scrubCommand} removes, and whatever else the audit log hides of the same list — the value
 * after a flag that only its later rules call secret (`--bearer`, `--jwt`, `--recovery-code`,
 * `--seed-phrase`), a password glued to its flag (`-pS3cret`) or after a user (`-u bob:S3cret`), a
 * secret-named assignment — and the value after `-k`. The identity hash still uses
 * {@link scrubCommand} alone (recipe 1): the file keeps its name.
 *
 * Source: SPEC §2.2 ("env values never take part and are never stored"; "the arguments with
 * token-shaped values removed"), §3.5 (redaction); review finding E1 (a pin file stored the values
 * of `-k`, `--bearer`, `--jwt` and `--recovery-code`).
 * @param command - The command line, command first.
 * @returns The same line with secrets replaced by `[redacted]`.
 */
export function storedCommand(command: readonly string[]): string[] {
  const scrubbed = scrubCommand(command);
  const audited = redactJson(command);
  return scrubbed.map((part, index) => {
    const argument = command[index] ?? "";
    const previous = command[index - 1];
    // Not a URL or a path after it: `curl -k https://…` is curl's --insecure, with no value.
    if (previous !== undefined && SECRET_SHORT_FLAGS.has(previous) && !NOT_A_KEY.test(argument))
      return REDACTED;
    // What the identity's flag rule hid (`--max-tokens 1000` too) stays hidden.
    if (part !== redactTokens(argument, { namePart: IDENTITY_NAME_PART })) return part;
    const shown = Array.isArray(audited) ? audited[index] : undefined;
    return typeof shown === "string" ? shown : part;
  });
}

/**
 * The identity hash of a server: SHA-256 (hex) of a canonical JSON array of the recipe version, the
 * name, the scrubbed command line and the working directory.
 *
 * Source: SPEC §2.2.
 * @param facts - Name, command line and working directory.
 * @returns 64 hex digits.
 * @example identityHash({ name: "fs", command: ["npx", "server", "/data"], cwd: "/home/me" })
 */
export function identityHash(facts: IdentityFacts): string {
  const text = JSON.stringify([IDENTITY_VERSION, facts.name, scrubCommand(facts.command), facts.cwd]);
  return createHash("sha256").update(text).digest("hex");
}
