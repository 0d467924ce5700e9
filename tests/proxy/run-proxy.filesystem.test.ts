/**
 * `bouncer run` in front of the real `@modelcontextprotocol/server-filesystem`, driven by the SDK's
 * real Client over real stdio, compared with a direct connection (SPEC §3.1, issue 3 "Must show").
 * `cli` is the real `bun src/cli.ts run`; `pass` is the same `runProxy` with pass-through hooks
 * (tool calls forwarded while the gate is not wired).
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bouncerCommand,
  type Connected,
  connect,
  type Entry,
  FS_SERVER,
  tempHome,
} from "./support/harness.ts";

/** Hang guard per test (bunfig has no effect on per-test timeouts here). */
const E2E_TIMEOUT = 120_000;

const dir = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-fs-")));
writeFileSync(join(dir, "notes.txt"), "first line\nsecond line — ünïcode ✓\n");
const home = tempHome();
const clients: Connected[] = [];

async function through(entry: Entry): Promise<Connected> {
  const { command, args } = bouncerCommand(entry, ["--upstream-name", "fs", "--", FS_SERVER, dir]);
  const connected = await connect(command, { args, env: { BOUNCER_HOME: home } });
  clients.push(connected);
  return connected;
}

let direct: Connected;
beforeAll(async () => {
  direct = await connect(FS_SERVER, { args: [dir] });
  clients.push(direct);
}, E2E_TIMEOUT);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.client.close()));
}, E2E_TIMEOUT);

describe("bouncer run with the real filesystem server", () => {
  test.each(["cli", "pass"] as const)(
    "bouncer run (%s) lists exactly the tools of a direct connection",
    async (entry) => {
      const proxied = await through(entry);
      expect(await proxied.client.listTools()).toEqual(await direct.client.listTools());
      expect(proxied.client.getServerVersion()).toEqual(direct.client.getServerVersion());
      expect(proxied.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run (pass) returns the same read result as a direct connection",
    async () => {
      const proxied = await through("pass");
      const call = { name: "read_text_file", arguments: { path: join(dir, "notes.txt") } };
      const viaBouncer = await proxied.client.callTool(call);
      expect(viaBouncer).toEqual(await direct.client.callTool(call));
      expect(JSON.stringify(viaBouncer)).toContain("ünïcode ✓");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run (pass) relays an upstream tool error unchanged",
    async () => {
      const proxied = await through("pass");
      const call = { name: "read_text_file", arguments: { path: join(dir, "missing.txt") } };
      expect(await proxied.client.callTool(call)).toEqual(await direct.client.callTool(call));
    },
    E2E_TIMEOUT,
  );

  // The gate is wired: the filesystem pack confines writes to the folders on the upstream's command
  // line (SPEC §4.3), so a write inside is forwarded; the gated cases live in gating-filesystem.test.ts.
  test(
    "bouncer run (cli) forwards a write inside the server's folder under the filesystem pack",
    async () => {
      const proxied = await through("cli");
      const target = join(dir, "written-through-bouncer.txt");
      const result = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: target, content: "x" },
      });
      expect(result.isError).not.toBe(true);
      expect(existsSync(target)).toBe(true);
    },
    E2E_TIMEOUT,
  );
});
