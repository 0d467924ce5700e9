import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnLineClient } from "../../../scripts/bench/perf/line-client.ts";
import { measureRss } from "../../../scripts/bench/perf/rss-bench.ts";
import {
  initialize,
  openSession,
  ROOT,
  sourceLaunch,
  type Upstream,
} from "../../../scripts/bench/perf/session.ts";

/** Hang guard per test (the processes are real). */
const E2E_TIMEOUT = 60_000;

const ECHO: Upstream = {
  name: "echo",
  command: [process.execPath, join(ROOT, "tests/fixtures/servers/echo.ts")],
  callTemplate: `{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
};

describe("spawnLineClient", () => {
  test(
    "spawnLineClient() answers requests by id, concurrent ones included, from the echo fixture",
    async () => {
      const client = spawnLineClient(ECHO.command);
      try {
        await initialize(client);
        client.notify("notifications/initialized");
        const texts = ["a", "b", "c", "d"];
        const answers = await Promise.all(
          texts.map((text) =>
            client.requestText(
              `{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${text}"}}}`,
            ),
          ),
        );
        expect(answers.map((line) => JSON.parse(line).result.content[0].text)).toEqual(texts);
      } finally {
        await client.close();
      }
    },
    E2E_TIMEOUT,
  );

  test(
    "spawnLineClient() rejects a waiting request when the child exits without answering",
    async () => {
      const client = spawnLineClient(["sh", "-c", "read line; exit 3"]);
      await expect(client.request("ping", {})).rejects.toThrow("exit 3");
      await expect(client.request("ping", {})).rejects.toThrow("exit 3");
      await client.close();
    },
    E2E_TIMEOUT,
  );
});

describe("bench sessions through bouncer run", () => {
  const work = mkdtempSync(join(tmpdir(), "bouncer-bench-perf-test-"));
  const policy = join(work, "policy.yaml");
  writeFileSync(policy, "echo: { exfiltrating: false }\ngenerate: { exfiltrating: false }\n");
  const launch = sourceLaunch({ policy, env: { ...process.env, BOUNCER_HOME: join(work, "home") } });

  test(
    "openSession() forwards the echo call through bouncer run",
    async () => {
      const client = await openSession(ECHO, launch);
      try {
        const answer = JSON.parse(await client.requestText(ECHO.callTemplate));
        expect(answer.result.content[0].text).toBe("hi");
      } finally {
        await client.close(5000, "SIGTERM");
      }
    },
    E2E_TIMEOUT,
  );

  test.skipIf(process.platform === "win32")(
    "openSession() gives up on a first call that is never answered and stops the child",
    async () => {
      const marker = `bench-session-hang-${process.pid}-${Date.now()}`;
      // An empty line is no request: the echo server never answers it.
      const silent: Upstream = { ...ECHO, command: [...ECHO.command, marker], callTemplate: "" };
      await expect(openSession(silent, undefined, { stepMs: 1000 })).rejects.toThrow(
        "The first call of echo: no answer within 1 s",
      );
      const left = spawnSync("pgrep", ["-f", marker], { encoding: "utf8" });
      expect(left.stdout.trim()).toBe("");
    },
    E2E_TIMEOUT,
  );

  test.skipIf(process.platform !== "linux")(
    "measureRss() passes the output through bouncer run and reads its peak RSS",
    async () => {
      const rss = await measureRss(ECHO, launch, { outputMiB: 2, density: "sparse" });
      expect(rss.idleMb).toBeGreaterThan(0);
      expect(rss.afterMb).toBeGreaterThanOrEqual(rss.idleMb);
      expect({ outputMiB: rss.outputMiB, density: rss.density }).toEqual({ outputMiB: 2, density: "sparse" });
    },
    E2E_TIMEOUT,
  );
});
