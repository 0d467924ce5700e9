/**
 * A call the client cancels while its approval is being applied (the ask was answered, the re-pin of
 * its changed tool waits for the pin file's lock) is never forwarded, and the audit log says so: its
 * final `decision` record is the `not_forwarded` deny, not an allow (SPEC §3.5: the log tells what
 * happened). Real `bouncer run --record` over real stdio, the SDK's real `Client` answering the ask,
 * in front of the rug-pull fixture.
 */

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { parsePinFile } from "../../src/proxy/pin-file.ts";
import { BUN, bouncerCommand, connect, deadline, ROOT, tempHome, waitUntil } from "./support/harness.ts";
import { replayJson } from "./support/record-mailbox.ts";

const E2E_TIMEOUT = 120_000;
const FIXTURE = join(ROOT, "tests/fixtures/servers/rug-pull-upstream.ts");

/**
 * The audit log's records of one seq.
 * @param path - The audit log.
 * @param seq - The call's seq.
 * @returns Its records, in order.
 */
function recordsOf(path: string, seq: number): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.seq === seq);
}

describe("gateToolCall() through bouncer run (a cancel while an approval is applied)", () => {
  test(
    "gateToolCall() audits a call cancelled while its approval was applied as the not_forwarded deny, not as an allow",
    async () => {
      const home = tempHome();
      const session = join(home, "session.jsonl");
      const policy = join(home, "bouncer.yaml");
      writeFileSync(policy, "get_forecast:\n  max_calls: 10\n");
      const { command, args } = bouncerCommand("cli", [
        ...["--upstream-name", "rug", "--policy", policy, "--record", session, "--human-min-ms", "0"],
        ...["--", BUN, FIXTURE],
      ]);
      let changes = 0;
      const connected = await connect(command, {
        args,
        env: { BOUNCER_HOME: home },
        capabilities: { elicitation: {} },
        setup: (client) => {
          client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
            changes++;
          });
          client.setRequestHandler(ElicitRequestSchema, () => ({
            action: "accept",
            content: { remember: true },
          }));
        },
      });
      const { client } = connected;
      const audit = join(home, "audit.jsonl");
      try {
        await client.listTools();
        await client.callTool({ name: "pull_rug", arguments: {} });
        await waitUntil(() => changes >= 1, 20_000, "list_changed after the rug pull");
        const [file] = readdirSync(join(home, "pins")).filter((name) => name.endsWith(".json"));
        const pins = join(home, "pins", file ?? "");
        await waitUntil(
          () => parsePinFile(readFileSync(pins, "utf8"), pins).pending.length > 0,
          20_000,
          "the changed definition stored as pending",
        );
        // Held by "another writer": the approval's re-pin waits for it (SPEC §2.2 lock file).
        const lock = `${pins}.lock`;
        writeFileSync(lock, "held by the test", { flag: "wx" });
        const controller = new AbortController();
        const call = client
          .callTool({ name: "get_forecast", arguments: { city: "Oslo" } }, undefined, {
            signal: controller.signal,
          })
          .then(
            () => "answered",
            () => "cancelled",
          );
        await waitUntil(
          () => recordsOf(audit, 2).some((record) => record.outcome === "approved"),
          20_000,
          "the approval audited",
        );
        controller.abort();
        // Client lines are read in order: once the ping is answered, the cancel has been read.
        await deadline(client.ping(), 20_000, "ping");
        rmSync(lock);
        expect(await deadline(call, 20_000, "the cancelled call")).toBe("cancelled");
        await waitUntil(
          () => recordsOf(audit, 2).filter((record) => record.event === "decision").length === 2,
          20_000,
          "the final decision audited",
        );
      } finally {
        await client.close();
      }
      const records = recordsOf(audit, 2).map((record) => [record.event, record.verdict ?? record.outcome]);
      expect(records).toEqual([
        ["decision", "ask"],
        ["outcome", "approved"],
        ["decision", "deny"],
      ]);
      expect(recordsOf(audit, 2)[2]?.reason).toBe(
        "The client cancelled the call while the call was being decided: it was not forwarded",
      );
      const calls = readFileSync(session, "utf8")
        .split("\n")
        .filter((line) => line.includes('"event":"call"'))
        .map((line) => JSON.parse(line) as { tool: string; live_blocked?: string; result?: unknown });
      expect(calls.map((c) => [c.tool, c.live_blocked, c.result === undefined])).toEqual([
        ["pull_rug", undefined, false],
        ["get_forecast", "not_forwarded", true],
      ]);
      const replay = replayJson(session, policy, { BOUNCER_HOME: home });
      expect(replay.rows.map((row) => [row.tool, row.outcome])).toEqual([
        ["pull_rug", "forwarded"],
        ["get_forecast", "blocked"],
      ]);
    },
    E2E_TIMEOUT,
  );
});
