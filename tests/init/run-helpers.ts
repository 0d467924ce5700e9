/**
 * Runs `bouncer init` and `bouncer doctor` in-process against temporary directories, with an
 * in-memory io and a fixed environment. Test helper, not a test.
 * @module
 */

import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCommand } from "citty";
import { memoryIo } from "../../src/commands/io.ts";
import { initCommand } from "../../src/init/command.ts";
import { doctorCommand } from "../../src/init/doctor-command.ts";
import type { InitEnvironment } from "../../src/init/init-environment.ts";
import { BREW_LAUNCHER, samplePath } from "./samples.ts";

/** What a command run produced. */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A fixed clock value for backup names. */
export const NOW = new Date("2026-05-06T07:08:09.010Z");

/**
 * A fresh temporary folder.
 * @param prefix - Name prefix.
 * @returns Its path.
 */
export function tempDir(prefix = "bouncer-init-"): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/**
 * Copies a fixture config to `dir/relative` with mode 0600.
 * @param sample - Path under `tests/fixtures/configs/`.
 * @param target - Target folder and the path inside it.
 * @returns The target path.
 */
export function placeSample(
  sample: string,
  where: { readonly dir: string; readonly relative: string },
): string {
  const { dir, relative } = where;
  const target = path.join(dir, relative);
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(samplePath(sample), target);
  chmodSync(target, 0o600);
  return target;
}

/**
 * The backups next to a file.
 * @param file - A config file.
 * @returns Backup file names.
 */
export function backupsOf(file: string): string[] {
  return readdirSync(path.dirname(file)).filter((name) =>
    name.startsWith(`${path.basename(file)}.bouncer-backup-`),
  );
}

/**
 * Runs a command in-process.
 * @param command - `init` or `doctor`.
 * @param args - Its arguments.
 * @param options - Working directory and environment overrides (home defaults to the working directory);
 *   `findLauncher` leaves the launcher to `init` (no fixed one).
 * @returns Exit status and output.
 */
export async function runBouncer(
  command: "init" | "doctor",
  args: readonly string[],
  options: { readonly cwd: string } & Partial<InitEnvironment> & {
      readonly doctor?: object;
      readonly findLauncher?: boolean;
    },
): Promise<RunResult> {
  const { io, stdout, stderr } = memoryIo({ cwd: options.cwd });
  const { findLauncher, ...overrides } = options;
  const environment: Partial<InitEnvironment> & { launcher?: InitEnvironment["launcher"] } = {
    env: { PATH: "/usr/bin:/bin" },
    home: options.cwd,
    platform: process.platform,
    execPath: process.execPath,
    now: () => NOW,
    interactive: false,
    confirm: async () => false,
    launcher: BREW_LAUNCHER,
    ...overrides,
    io,
  };
  if (findLauncher === true) delete environment.launcher;
  const data = { io, environment, doctor: options.doctor };
  const { result } =
    command === "init"
      ? await runCommand(initCommand, { rawArgs: [...args], data })
      : await runCommand(doctorCommand, { rawArgs: [...args], data });
  return { code: Number(result), stdout: stdout(), stderr: stderr() };
}
