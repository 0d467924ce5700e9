/**
 * Bouncer's home directory: `$BOUNCER_HOME`, else `~/.bouncer`. Pins, sessions, approvals and the
 * default audit log live below it. Edge (reads the environment it is given).
 *
 * Source: SPEC §2.2 ("default home `~/.bouncer`"), §3.5, §3.7.
 * @module
 */

import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** Options of {@link bouncerHome}. */
export interface BouncerHomeOptions {
  /** The environment to read `BOUNCER_HOME` from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The user's home directory (default `os.homedir()`). */
  readonly userHome?: string;
  /** What a relative `BOUNCER_HOME` resolves against (default `process.cwd()`). */
  readonly cwd?: string;
}

/**
 * The absolute path of Bouncer's home directory. A non-empty `BOUNCER_HOME` wins (resolved to an
 * absolute path); otherwise `<user home>/.bouncer`. The directory is not created here.
 *
 * Source: SPEC §2.2.
 * @param options - Environment, user home and working directory (injected for tests).
 * @returns The absolute home path.
 */
export function bouncerHome(options: BouncerHomeOptions = {}): string {
  const env = options.env ?? process.env;
  const configured = Object.hasOwn(env, "BOUNCER_HOME") ? env.BOUNCER_HOME : undefined;
  if (configured !== undefined && configured.trim() !== "") {
    return isAbsolute(configured) ? configured : resolve(options.cwd ?? process.cwd(), configured);
  }
  return join(options.userHome ?? homedir(), ".bouncer");
}

/**
 * The user's home directory, for `~` expansion in paths (SPEC §2.4).
 *
 * Source: SPEC §2.4.
 * @returns The absolute home directory.
 */
export function userHome(): string {
  return homedir();
}
