/**
 * An approved changed tool that the live proxy did not forward — its re-pin could not be written
 * (`gate_error`), or the client cancelled the call while the approval was being applied
 * (`not_forwarded`) — replays as blocked, not as the forward its recorded approval would give
 * (README "bouncer replay": stricter, never laxer; SPEC §2.2 "Approval re-pins it", §3.6, §5.9).
 * Recorded over real stdio (`bouncer run --record`, driven line by line, in front of the rug-pull
 * fixture), replayed with `bouncer replay --json`.
 */

import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type HeldLock, tryAcquireLock } from "../../src/platform/lock-file.ts";
import { parsePinFile } from "../../src/proxy/pin-file.ts";
import {
  BUN,
  bouncerCommand,
  initializeRequest,
  type LineSession,
  ROOT,
  startLines,
  tempHome,
  waitUntil,
} from "./support/harness.ts";
import { replayJson } from "./support/record-mailbox.ts";

const E2E_TIMEOUT = 120_000;
const FIXTURE = join(ROOT, "tests/fixtures/servers/rug-pull-upstream.ts");

/** A recorded rug pull, stopped where the changed tool is about to be called. */
interface Pulled {
  readonly live: LineSession;
  readonly home: string;
  readonly session: string;
  readonly policy: string;
  /** The pin file's lock path. */
  readonly lock: string;
}

/**
 * Starts `bouncer run --record` in front of the rug-pull fixture, pulls the rug, and waits until the
 * walk's pending definition is written; then takes the pin file's lock with `take` (retried until
 * it succeeds: the walk's own write holds it for a moment).
 * @param take - Creates the lock (a file or a folder); throws while it exists.
 * @returns The session and its files.
 */
async function pullRug(take: (lock: string) => void): Promise<Pulled> {
  const home = tempHome();
  const policy = join(home, "bouncer.yaml");
  const session = join(home, "session.jsonl");
  writeFileSync(policy, "get_forecast:\n  max_calls: 10\n");
  const { command, args } = bouncerCommand("cli", [
    ...["--upstream-name", "rug", "--policy", policy, "--record", session, "--human-min-ms", "0"],
    ...["--", BUN, FIXTURE],
  ]);
  const live = startLines(command, args, { BOUNCER_HOME: home });
  live.send(initializeRequest(0, { elicitation: {} }));
  await live.next((m) => m.id === 0, "initialize answered");
  live.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  live.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  await live.next((m) => m.id === 1, "tools/list answered");
  live.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "pull_rug", arguments: {} } });
  await live.next((m) => m.id === 2, "pull_rug answered");
  const pins = join(home, "pins");
  let lock = "";
  await waitUntil(
    () => {
      const [file] = readdirSync(pins).filter((name) => name.endsWith(".json"));
      if (file === undefined) return false;
      const path = join(pins, file);
      if (parsePinFile(readFileSync(path, "utf8"), path).pending.length === 0) return false;
      lock = `${path}.lock`;
      try {
        take(lock);
        return true;
      } catch {
        return false;
      }
    },
    20_000,
    "the pending definition written",
  );
  return { live, home, session, policy, lock };
}

/**
 * Calls the changed tool (id 3) and approves its question, remembered.
 * @param live - The session.
 */
async function callAndApprove(live: LineSession): Promise<void> {
  const forecast = { name: "get_forecast", arguments: { city: "Oslo" } };
  live.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: forecast });
  const question = await live.next((m) => m.method === "elicitation/create", "the question");
  live.send({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { remember: true } } });
}

/**
 * Ends the session, replays it and returns the rows as [seq, tool, verdict, outcome, live_blocked].
 * @param pulled - The session.
 * @returns The rows.
 */
async function endAndReplay(pulled: Pulled): Promise<unknown[][]> {
  pulled.live.child.stdin?.end();
  await pulled.live.exited;
  const replay = replayJson(pulled.session, pulled.policy, { BOUNCER_HOME: pulled.home });
  expect(replay.stderr).toBe("");
  return replay.rows.map((row) => [
    ...[row.seq, row.tool, row.verdict, row.outcome],
    (row as { live_blocked?: string }).live_blocked,
  ]);
}

describe("bouncer run --record then bouncer replay (an approved changed tool not forwarded)", () => {
  test(
    "bouncer replay blocks an approved changed tool whose re-pin could not be written (gate_error)",
    async () => {
      // A folder old enough to be taken over: the lock cannot be taken (EISDIR), even by root.
      const pulled = await pullRug((lock) => {
        mkdirSync(lock);
        utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      });
      await callAndApprove(pulled.live);
      const blocked = await pulled.live.next((m) => m.id === 3, "get_forecast answered");
      expect(JSON.stringify(blocked.result)).toContain("Cannot keep the approval of tool");
      expect(await endAndReplay(pulled)).toEqual([
        [1, "pull_rug", "allow", "forwarded", undefined],
        [2, "get_forecast", "ask", "blocked", "gate_error"],
      ]);
    },
    E2E_TIMEOUT,
  );

  test.skipIf(process.platform === "win32")(
    "bouncer replay blocks an approved changed tool the client cancelled while its re-pin waited (not_forwarded)",
    async () => {
      // The pin file's lock held by this test process (a live holder on this host), kept fresh until
      // after the cancel: the re-pin waits for it (up to 15 s), never taking it over as stale (by
      // age, after 10 s, or as a gone holder's), however slowly the steps below run.
      let held: HeldLock | undefined;
      const pulled = await pullRug((lock) => {
        held = tryAcquireLock(lock);
        if (held === undefined) throw new Error("the pin file's lock is held");
      });
      const { live, home, session } = pulled;
      const keepFresh = setInterval(() => {
        const now = new Date();
        utimesSync(pulled.lock, now, now);
      }, 1_000);
      try {
        await callAndApprove(live);
        const audit = join(home, "audit.jsonl");
        await waitUntil(
          () => readFileSync(audit, "utf8").includes('"outcome":"approved"'),
          20_000,
          "the approval audited",
        );
        live.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } });
        // Answered after the cancel was read (lines are read in order): only then is the lock freed.
        live.send({ jsonrpc: "2.0", id: 4, method: "ping" });
        await live.next((m) => m.id === 4, "ping answered");
        expect(readFileSync(pulled.lock, "utf8")).toBe(`${held?.token}\n`);
      } finally {
        clearInterval(keepFresh);
        held?.release();
      }
      await waitUntil(
        () => existsSync(session) && readFileSync(session, "utf8").includes('"tool":"get_forecast"'),
        20_000,
        "the cancelled call recorded",
      );
      expect(live.lines.some((line) => (JSON.parse(line) as { id?: unknown }).id === 3)).toBe(false);
      expect(await endAndReplay(pulled)).toEqual([
        [1, "pull_rug", "allow", "forwarded", undefined],
        [2, "get_forecast", "ask", "blocked", "not_forwarded"],
      ]);
    },
    E2E_TIMEOUT,
  );
});
