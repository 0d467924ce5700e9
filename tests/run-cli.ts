/**
 * Runs the real CLI (`bun src/cli.ts ...`) as a subprocess, for exit codes and output (SPEC §5).
 * @module
 */

import { join } from "node:path";

/** The repository root. */
export const REPO = join(import.meta.dir, "..");

/** What a CLI run produced. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `bun src/cli.ts ARGS...` in the repository (or `cwd`) with a clean colour environment.
 * @param args - The command line after `bouncer`.
 * @param options - Working directory and extra environment.
 * @returns Exit code, stdout and stderr.
 */
export function runCli(
  args: readonly string[],
  options: { readonly cwd?: string; readonly env?: Record<string, string> } = {},
): Promise<CliRun> {
  return runScript(join(REPO, "src", "cli.ts"), args, options);
}

/**
 * Runs `bun SCRIPT ARGS...` in the repository (or `cwd`) with a clean colour environment and a
 * `BOUNCER_HOME` that holds nothing.
 * @param script - The script's path.
 * @param args - Its arguments.
 * @param options - Working directory and extra environment.
 * @returns Exit code, stdout and stderr.
 */
export async function runScript(
  script: string,
  args: readonly string[],
  options: { readonly cwd?: string; readonly env?: Record<string, string> } = {},
): Promise<CliRun> {
  const child = Bun.spawn([process.execPath, script, ...args], {
    cwd: options.cwd ?? REPO,
    env: {
      ...process.env,
      NO_COLOR: "1",
      BOUNCER_HOME: join(REPO, "tests", "fixtures", "no-home"),
      ...options.env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}
