import { describe, expect, test } from "bun:test";
import path from "node:path";
import { launchServer } from "../../src/init/doctor-launch.ts";
import { isAlive, waitUntil } from "../proxy/support/harness.ts";
import { tempDir } from "./run-helpers.ts";
import { trackProcesses } from "./support-pids.ts";

const { dirs, pidsIn } = trackProcesses(10_000);

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
