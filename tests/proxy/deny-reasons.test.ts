import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, bouncerCommand, type Connected, connect, ROOT, tempHome } from "./support/harness.ts";

const ECHO = join(ROOT, "tests/fixtures/servers/echo.ts");

const clients: Connected[] = [];

afterEach(async () => {
  for (const connected of clients.splice(0)) await connected.client.close();
});

/** `bouncer run` over real stdio in front of the echo fixture, with one policy text. */
async function start(policyText: string): Promise<Connected> {
  const dir = mkdtempSync(join(tmpdir(), "bouncer-deny-reasons-"));
  const policy = join(dir, "p.yaml");
  writeFileSync(policy, policyText);
  const flags = ["--upstream-name", "echo", "--policy", policy, "--", BUN, ECHO];
  const { command, args } = bouncerCommand("cli", flags);
  const connected = await connect(command, { args, env: { BOUNCER_HOME: tempHome() } });
  clients.push(connected);
  await connected.client.listTools();
  return connected;
}

function text(result: Awaited<ReturnType<Connected["client"]["callTool"]>>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((block) => block.text ?? "").join("\n");
}

describe("bouncer run's arg_patterns denies (SPEC §2.4)", () => {
  test("bouncer run names the pattern as written and refuses null, over real stdio", async () => {
    const connected = await start('echo: { arg_patterns: { text: "a\\\\.b" } }\n');
    const mismatch = await connected.client.callTool({ name: "echo", arguments: { text: "axb" } });
    expect(mismatch.isError).toBe(true);
    expect(text(mismatch)).toContain('Argument "text" = "axb" does not match arg_patterns "a\\.b"');
    const nullText = await connected.client.callTool({ name: "echo", arguments: { text: null } });
    expect(nullText.isError).toBe(true);
    expect(text(nullText)).toContain('Argument "text" holds null, which arg_patterns "a\\.b" cannot match');
    const allowed = await connected.client.callTool({ name: "echo", arguments: { text: "a.b" } });
    expect(allowed.isError).not.toBe(true);
  }, 60_000);
});
