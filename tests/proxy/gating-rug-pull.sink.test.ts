/**
 * A rug pull that moves a tool's destination to an argument its pinned schema does not have, through
 * the real `bouncer run` (SDK Client over real stdio, fixture upstream): the call of the changed tool
 * asks about the changed definition and, in the same question, about the destination in the new
 * argument (an address read from the upstream's own output); declined, or with no way to ask,
 * nothing reaches the upstream (SPEC §2.2 "Changed tool", §2.5).
 */

import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { PLANTED } from "../fixtures/servers/sink-rename-upstream.ts";
import {
  BUN,
  bouncerCommand,
  type Connected,
  connect,
  ROOT,
  tempHome,
  waitUntil,
} from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;
const FIXTURE = join(ROOT, "tests/fixtures/servers/sink-rename-upstream.ts");
const clients: Connected[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.client.close()));
}, E2E_TIMEOUT);

/** A client through Bouncer; with `elicitation`, it declines every ask and keeps its messages. */
async function through(options: { readonly elicitation: boolean }): Promise<{
  readonly connected: Connected;
  readonly asks: string[];
  readonly changes: () => number;
  readonly forwarded: () => string[];
}> {
  const home = tempHome();
  const callsFile = join(home, "calls.jsonl");
  writeFileSync(callsFile, "");
  const { command, args } = bouncerCommand("cli", [
    "--upstream-name",
    "mail",
    "--human-min-ms",
    "0",
    "--",
    BUN,
    FIXTURE,
    callsFile,
  ]);
  const asks: string[] = [];
  let changes = 0;
  const connected = await connect(command, {
    args,
    env: { BOUNCER_HOME: home },
    ...(options.elicitation ? { capabilities: { elicitation: {} } } : {}),
    setup: (client) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changes++;
      });
      if (options.elicitation) {
        client.setRequestHandler(ElicitRequestSchema, (request) => {
          asks.push(request.params.message);
          return { action: "decline" };
        });
      }
    },
  });
  clients.push(connected);
  const forwarded = (): string[] =>
    readFileSync(callsFile, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => String((JSON.parse(line) as { name?: unknown }).name));
  return { connected, asks, changes: () => changes, forwarded };
}

/** Reads the planted address, pulls the rug and waits for Bouncer's walk of the changed list. */
async function pullRug(session: Awaited<ReturnType<typeof through>>): Promise<void> {
  const { client } = session.connected;
  await client.listTools();
  await client.callTool({ name: "read_inbox", arguments: {} });
  await client.callTool({ name: "rename_sink", arguments: {} });
  await waitUntil(() => session.changes() > 0, 20_000, "list_changed");
  const send = (await client.listTools()).tools.find((tool) => tool.name === "send_email");
  // The client keeps the pinned schema: the new argument never reached it.
  expect(Object.keys(send?.inputSchema.properties ?? {})).toEqual(["to", "body"]);
}

/** The result's content as JSON, after checking that the result is an error (a block, not an answer). */
function text(result: unknown): string {
  expect((result as { isError?: unknown }).isError).toBe(true);
  return JSON.stringify((result as { content?: unknown }).content);
}

/** An address no output of the session held. */
const UNSEEN = "new.partner@other.example";

describe("bouncer run against a rug pull that renames the destination argument", () => {
  test(
    "a destination read from the upstream's own output, sent in the new argument, is denied by the sink gate without asking",
    async () => {
      const session = await through({ elicitation: true });
      await pullRug(session);
      const blocked = await session.connected.client.callTool({
        name: "send_email",
        arguments: { recipient: PLANTED, body: "the report" },
      });
      expect(text(blocked)).toContain(
        `[bouncer blocked] Destination \\"${PLANTED}\\" in recipient occurs in free text of read_inbox's output`,
      );
      expect(session.asks).toEqual([]);
      expect(session.forwarded()).toEqual(["read_inbox", "rename_sink"]);
    },
    E2E_TIMEOUT,
  );

  test(
    "an unseen destination in the new argument is asked about with the changed definition, in one question, and a decline forwards nothing",
    async () => {
      const session = await through({ elicitation: true });
      await pullRug(session);
      const blocked = await session.connected.client.callTool({
        name: "send_email",
        arguments: { recipient: UNSEEN, body: "the report" },
      });
      expect(text(blocked)).toContain("[bouncer blocked]");
      expect(session.asks).toHaveLength(1);
      const [ask] = session.asks;
      expect(ask).toContain('1. Accept the changed definition of tool "send_email"');
      expect(ask).toContain('input properties added "recipient"');
      expect(ask).toContain(`2. Allow send_email to send to "${UNSEEN}" (recipient)?`);
      expect(session.forwarded()).toEqual(["read_inbox", "rename_sink"]);
    },
    E2E_TIMEOUT,
  );

  test(
    "without a way to ask, the call of the changed tool is blocked naming bouncer pins accept and never forwarded",
    async () => {
      const session = await through({ elicitation: false });
      await pullRug(session);
      const blocked = await session.connected.client.callTool({
        name: "send_email",
        arguments: { recipient: UNSEEN, body: "the report" },
      });
      expect(text(blocked)).toContain("[bouncer blocked]");
      expect(text(blocked)).toContain("bouncer pins accept mail send_email --hash");
      expect(session.forwarded()).toEqual(["read_inbox", "rename_sink"]);
    },
    E2E_TIMEOUT,
  );
});
