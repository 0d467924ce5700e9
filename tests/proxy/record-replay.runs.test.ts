/**
 * Two `bouncer run` processes of one `--upstream-name` recording into one session file at the same
 * time: each event names its run, and `bouncer replay` counts each run's budget apart, as the two
 * processes did live — not the second run's `server` event as the first run's end (SPEC §2.3, §5.9,
 * §8; README "bouncer replay"). Real stdio, the fixture mailbox, driven line by line.
 */

import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BUN,
  bouncerCommand,
  initializeRequest,
  type LineSession,
  startLines,
  tempHome,
} from "./support/harness.ts";
import { MAILBOX, replayJson } from "./support/record-mailbox.ts";

const E2E_TIMEOUT = 120_000;

describe("bouncer run --record then bouncer replay (two runs of one server at once)", () => {
  test(
    "bouncer replay counts the budget of each of two concurrent runs apart, as live",
    async () => {
      const home = tempHome();
      const policy = join(home, "bouncer.yaml");
      const session = join(home, "session.jsonl");
      writeFileSync(policy, "read_inbox:\n  max_calls: 2\n");
      const env = { BOUNCER_HOME: home, BOUNCER_SESSION: "one-client" };
      const started: LineSession[] = [];
      const start = async (): Promise<LineSession> => {
        const { command, args } = bouncerCommand("cli", [
          ...["--upstream-name", "mail", "--policy", policy, "--record", session],
          ...["--", BUN, MAILBOX],
        ]);
        const live = startLines(command, args, env);
        started.push(live);
        live.send(initializeRequest(0));
        await live.next((m) => m.id === 0, "initialize answered");
        live.send({ jsonrpc: "2.0", method: "notifications/initialized" });
        live.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
        await live.next((m) => m.id === 1, "tools/list answered");
        return live;
      };
      const read = async (live: LineSession, id: number): Promise<string> => {
        live.send({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "read_inbox", arguments: {} },
        });
        const answer = await live.next((m) => m.id === id, `read_inbox ${id}`);
        return JSON.stringify(answer.result).includes("[bouncer blocked]") ? "blocked" : "forwarded";
      };
      try {
        const a = await start();
        const outcomes = [await read(a, 2), await read(a, 3)];
        // B starts while A runs: its server event stands between A's calls in the file.
        const b = await start();
        outcomes.push(await read(a, 4), await read(b, 2));
        expect(outcomes).toEqual(["forwarded", "forwarded", "blocked", "forwarded"]);
      } finally {
        for (const live of started) live.child.stdin?.end();
        await Promise.all(started.map((live) => live.exited));
      }
      const replay = replayJson(session, policy, { BOUNCER_HOME: home });
      expect(replay.stderr).toBe("");
      expect(replay.rows.map((row) => [row.verdict, row.outcome])).toEqual([
        ["allow", "forwarded"],
        ["allow", "forwarded"],
        ["deny", "blocked"],
        ["allow", "forwarded"],
      ]);
      expect(replay.rows[2]?.reason).toContain("used its budget of 2 attempts");
      const runs = readFileSync(session, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => (JSON.parse(line) as { run?: string }).run);
      expect(new Set(runs).size).toBe(2);
      expect(runs.every((run) => typeof run === "string" && /^[0-9a-f]{12}$/.test(run))).toBe(true);
    },
    E2E_TIMEOUT,
  );
});
