/**
 * The real `bouncer run` process whose stderr is a FIFO read slowly, in front of an upstream that
 * floods its own stderr (SPEC §3.3: drained continuously, never buffered without bound): the
 * upstream's stderr is read only as fast as Bouncer's is, so Bouncer's memory stays flat, and all
 * of it arrives. Memory is measured, never time.
 */

import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync } from "node:fs";
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

const LIFECYCLE_UPSTREAM = join(ROOT, "tests/fixtures/servers/lifecycle-upstream.ts");
const MIB = 1024 * 1024;

/**
 * A process's resident memory.
 * @param pid - The process.
 * @returns Its VmRSS in bytes.
 */
function rss(pid: number): number {
  const kib = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kib) * 1024;
}

describe.skipIf(process.platform !== "linux")("bouncer run with a stderr nobody reads", () => {
  test("bouncer run does not buffer a 128 MiB stderr flood of its upstream while its own stderr is read slowly", async () => {
    const fifo = join(mkdtempSync(join(tmpdir(), "bouncer-stderr-")), "stderr");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    // Opened first, without blocking: Bouncer's shell then opens the writing end at once.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const { command, args } = bouncerCommand("pass", [
      "--upstream-name",
      "flood",
      "--",
      BUN,
      LIFECYCLE_UPSTREAM,
    ]);
    const session = startLines("sh", ["-c", 'exec "$0" "$@" 2>"$ERR_FIFO"', command, ...args], {
      BOUNCER_HOME: tempHome(),
      ERR_FIFO: fifo,
    });
    try {
      session.send(initializeRequest(0));
      await session.next((m) => m.id === 0, "initialize answered");
      const pid = session.child.pid ?? 0;
      const baseline = rss(pid);
      session.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "stderr", arguments: { mib: 128 } },
      });
      const answered = session.next((m) => m.id === 1, "the flood's answer", 120_000);
      let done = false;
      void answered.then(() => {
        done = true;
      });
      // A slow reader: at most 64 KiB per turn of the timer.
      const buffer = new Uint8Array(64 * 1024);
      let read = 0;
      let peak = baseline;
      const drain = async (): Promise<void> => {
        // All the upstream wrote is read (prefixed, it is more), and its answer has come.
        while (!done || read < 128 * MIB) {
          try {
            read += readSync(reader, buffer);
          } catch (error) {
            if ((error as { code?: string }).code !== "EAGAIN") throw error;
          }
          peak = Math.max(peak, rss(pid));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      };
      await deadline(Promise.all([drain(), answered]), 120_000, "the flood is read");
      expect(peak - baseline).toBeLessThan(64 * MIB);
    } finally {
      session.child.kill("SIGTERM");
      await deadline(session.exited, 30_000, "bouncer exits");
      closeSync(reader);
    }
  }, 180_000);
});
