import { describe, expect, test } from "bun:test";
import path from "node:path";
import { launchServer } from "../../src/init/doctor-launch.ts";
import { isAlive, waitUntil } from "../proxy/support/harness.ts";
import { tempDir } from "./run-helpers.ts";
import { trackProcesses } from "./support-pids.ts";

const { dirs, pidsIn } = trackProcesses(10_000);

const ODD_TOOLS = path.join(import.meta.dir, "..", "fixtures", "servers", "odd-tools.ts");

describe("launchServer", () => {
  test("launchServer names a tools/list answer the SDK's schema refuses in one line: the path and the issue", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const result = await launchServer(
      {
        command: process.execPath,
        args: [ODD_TOOLS, "null-properties"],
        env: { PATH: "/usr/bin:/bin" },
        cwd: dir,
      },
      { timeoutMs: 20_000 },
    );
    expect(result.status).toBe("error");
    expect(result.error).toBe(
      "the tools/list answer is not valid MCP: tools[0].inputSchema.properties: Invalid input: expected record, received null",
    );
  });

  test("launchServer stops at a tools/list cursor that comes back, counts each tool once, and names the defect", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const result = await launchServer(
      {
        command: process.execPath,
        args: [ODD_TOOLS, "repeat-cursor"],
        env: { PATH: "/usr/bin:/bin" },
        cwd: dir,
      },
      { timeoutMs: 20_000 },
    );
    expect(result.status).toBe("started");
    expect(result.tools?.map((tool) => tool.name)).toEqual(["a", "b"]);
    expect(result.defect).toBe(
      'tools/list gave the cursor "c1" again: the listing stopped there; 1 tool(s) an earlier page listed came again, counted once',
    );
  });

  test.if(process.platform !== "win32")(
    "launchServer names a server's own exit and its code, not the SDK's Connection closed",
    async () => {
      const dir = tempDir("bouncer-doctor-");
      dirs.push(dir);
      const result = await launchServer(
        {
          command: "sh",
          args: ["-c", "echo starting >&2; exit 3"],
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
          cwd: dir,
        },
        { timeoutMs: 20_000 },
      );
      expect(result.status).toBe("error");
      expect(result.error).toBe("The server exited (code 3)");
      expect(result.stderrTail).toContain("starting");
    },
    30_000,
  );

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
