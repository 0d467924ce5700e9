/**
 * Concurrent calls through `bouncer run --record` are written as they complete, not in the order
 * they were decided; `bouncer replay` decides them in their recorded `seq` order, so budgets and seqs
 * come out as the live session's audit log has them (SPEC §2.3, §3.6, §5.9). The real filesystem
 * server reads a FIFO, so the first call's answer waits until the test writes to it.
 */

import { describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinPacks } from "../../src/platform/packs.ts";
import { resolvePathSteps } from "../../src/platform/path-walk.ts";
import { parsePolicyFiles } from "../../src/policy/index.ts";
import { Gate } from "../../src/proxy/gate.ts";
import { replaySession } from "../../src/proxy/replay.ts";
import { parseSession } from "../../src/proxy/replay-session.ts";
import {
  bouncerCommand,
  FS_SERVER,
  initializeRequest,
  startLines,
  tempHome,
  waitUntil,
} from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;
const POLICY = "read_text_file:\n  max_calls: 1\n";

/**
 * The `decision` records of an audit log as [seq, path argument, verdict].
 * @param file - The audit log.
 * @returns The records in log order.
 */
function decisions(file: string): unknown[][] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map(
      (line) =>
        JSON.parse(line) as { event: string; seq?: number; args?: { path?: string }; verdict?: string },
    )
    .filter((record) => record.event === "decision")
    .map((record) => [record.seq, record.args?.path, record.verdict]);
}

describe("bouncer run --record then bouncer replay (concurrent calls)", () => {
  test.if(process.platform !== "win32")(
    "bouncer replay decides calls in their live order when the first decided was the last to complete",
    async () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-rec-")));
      const fifo = join(dir, "slow.txt");
      if (spawnSync("mkfifo", [fifo]).status !== 0) throw new Error("mkfifo failed");
      writeFileSync(join(dir, "notes.txt"), "hello\n");
      const home = tempHome();
      const policy = join(home, "policy.yaml");
      writeFileSync(policy, POLICY);
      const session = join(home, "session.jsonl");
      const audit = join(home, "audit.jsonl");
      const { command, args } = bouncerCommand("cli", [
        ...["--upstream-name", "fs", "--policy", policy, "--record", session],
        ...["--", FS_SERVER, dir],
      ]);
      const live = startLines(command, args, { BOUNCER_HOME: home });
      live.send(initializeRequest(0));
      await live.next((m) => m.id === 0, "initialize answered");
      live.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const read = (id: number, path: string): unknown => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "read_text_file", arguments: { path } },
      });
      // Call 1 takes the one slot and is forwarded; the server's read waits on the FIFO.
      live.send(read(1, fifo));
      await waitUntil(() => decisions(audit).length === 1, 20_000, "call 1 decided");
      // Call 2 is denied by the budget and answered at once: it is written first.
      live.send(read(2, join(dir, "notes.txt")));
      const second = await live.next((m) => m.id === 2, "call 2 answered");
      expect(JSON.stringify(second)).toContain("[bouncer blocked]");
      const writer = spawn("sh", ["-c", 'printf "slow\\n" > "$1"', "sh", fifo]);
      const written = new Promise((resolve) => writer.on("exit", resolve));
      const first = await live.next((m) => m.id === 1, "call 1 answered");
      await written;
      expect(JSON.stringify(first)).toContain("slow");
      live.child.stdin?.end();
      await live.exited;
      const recorded = readFileSync(session, "utf8")
        .split("\n")
        .filter((line) => line.includes('"event":"call"'))
        .map((line) => (JSON.parse(line) as { seq?: number }).seq);
      expect(recorded).toEqual([2, 1]);

      // Replayed as `bouncer replay` does (its gate and policy), keeping each row's line to name the call.
      const events = parseSession(readFileSync(session, "utf8"));
      const gate = new Gate(parsePolicyFiles([{ text: POLICY, fileName: policy }], builtinPacks()), {
        home,
        cwd: dir,
      });
      const { rows } = await replaySession(events, gate, { resolvePath: resolvePathSteps });
      const pathOf = (line: number): unknown => {
        const event = events.find((candidate) => candidate.line === line);
        return event?.event === "call" ? event.arguments.path : undefined;
      };
      const replayed = rows.map((row) => [row.seq, pathOf(row.line), row.verdict]);
      expect(replayed).toEqual(decisions(audit));
      expect(replayed).toEqual([
        [1, fifo, "allow"],
        [2, join(dir, "notes.txt"), "deny"],
      ]);
    },
    E2E_TIMEOUT,
  );
});
