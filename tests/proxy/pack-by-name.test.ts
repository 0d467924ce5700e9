import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  BUN,
  bouncerCommand,
  type Connected,
  connect,
  FS_SERVER,
  ROOT,
  tempHome,
} from "./support/harness.ts";

const ECHO = join(ROOT, "tests/fixtures/servers/echo.ts");
const clients: Connected[] = [];

afterEach(async () => {
  for (const connected of clients.splice(0)) await connected.client.close();
});

async function start(name: string, upstream: readonly string[]): Promise<Connected> {
  const { command, args } = bouncerCommand("cli", ["--upstream-name", name, "--", ...upstream]);
  const connected = await connect(command, { args, env: { BOUNCER_HOME: tempHome() } });
  clients.push(connected);
  await connected.client.listTools();
  return connected;
}

describe("bouncer run and packs matched by the upstream name alone", () => {
  test("bouncer run says at start that a pack applies by the upstream name alone, naming pack and server", async () => {
    const connected = await start("files", [BUN, ECHO]);
    expect(connected.stderr()).toContain('Pack "filesystem" applies to "files" by its upstream name alone');
  }, 60_000);

  test("bouncer run says nothing of the kind when the pack matched the command line", async () => {
    const connected = await start("files", [FS_SERVER, ROOT]);
    expect(connected.stderr()).not.toContain("by its upstream name alone");
    expect(connected.stderr()).not.toBe("");
  }, 60_000);
});
