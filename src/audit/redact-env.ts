/**
 * The values of the secret-named environment variables an upstream is given (`DB_PASSWORD`,
 * `GITHUB_TOKEN`...), hidden from what Bouncer shows and stores of its stderr: an upstream that
 * prints its configuration on a failed start would otherwise put a password into the audit log's
 * `upstream_exit` reason and Bouncer's stderr. Names are judged by the rule that redacts arguments.
 * No engine: the hider is built before the upstream starts, ahead of the engine's modules. Edge
 * (pure apart from `node:crypto` through `redact.ts`).
 *
 * Source: SPEC §3.3 (the stderr tail), §3.5 (redaction).
 * @module
 */

import { isSecretName } from "./redact.ts";
import { hideForms, MIN_SECRET_PIECE, plainForms } from "./secret-forms.ts";

/** Values of a flag, not of a secret (`NPM_CONFIG_ALWAYS_AUTH=false`): hiding them would blank prose. */
const FLAG_VALUES: ReadonlySet<string> = new Set(["true", "false", "yes", "null", "undefined"]);

/**
 * Names of variables that hold where something is, not a secret, though a word of theirs is a
 * secret word (`SSH_AUTH_SOCK`, `GNUPG_KEY_DIR`, and the shell's `PWD` and `OLDPWD`, though `pwd` is a
 * password's name in `MYSQL_PWD`): on nearly every machine, and hiding their values would blank paths
 * out of every stderr line.
 */
const LOCATION_NAME = /_(?:SOCK|PATH|DIR|FILE|HOME)$|^(?:OLD)?PWD$/i;

/**
 * The values of an environment's secret-named variables worth hiding: at least 8 characters (an
 * ordinary `AUTH_METHOD=github` is no secret and would blank a word of prose), not a flag's `true`
 * or `false`, not of a name ending in `_SOCK`, `_PATH`, `_DIR`, `_FILE` or `_HOME`, nor `PWD`, `OLDPWD`.
 *
 * Source: SPEC §3.5 (names like token, password, secret, key, authorization, cookie).
 * @param env - The upstream's environment.
 * @returns The distinct values, in the environment's order.
 */
export function environmentSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.trim().length < MIN_SECRET_PIECE || LOCATION_NAME.test(name)) continue;
    if (FLAG_VALUES.has(value.trim().toLowerCase()) || !isSecretName(name)) continue;
    found.add(value);
  }
  return [...found];
}

/**
 * A function hiding the values of an environment's secret-named variables in a text (as written, as
 * inside a JSON string, by pieces of 8 characters and by 12-character runs in any case), or
 * undefined when there are none.
 *
 * Source: SPEC §3.3, §3.5.
 * @param env - The upstream's environment.
 * @returns From a text (stderr) to the text with `"[redacted]"` for each value; undefined when the
 *   environment has no secret-named value to hide.
 * @example environmentHider({ DB_PASSWORD: "Tr0ub4dor&3" })?.("password Tr0ub4dor&3") // "password [redacted]"
 */
export function environmentHider(
  env: Readonly<Record<string, string | undefined>>,
): ((text: string) => string) | undefined {
  const secrets = environmentSecrets(env).map(plainForms);
  return secrets.length === 0 ? undefined : (text) => hideForms(text, secrets);
}
