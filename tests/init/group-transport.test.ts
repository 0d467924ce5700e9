import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GroupStdioTransport } from "../../src/init/group-transport.ts";
import { isAlive, waitUntil } from "../proxy/support/harness.ts";

const ECHO_LINES = "process.stdin.on('data', (d) => process.stdout.write(d));";
/** A server that writes 11,000,000 bytes without a line break, then waits (its pid written first). */
const LONG_LINE = `echo $$ > "$0"; head -c 11000000 /dev/zero | tr '\\0' a; exec sleep 1007`;

const dirs: string[] = [];
const pidFiles: string[] = [];
afterAll(() => {
  // Whatever a failing test left behind, by pid.
  for (const file of pidFiles) {
    const pid = existsSync(file) ? Number(readFileSync(file, "utf8")) : 0;
    if (pid > 0 && isAlive(pid)) process.kill(pid, "SIGKILL");
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("GroupStdioTransport", () => {
  test("GroupStdioTransport delivers the server's messages and refuses a send after close (never hangs)", async () => {
    const transport = new GroupStdioTransport({
      command: process.execPath,
      args: ["-e", ECHO_LINES],
      env: process.env as Record<string, string>,
      cwd: tmpdir(),
    });
    const received: unknown[] = [];
    let closed = false;
    transport.onmessage = (message) => received.push(message);
    transport.onclose = () => {
      closed = true;
    };
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    const deadline = Date.now() + 10_000;
    while (received.length === 0 && Date.now() < deadline) await Bun.sleep(10);
    expect(received).toEqual([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    await transport.close();
    expect(closed).toBe(true);
    await expect(transport.send({ jsonrpc: "2.0", id: 2, method: "ping" })).rejects.toThrow("Not connected");
  }, 30_000);

  test.if(process.platform !== "win32")(
    "GroupStdioTransport gives up a server that writes a line over 10 MiB: closed at once with the reason, its group stopped",
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "bouncer-transport-"));
      dirs.push(dir);
      const pidFile = path.join(dir, "pid");
      pidFiles.push(pidFile);
      const transport = new GroupStdioTransport({
        command: "sh",
        args: ["-c", LONG_LINE, pidFile],
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        cwd: dir,
      });
      let closed = false;
      const errors: Error[] = [];
      transport.onclose = () => {
        closed = true;
      };
      transport.onerror = (error) => errors.push(error);
      await transport.start();
      await waitUntil(() => closed, 20_000, "the transport closes");
      expect(transport.failure).toBe(
        "The server wrote a line over 10 MiB to its stdout (the most one message may be)",
      );
      expect(errors).toEqual([]);
      await transport.close();
      const pid = Number(readFileSync(pidFile, "utf8"));
      await waitUntil(() => !isAlive(pid), 10_000, "the server is stopped");
    },
    60_000,
  );
});
