import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isProcessTreeAlive, strayDescendants } from "../../src/platform/kill-tree.ts";
import { spawnUpstream } from "../../src/platform/spawn-upstream.ts";
import { stopUpstream } from "../../src/platform/stop-upstream.ts";
import { isAlive as alive } from "../proxy/support/harness.ts";

/** Hang guard per test (bunfig has no effect on per-test timeouts here). */
const E2E_TIMEOUT = 120_000;

const STUBBORN = resolve(import.meta.dir, "../fixtures/servers/stubborn-tree.sh");

async function until(condition: () => boolean, what: string): Promise<void> {
  const end = performance.now() + 15_000;
  while (!condition()) {
    if (performance.now() > end) throw new Error(`Hang guard: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("stopUpstream", () => {
  test.skipIf(process.platform !== "linux")(
    "stopUpstream() stops a grandchild that called setsid (strayDescendants() finds it, not the group's members), though the upstream exits first",
    async () => {
      const pidFile = join(mkdtempSync(join(tmpdir(), "bouncer-setsid-")), "pids");
      const script = resolve(import.meta.dir, "../fixtures/servers/setsid-tree.sh");
      const upstream = spawnUpstream(
        { name: "tree", command: script, args: [pidFile], cwd: tmpdir() },
        { writeStderr: () => {} },
      );
      await until(() => existsSync(pidFile), "the fixture wrote its pids");
      const [shell, grandchild] = readFileSync(pidFile, "utf8").trim().split(" ").map(Number) as [
        number,
        number,
      ];
      try {
        const strays = strayDescendants(upstream.pid).map((stray) => stray.pid);
        expect(strays).toContain(grandchild);
        expect(strays).not.toContain(shell);
        expect(await stopUpstream(upstream, { graceMs: 2000, killAfterMs: 100 })).toBe(true);
        expect([alive(shell), alive(grandchild)]).toEqual([false, false]);
      } finally {
        for (const pid of [shell, grandchild]) if (alive(pid)) process.kill(pid, "SIGKILL");
      }
    },
    E2E_TIMEOUT,
  );

  test(
    "stopUpstream() kills a tree that ignores stdin EOF and traps SIGTERM, grandchild included (F06 c)",
    async () => {
      const pidFile = join(mkdtempSync(join(tmpdir(), "bouncer-tree-")), "pids");
      const upstream = spawnUpstream(
        { name: "tree", command: STUBBORN, args: [pidFile], cwd: tmpdir() },
        { writeStderr: () => {} },
      );
      await until(() => existsSync(pidFile), "the fixture wrote its pids");
      const [shell, grandchild] = readFileSync(pidFile, "utf8").trim().split(" ").map(Number) as [
        number,
        number,
      ];
      expect(alive(grandchild)).toBe(true);
      expect(await stopUpstream(upstream, { graceMs: 100, killAfterMs: 100 })).toBe(true);
      await until(() => !alive(shell) && !alive(grandchild), "the tree is gone");
      expect(isProcessTreeAlive(upstream.pid)).toBe(false);
    },
    E2E_TIMEOUT,
  );

  test(
    "stopUpstream() lets a polite upstream exit on stdin EOF within the grace",
    async () => {
      const upstream = spawnUpstream(
        { name: "cat", command: "cat", args: [], cwd: tmpdir() },
        { writeStderr: () => {} },
      );
      expect(await stopUpstream(upstream, { graceMs: 10_000, killAfterMs: 100 })).toBe(true);
      expect(await upstream.exited).toEqual({ code: 0, signal: null });
    },
    E2E_TIMEOUT,
  );

  test(
    "stopUpstream() hurried mid-grace kills a stubborn tree long before its own grace and kill delays end",
    async () => {
      const pidFile = join(mkdtempSync(join(tmpdir(), "bouncer-tree-")), "pids");
      const upstream = spawnUpstream(
        { name: "tree", command: STUBBORN, args: [pidFile], cwd: tmpdir() },
        { writeStderr: () => {} },
      );
      await until(() => existsSync(pidFile), "the fixture wrote its pids");
      const pids = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
      const hurry = new AbortController();
      // Ten minutes of grace and ten of kill delay: only the hurry can end this within the guard.
      const stopped = stopUpstream(upstream, {
        graceMs: 600_000,
        killAfterMs: 600_000,
        hurry: hurry.signal,
        hurryKillMs: 200,
      });
      setTimeout(() => hurry.abort(), 100);
      expect(await Promise.race([stopped, new Promise((r) => setTimeout(() => r("hang"), 20_000))])).toBe(
        true,
      );
      await until(() => pids.every((pid) => !alive(pid)), "the tree is gone");
    },
    E2E_TIMEOUT,
  );
});
