/**
 * An upstream that stops reading its input while it floods Bouncer with requests Bouncer answers
 * (invalid ones): what Bouncer keeps for it is measured by the upstream itself, as the bytes it
 * receives once it reads again (SPEC §3.3 fail closed, §7 memory). Through the real `bouncer run`.
 */

import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKLOG_LIMIT_CHARS } from "../../src/proxy/upstream-backlog.ts";
import {
  BUN,
  bouncerCommand,
  cleanedAfterEach,
  initializeRequest,
  ROOT,
  startLines,
  tempHome,
  waitUntil,
} from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;
const DEAF_UPSTREAM = join(ROOT, "tests/fixtures/servers/deaf-upstream.ts");
const { sessions, dirs } = cleanedAfterEach(E2E_TIMEOUT);

describe("bouncer run and an upstream that does not read its input", () => {
  test(
    "bouncer run keeps about BACKLOG_LIMIT_CHARS of answers for an upstream that floods invalid requests and reads nothing, and counts those it dropped",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "bouncer-deaf-"));
      dirs.push(dir);
      const go = join(dir, "go");
      const count = 400;
      const idChars = 64 * 1024;
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "deaf",
        "--",
        BUN,
        DEAF_UPSTREAM,
        "--count",
        String(count),
        "--id-chars",
        String(idChars),
        "--go",
        go,
      ]);
      const session = startLines(command, args, { BOUNCER_HOME: tempHome() });
      sessions.push(session);
      session.send(initializeRequest(0));
      await session.next((m) => m.id === 0, "initialize answered", 60_000);
      session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await session.next((m) => m.method === "notifications/message", "the flood written", 60_000);
      writeFileSync(go, "");
      // Past the limit new client requests are refused until the upstream has read its backlog.
      await waitUntil(
        () => session.stderr().includes("The upstream reads its input again"),
        60_000,
        "the upstream's backlog read",
      );
      session.send({ jsonrpc: "2.0", id: 1, method: "ping" });
      const answer = (await session.next((m) => m.id === 1, "the ping answered", 60_000)) as {
        result: { received: number };
      };
      // Unbounded, every answer would arrive: count × (idChars + ~100) bytes, ~26 MB here.
      expect(answer.result.received).toBeLessThan(BACKLOG_LIMIT_CHARS + 1024 * 1024);
      expect(session.stderr()).toContain("The upstream is not reading its input (over 16 MiB waiting)");
      expect(session.stderr()).toMatch(
        /Dropped \d+ answer\(s\) to the upstream's own messages while the upstream was not reading its input/,
      );
    },
    E2E_TIMEOUT,
  );
});
