/**
 * `bouncer run` with a policy it cannot use (SPEC §3.2: "never run ungated"): the policy files are
 * validated before the upstream is spawned, so the upstream never starts (nor with a `--record`
 * file that cannot be written); every client request,
 * whatever its method, gets the policy error; notifications are dropped; Bouncer exits 2 — also when
 * the client closes stdin without a request. Driven through the real CLI in front of a fixture
 * upstream that records whether it started and what it received. Deadlines only guard against hangs.
 */

import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUN,
  bouncerCommand,
  deadline,
  initializeRequest,
  ROOT,
  startLines,
  tempHome,
} from "./support/harness.ts";

/** Hang guard per test. */
const E2E_TIMEOUT = 60_000;

const RECORDING_UPSTREAM = join(ROOT, "tests/fixtures/servers/recording-upstream.ts");

/** A world: a home, a directory the upstream records into, and a policy file. */
function world(policy: string | undefined): { home: string; dir: string; policy: string } {
  const dir = mkdtempSync(join(tmpdir(), "bouncer-invalid-policy-"));
  const file = join(dir, "typo.yaml");
  if (policy !== undefined) writeFileSync(file, policy);
  return { home: tempHome(), dir, policy: file };
}

/** Starts `bouncer run --policy FILE [FLAGS]` in front of the recording upstream. */
function start(
  w: { home: string; dir: string; policy: string },
  flags: readonly string[] = [],
): ReturnType<typeof startLines> {
  const { command, args } = bouncerCommand("cli", [
    "--upstream-name",
    "m",
    "--policy",
    w.policy,
    ...flags,
    "--",
    BUN,
    RECORDING_UPSTREAM,
    w.dir,
  ]);
  return startLines(command, args, { BOUNCER_HOME: w.home });
}

/** Requests of every kind, a notification among them, as one write (one chunk on the pipe). */
const BURST = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "send_email", arguments: {} } },
  { jsonrpc: "2.0", id: "two", method: "resources/read", params: { uri: "file:///etc/hosts" } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 3, method: "prompts/get", params: { name: "p" } },
  initializeRequest(4),
]
  .map((message) => `${JSON.stringify(message)}\n`)
  .join("");

describe("bouncer run with an unusable policy", () => {
  test.each([
    ["an unknown key", "send_email:\n  alow: true\n", "POLICY_INVALID", 'unknown key "alow"'],
    ["a missing file", undefined, "POLICY_UNREADABLE", "no such file"],
  ] as const)(
    "bouncer run with %s answers every request with the policy error, starts no upstream and exits 2",
    async (_name, policy, code, detail) => {
      const w = world(policy);
      const session = start(w);
      session.child.stdin?.write(BURST);
      const answers = await Promise.all(
        [1, "two", 3, 4].map((id) => session.next((m) => m.id === id, `the answer to ${id}`)),
      );
      const first = answers[0]?.error as { code: number; message: string; data: { code: string } };
      expect(first.code).toBe(-32001);
      expect(first.message).toContain("typo.yaml");
      expect(first.message).toContain(detail);
      expect(first.data.code).toBe(code);
      for (const answer of answers) {
        expect(answer.result).toBeUndefined();
        expect(answer.error).toEqual(first);
      }
      expect((await deadline(session.exited, 30_000, "bouncer exits")).code).toBe(2);
      expect(session.lines).toHaveLength(4);
      expect(existsSync(join(w.dir, "started"))).toBe(false);
      expect(existsSync(join(w.dir, "received.jsonl"))).toBe(false);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run with an invalid policy exits 2 without starting the upstream when stdin closes first",
    async () => {
      const w = world("send_email:\n  alow: true\n");
      const session = start(w);
      session.child.stdin?.end();
      expect((await deadline(session.exited, 30_000, "bouncer exits")).code).toBe(2);
      expect(session.lines).toEqual([]);
      expect(existsSync(join(w.dir, "started"))).toBe(false);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run with a --record file it cannot write answers every request with the error, starts no upstream and exits 1",
    async () => {
      const w = world("send_email:\n  action: deny\n");
      const session = start(w, ["--record", join(w.policy, "session.jsonl")]);
      session.child.stdin?.write(BURST);
      const answers = await Promise.all(
        [1, "two", 3, 4].map((id) => session.next((m) => m.id === id, `the answer to ${id}`)),
      );
      for (const answer of answers) {
        expect(answer.result).toBeUndefined();
        expect(answer.error).toMatchObject({
          code: -32001,
          message: expect.stringContaining("session.jsonl"),
          data: { code: "RECORD_WRITE_FAILED" },
        });
      }
      expect((await deadline(session.exited, 30_000, "bouncer exits")).code).toBe(1);
      expect(existsSync(join(w.dir, "started"))).toBe(false);
    },
    E2E_TIMEOUT,
  );

  test.each([
    ["--audit-log", "a folder", "it is a folder, not a file (EISDIR)"],
    ["--audit-log", "a FIFO", "it is not a regular file (a FIFO)"],
    ["--record", "a folder", "it is a folder, not a file (EISDIR)"],
    ["--record", "a FIFO", "it is not a regular file (a FIFO)"],
  ] as const)(
    "bouncer run with %s naming %s answers every request with a usage error, starts no upstream and exits 2",
    async (flag, kind, reason) => {
      const w = world("send_email:\n  action: deny\n");
      const path = join(w.dir, "out");
      if (kind === "a folder") mkdirSync(path);
      else expect(spawnSync("mkfifo", [path]).status).toBe(0);
      const session = start(w, [flag, path]);
      session.child.stdin?.write(BURST);
      const answers = await Promise.all(
        [1, "two", 3, 4].map((id) => session.next((m) => m.id === id, `the answer to ${id}`)),
      );
      for (const answer of answers) {
        expect(answer.error).toEqual({
          code: -32001,
          message: `Cannot use ${flag} ${JSON.stringify(path)}: ${reason}`,
          data: { code: "USAGE" },
        });
      }
      expect((await deadline(session.exited, 30_000, "bouncer exits")).code).toBe(2);
      expect(session.stderr()).toContain(`Cannot use ${flag}`);
      expect(existsSync(join(w.dir, "started"))).toBe(false);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run with a valid policy starts the recording upstream and relays resources/read to it",
    async () => {
      const w = world("send_email:\n  action: deny\n");
      const session = start(w);
      session.send({ jsonrpc: "2.0", id: 9, method: "resources/read", params: { uri: "file:///x" } });
      expect((await session.next((m) => m.id === 9, "the resources/read answer")).result).toEqual({});
      session.child.stdin?.end();
      expect((await deadline(session.exited, 30_000, "bouncer exits")).code).toBe(0);
      expect(existsSync(join(w.dir, "started"))).toBe(true);
      expect(readFileSync(join(w.dir, "received.jsonl"), "utf8")).toContain('"resources/read"');
    },
    E2E_TIMEOUT,
  );
});
