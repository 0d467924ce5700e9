import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { GroupStdioTransport } from "../../src/init/group-transport.ts";

const ECHO_LINES = "process.stdin.on('data', (d) => process.stdout.write(d));";

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
});
