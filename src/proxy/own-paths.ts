/**
 * The files and folders no path argument of a gated call may reach (`protected-paths.ts`): an agent
 * writing through a gated file tool must not accept its own rug pull, loosen its policy, or unwrap
 * its servers for the next session. One list for `bouncer run` and `bouncer replay`, so that a
 * replay decides as the live run did. Edge.
 *
 * Source: SPEC §2.2 (a changed definition is accepted by a person), §2.4, §3.5, §5.2.
 * @module
 */

import { resolve } from "node:path";
import { ROTATE_KEEP } from "../audit/index.ts";
import { candidateFiles } from "../init/client-files.ts";
import { userHome } from "../platform/home-dir.ts";

/** What the protected paths of a run are made of. */
export interface OwnPathFacts {
  /** Bouncer's home (`$BOUNCER_HOME`): pins, sessions, the default audit log. */
  readonly home: string;
  /** The working directory relative flags and project client configs resolve against. */
  readonly cwd: string;
  /** The `--policy` files, as given. */
  readonly policies: readonly string[];
  /** The audit log, absolute (its rotations `.1` … are protected too). */
  readonly auditLog: string;
  /** The `--record` file, as given. */
  readonly record?: string;
  /** The `--config` client config, as given. */
  readonly config?: string;
}

/**
 * Bouncer's own files and folders, absolute: its home, each policy file, the audit log and its
 * rotations, the session recording, the `--config` client config, and every client config file
 * `bouncer init` looks for (the project files of the working directory and the user's, SPEC §5.2).
 *
 * Source: SPEC §2.2, §2.4, §3.5, §5.2.
 * @param facts - Home, working directory and the run's files.
 * @returns The paths, each once.
 */
export function ownPaths(facts: OwnPathFacts): string[] {
  const { cwd } = facts;
  const files = [
    facts.home,
    ...facts.policies.map((file) => resolve(cwd, file)),
    facts.auditLog,
    ...Array.from({ length: ROTATE_KEEP }, (_, i) => `${facts.auditLog}.${i + 1}`),
    ...(facts.record === undefined ? [] : [resolve(cwd, facts.record)]),
    ...(facts.config === undefined ? [] : [resolve(cwd, facts.config)]),
    ...candidateFiles({ home: userHome(), platform: process.platform, env: process.env, cwd }).map(
      (file) => file.path,
    ),
  ];
  return [...new Set(files)];
}
