/**
 * `bouncer run` when the fast check before the spawn found the policy valid but the `yaml` library's
 * reading after the spawn does not (SPEC §3.2: "never run ungated"): nothing is relayed to the
 * upstream, every client request gets the policy error, the upstream is stopped and Bouncer exits 2.
 * `runProxy` is driven in process with a check before the spawn that vouches for an invalid file,
 * in front of a fixture upstream that records what it received. Deadlines only guard against hangs.
 */

import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { parseRunArgs } from "../../src/proxy/run-args.ts";
import { runProxy } from "../../src/proxy/run-proxy.ts";
import { BUN, deadline, initializeRequest, isAlive, ROOT, tempHome } from "./support/harness.ts";

const RECORDING_UPSTREAM = join(ROOT, "tests/fixtures/servers/recording-upstream.ts");

describe("runProxy() reading the policy again after the spawn", () => {
  test("runProxy() answers every request with the policy error, relays nothing, stops the upstream and exits 2 when the yaml library refuses a file the fast check let through", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-after-spawn-"));
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    let buffered = "";
    stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
        lines.push(JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>);
        buffered = buffered.slice(nl + 1);
      }
    });
    const stderr: string[] = [];
    const run = parseRunArgs([
      "--upstream-name",
      "m",
      "--policy",
      "p.yaml",
      "--",
      BUN,
      RECORDING_UPSTREAM,
      dir,
    ]);
    const exited = runProxy(
      run,
      { stdin, stdout, writeStderr: (text) => void stderr.push(text) },
      {
        env: { ...process.env, BOUNCER_HOME: tempHome() },
        processHandlers: false,
        precheckPolicy: async () => ({
          kind: "valid",
          texts: [{ text: "send_email:\n  alow: true\n", fileName: "p.yaml" }],
        }),
      },
    );
    stdin.write(
      [
        initializeRequest(1),
        { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "file:///x" } },
      ]
        .map((message) => `${JSON.stringify(message)}\n`)
        .join(""),
    );
    const code = await deadline(exited, 30_000, "bouncer run ends");
    expect(code).toBe(2);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line.result).toBeUndefined();
      expect(line.error).toMatchObject({ code: -32001, data: { code: "POLICY_INVALID" } });
      expect(String((line.error as { message: string }).message)).toContain('unknown key "alow"');
    }
    expect(existsSync(join(dir, "received.jsonl"))).toBe(false);
    // The upstream may have been stopped before it got as far as recording its start.
    const started = join(dir, "started");
    // Stopped, it may be a zombie of this test process for a moment: that one is gone too (isAlive).
    if (existsSync(started)) expect(isAlive(Number(readFileSync(started, "utf8")))).toBe(false);
    expect(stderr.join("")).toContain("Invalid policy");
  }, 60_000);
});
