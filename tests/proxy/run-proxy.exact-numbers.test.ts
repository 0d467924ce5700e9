/**
 * An upstream answer's integers beyond ±2^53 are recorded with their digits as written as well as
 * rounded (SPEC §2.5 "all of it is recorded"): the client receives the upstream's bytes, and a client
 * whose parser keeps every digit (Python's `json`) shows the model `40000000000000000123` where
 * `JSON.parse` reads `40000000000000000000`. Through the REAL `bouncer run` (`src/cli.ts`), the SDK's
 * real `Client` over real stdio, and the framing fixture's `ledger` tool.
 */

import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUN,
  bouncerCommand,
  type Connected,
  connect,
  deadline,
  FRAMING_UPSTREAM,
} from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;
/** `echo` sends its arguments somewhere: every argument is a destination (no sink is declared). */
const POLICY = "echo:\n  exfiltrating: true\n";

const open: Connected[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const connected of open.splice(0)) await connected.client.close().catch(() => {});
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}, E2E_TIMEOUT);

/** Starts `bouncer run` over the framing fixture with the echo policy (no elicitation: asks deny). */
async function start(): Promise<Connected> {
  const work = mkdtempSync(join(tmpdir(), "bouncer-exact-"));
  dirs.push(work);
  const policy = join(work, "bouncer.yaml");
  writeFileSync(policy, POLICY);
  const runArgs = ["--upstream-name", "fx", "--policy", policy, "--", BUN, FRAMING_UPSTREAM];
  const { command, args } = bouncerCommand("cli", runArgs);
  const connected = await connect(command, { args, env: { BOUNCER_HOME: join(work, "home") } });
  open.push(connected);
  return connected;
}

describe("integers beyond ±2^53 in an upstream answer (SPEC §2.5)", () => {
  test.each([
    ["as written (a client that keeps every digit)", "40000000000000000123"],
    ["as JSON.parse rounds it (a JavaScript client)", "40000000000000000000"],
  ])(
    "a reference number nested in structuredContent is free text %s: a send to it is denied",
    async (_reading, number) => {
      const { client } = await start();
      await deadline(client.callTool({ name: "ledger", arguments: {} }), 30_000, "the ledger tool");
      const sent = (await deadline(
        client.callTool({ name: "echo", arguments: { account: number } }),
        30_000,
        "the echo call",
      )) as { isError?: boolean; content: { text: string }[] };
      expect(sent.isError).toBe(true);
      const text = sent.content[0]?.text ?? "";
      expect(text).toContain("[bouncer blocked]");
      expect(text).toContain("occurs in free text");
    },
    E2E_TIMEOUT,
  );
});
