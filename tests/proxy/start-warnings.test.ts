import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bouncerCommand, type Connected, connect, FS_SERVER, ROOT, tempHome } from "./support/harness.ts";

const clients: Connected[] = [];

afterEach(async () => {
  for (const connected of clients.splice(0)) await connected.client.close();
});

/** Starts `bouncer run` with one policy text in front of an upstream and lists its tools. */
async function start(name: string, policyText: string, upstream: readonly string[]): Promise<Connected> {
  const dir = mkdtempSync(join(tmpdir(), "bouncer-start-warnings-"));
  const policy = join(dir, "p.yaml");
  writeFileSync(policy, policyText);
  const flags = ["--upstream-name", name, "--policy", policy, "--", ...upstream];
  const { command, args } = bouncerCommand("cli", flags);
  const connected = await connect(command, { args, env: { BOUNCER_HOME: tempHome() } });
  clients.push(connected);
  await connected.client.listTools();
  return connected;
}

describe("bouncer run's warnings at start", () => {
  test("bouncer run warns at start that allowed_path_prefixes: [] overrides the filesystem pack's directories", async () => {
    const connected = await start("files", "write_file: { allowed_path_prefixes: [] }\n", [FS_SERVER, ROOT]);
    expect(connected.stderr()).toContain(`Warning: write_file: allowed_path_prefixes: [] (user:`);
    expect(connected.stderr()).toContain(
      `confines nothing: it overrides the pack's allowed_path_prefixes [${ROOT}] (pack:filesystem)`,
    );
  }, 60_000);
});
