import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { launchServer } from "../../src/init/doctor-launch.ts";
import { isAlive, waitUntil } from "../proxy/support/harness.ts";
import { tempDir } from "./run-helpers.ts";

const dirs: string[] = [];
const started: number[] = [];
afterAll(() => {
  // Whatever a failing test left behind, by pid.
  for (const pid of started) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * The pids a server wrote to a file, once it has.
 * @param file - The file.
 * @returns The pids.
 */
async function pidsIn(file: string): Promise<number[]> {
  await waitUntil(
    () => existsSync(file) && readFileSync(file, "utf8").endsWith("\n"),
    10_000,
    "pids written",
  );
  const pids = readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
  started.push(...pids);
  return pids;
}

describe("launchServer", () => {
  test.if(process.platform !== "win32")(
    "launchServer stops the group of a server that exited first, leaving a child running",
    async () => {
      const dir = tempDir("bouncer-doctor-");
      dirs.push(dir);
      const pidFile = path.join(dir, "pids");
      const result = await launchServer(
        {
          command: "sh",
          args: ["-c", 'sleep 1009 & echo $! > "$0"; exit 0', pidFile],
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
          cwd: dir,
        },
        { timeoutMs: 20_000 },
      );
      expect(result.status).toBe("error");
      const [sleeper = 0] = await pidsIn(pidFile);
      await waitUntil(() => !isAlive(sleeper), 10_000, "the server's child is stopped");
    },
    30_000,
  );
});
