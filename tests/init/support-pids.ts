/**
 * Processes and folders a doctor test starts, cleaned up after the file's tests whatever a failing
 * test left behind (processes by pid, never by name).
 */

import { afterAll } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { isAlive, waitUntil } from "../proxy/support/harness.ts";

/** What a test file tracks. */
export interface Tracked {
  /** Folders to remove after the file's tests. */
  readonly dirs: string[];
  /**
   * The pids a server wrote to a file (space-separated, ending in a newline), once it has; they are
   * killed after the file's tests if still alive.
   * @param file - The file.
   * @returns The pids.
   */
  pidsIn(file: string): Promise<number[]>;
}

/**
 * Registers the clean-up (call it once, at the top of a test file).
 * @param waitMs - How long a server may take to write its pids (default 20 s).
 * @returns The tracker.
 */
export function trackProcesses(waitMs = 20_000): Tracked {
  const dirs: string[] = [];
  const started: number[] = [];
  afterAll(() => {
    for (const pid of started) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return {
    dirs,
    async pidsIn(file) {
      await waitUntil(
        () => existsSync(file) && readFileSync(file, "utf8").endsWith("\n"),
        waitMs,
        "pids written",
      );
      const pids = readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
      started.push(...pids);
      return pids;
    },
  };
}
