import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUN,
  bouncerCommand,
  type Connected,
  connect,
  FS_SERVER,
  ROOT,
  tempHome,
  waitUntil,
} from "./support/harness.ts";

const ECHO = join(ROOT, "tests/fixtures/servers/echo.ts");

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

  test("bouncer run warns at start that a user's write_params replace the filesystem pack's path", async () => {
    const connected = await start("files", "write_file: { write_params: [file_path] }\n", [FS_SERVER, ROOT]);
    expect(connected.stderr()).toContain(`Warning: write_file: write_params [file_path] (user:`);
    expect(connected.stderr()).toContain(
      `overrides the pack's write_params [path] (pack:filesystem): merged key by key, it replaces the pack's list, so "path" is no longer checked against allowed_path_prefixes`,
    );
  }, 60_000);

  test("bouncer run warns at start of a servers.<name> section that differs from the upstream name in case only", async () => {
    const connected = await start("github", "servers:\n  GitHub:\n    echo: { action: deny }\n", [BUN, ECHO]);
    expect(connected.stderr()).toContain(
      'Warning: no servers section is named "github" (the --upstream-name), but servers."GitHub" differs from it in case only',
    );
  }, 60_000);

  test("bouncer run says nothing of case when a servers.<name> section matches the upstream name exactly", async () => {
    const text = "servers:\n  GitHub: { echo: { action: deny } }\n  github: { echo: { action: ask } }\n";
    const connected = await start("github", text, [BUN, ECHO]);
    expect(connected.stderr()).not.toContain("differs from it in case only");
    expect(connected.stderr()).not.toBe("");
  }, 60_000);

  test("bouncer run warns once the tools are listed of a tool entry that matches no tool but in case", async () => {
    const connected = await start("echo-srv", "Echo: { action: deny }\n", [BUN, ECHO]);
    const line =
      'names no tool of server "echo-srv", but "echo" differs from it in case, spacing or Unicode normalization only: tool names are matched exactly';
    await waitUntil(() => connected.stderr().includes(line), 20_000, "the unmatched entry warning");
    const result = await connected.client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.isError).not.toBe(true);
    expect(connected.stderr()).toContain('Warning: tool entry "Echo" (user:');
    expect(connected.stderr().split(line).length).toBe(2);
  }, 60_000);

  test("bouncer run warns once the tools are listed of write_params naming no argument of the pinned schema", async () => {
    const text = `write_file: { write_params: [file_path], allowed_path_prefixes: [${JSON.stringify(ROOT)}] }\n`;
    const connected = await start("files", text, [FS_SERVER, ROOT]);
    const line =
      'names no argument of its input schema (it lists "path", "content"), so no path is confined through it';
    await waitUntil(() => connected.stderr().includes(line), 20_000, "the schema argument warning");
    expect(connected.stderr()).toContain('Warning: write_file: write_params "file_path" (user:');
  }, 60_000);
});
