import { describe, expect, test } from "bun:test";
import { createGatingHooks } from "../../src/proxy/gating-hooks.ts";
import { parseRunArgs } from "../../src/proxy/run-args.ts";
import { memoryRelay, settle } from "./support/memory-relay.ts";

describe("createGatingHooks", () => {
  test("createGatingHooks() fails closed while no gate is wired: a call is blocked and never forwarded", async () => {
    const logs: string[] = [];
    const run = parseRunArgs(["--upstream-name", "mail", "--", "mail-server"]);
    const r = memoryRelay((context) =>
      createGatingHooks(context, {
        run,
        upstream: { name: "mail", command: "mail-server", args: [], cwd: "/tmp" },
        home: "/tmp/bouncer-home",
        log: (message) => void logs.push(message),
      }),
    );
    r.fromClient({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "send_email", arguments: { to: "a@b.example" } },
    });
    await settle();
    expect(r.toUpstream).toEqual([]);
    expect(r.lastClient()).toMatchObject({ id: 1, result: { isError: true } });
    expect(JSON.stringify(r.lastClient())).toContain("[bouncer blocked]");
    expect(logs.join("\n")).toContain("fail closed");
  });
});
