/**
 * Which variables of a client config value fill in a secret, for `doctor` to mask what a server
 * prints of them: the secret-named ones (`${GH_TOKEN}`), the one after a credential scheme
 * (`Bearer ${T}`) and the one in a URL's password (`:${PW}@`) — not a URL's user or host. Pure.
 *
 * Source: SPEC §5.3 (the stderr tail), §5.2 ("secrets masked"), field case F11.
 * @module
 */

import { isSecretName } from "./secrets.ts";

/** The variables a value refers to (`${VAR}`, `${env:VAR}`, `$VAR`). */
function placeholderNames(value: string): string[] {
  const names: string[] = [];
  for (const match of value.matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g)) {
    names.push(match[1] ?? match[2] ?? "");
  }
  return names;
}

/**
 * The variables of a value that fill in a secret: secret-named ones, the one after `Bearer`,
 * `Basic` or `token`, and those in a URL's password — or, with `all`, every one.
 *
 * Source: SPEC §5.3, F11.
 * @param value - An `env` value or argument as written.
 * @param options - `all`: every variable counts (the value stands under a secret-named key).
 * @returns The variable names (empty when none fills in a secret).
 */
export function secretPlaceholderNames(value: string, options: { readonly all?: boolean } = {}): string[] {
  const names = new Set(
    options.all === true ? placeholderNames(value) : placeholderNames(value).filter(isSecretName),
  );
  for (const match of value.matchAll(/\b(?:Bearer|Basic|token)\s+\$\{?(?:env:)?([A-Za-z_][A-Za-z0-9_]*)/gi)) {
    names.add(match[1] ?? "");
  }
  for (const match of value.matchAll(/:\/\/[^/\s:@]*:([^/\s@]*)@/g)) {
    for (const name of placeholderNames(match[1] ?? "")) names.add(name);
  }
  return [...names];
}

/**
 * The values those variables are filled in with, from the environment.
 *
 * Source: SPEC §5.3, F11.
 * @param names - From {@link secretPlaceholderNames}.
 * @param env - The environment.
 * @returns The values (unset variables skipped).
 */
export function filledValues(
  names: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  return names.flatMap((name) => {
    const filled = Object.hasOwn(env, name) ? env[name] : undefined;
    return filled === undefined ? [] : [filled];
  });
}
