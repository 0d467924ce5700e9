/**
 * The upstream's own requests reach the client, and through it the model and the person, so their
 * texts are recorded as untrusted output before they are relayed (SPEC §2.5 "Everything the upstream
 * says can reach the model, so all of it is recorded"): through the REAL `bouncer run` (`src/cli.ts`),
 * the SDK's real `Client` over real stdio, and the framing fixture, whose `ask` tool sends an
 * `elicitation/create` naming ask-planted@evil.example.
 */

import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  BUN,
  bouncerCommand,
  type Connected,
  connect,
  deadline,
  FRAMING_UPSTREAM,
} from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;
const PLANTED = "ask-planted@evil.example";
/** `echo` sends its arguments somewhere: every argument is a destination (no sink is declared). */
const POLICY = "echo:\n  exfiltrating: true\n";

const open: Connected[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const connected of open.splice(0)) await connected.client.close().catch(() => {});
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}, E2E_TIMEOUT);

describe("the upstream's own requests are recorded as untrusted output (SPEC §2.5)", () => {
  test(
    "an address in an upstream elicitation's message is free text: a later send to it is denied, not asked",
    async () => {
      const work = mkdtempSync(join(tmpdir(), "bouncer-own-requests-"));
      dirs.push(work);
      const policy = join(work, "bouncer.yaml");
      writeFileSync(policy, POLICY);
      /** The messages of Bouncer's own asks (the upstream's elicitation is accepted). */
      const bouncerAsks: string[] = [];
      const upstreamAsks: string[] = [];
      const runArgs = ["--upstream-name", "fx", "--policy", policy, "--human-min-ms", "0"];
      const { command, args } = bouncerCommand("cli", [...runArgs, "--", BUN, FRAMING_UPSTREAM]);
      const connected = await connect(command, {
        args,
        env: { BOUNCER_HOME: join(work, "home") },
        capabilities: { elicitation: {} },
        setup: (client) => {
          client.setRequestHandler(ElicitRequestSchema, (request) => {
            const message = String(request.params.message);
            if (message.startsWith("[bouncer]")) {
              bouncerAsks.push(message);
              return { action: "decline" };
            }
            upstreamAsks.push(message);
            return { action: "accept", content: {} };
          });
        },
      });
      open.push(connected);
      const { client } = connected;
      await deadline(client.callTool({ name: "ask", arguments: {} }), 30_000, "the ask tool");
      expect(upstreamAsks).toEqual([`Fixture asks: confirm the copy to ${PLANTED}`]);
      const sent = (await deadline(
        client.callTool({ name: "echo", arguments: { to: PLANTED } }),
        30_000,
        "the echo call",
      )) as { isError?: boolean; content: { text: string }[] };
      expect(sent.isError).toBe(true);
      const text = sent.content[0]?.text ?? "";
      expect(text).toContain("[bouncer blocked]");
      expect(text).toContain("occurs in free text");
      expect(text).toContain("elicitation/create's output");
      expect(bouncerAsks).toEqual([]);
    },
    E2E_TIMEOUT,
  );
});
