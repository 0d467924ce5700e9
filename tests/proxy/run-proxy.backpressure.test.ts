/**
 * The real `bouncer run` process in front of an upstream that stops reading its stdin (SPEC §3.3):
 * the client's input is read on, so the end of it is seen and the session ends, and past the
 * backlog limit new requests are refused instead of held. Deadlines only guard against hangs.
 */

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  BUN,
  bouncerCommand,
  deadline,
  initializeRequest,
  type LineSession,
  ROOT,
  startLines,
  tempHome,
} from "./support/harness.ts";

const LIFECYCLE_UPSTREAM = join(ROOT, "tests/fixtures/servers/lifecycle-upstream.ts");

describe("bouncer run in front of an upstream that stops reading", () => {
  test("bouncer run sees the end of the client's input after the client filled the pipe, refuses what is past the backlog limit, and exits 0", async () => {
    const { command, args } = bouncerCommand("pass", [
      "--upstream-name",
      "stuck",
      "--",
      BUN,
      LIFECYCLE_UPSTREAM,
      "--stuck",
    ]);
    const session = startLines(command, args, { BOUNCER_HOME: tempHome() });
    try {
      await floodThenEnd(session);
    } finally {
      // A hung Bouncer still stops its upstream on SIGTERM (a SIGKILL would leave it behind).
      if (session.child.exitCode === null) session.child.kill("SIGTERM");
    }
  }, 90_000);
});

/**
 * Sends more than the pipes and the backlog hold to a Bouncer whose upstream does not read, ends
 * its input, and checks that it exits having refused what was past the limit.
 * @param session - The running Bouncer.
 */
async function floodThenEnd(session: LineSession): Promise<void> {
  session.send(initializeRequest(0));
  await session.next((m) => m.id === 0, "initialize answered");
  // 20 MiB of pings the upstream never reads: more than its pipe and the 16 MiB backlog hold.
  const pad = "p".repeat(64 * 1024);
  for (let id = 1; id <= 320; id++) session.send({ jsonrpc: "2.0", id, method: "ping", params: { pad } });
  session.child.stdin?.end();
  expect((await deadline(session.exited, 60_000, "bouncer exits after its input ended")).code).toBe(0);
  const refused = session.lines.filter((line) => line.includes("is not reading its input"));
  expect(refused.length).toBeGreaterThan(0);
  expect(JSON.parse(refused[0] ?? "{}")).toMatchObject({ error: { code: -32000 } });
  expect(session.stderr()).toContain("new requests are refused until it reads");
}
