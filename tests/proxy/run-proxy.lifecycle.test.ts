/**
 * Life cycle of the real `bouncer run` process (SPEC §3.3, STYLE #17; field cases F06, F07, F10 in
 * tests/fixtures/field-cases-framing.md): upstream death answered at once, a missing command answered
 * as the initialize error, and no process left behind when the client closes stdin, signals Bouncer,
 * or dies. Deadlines only guard against hangs.
 */

import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  BUN,
  bouncerCommand,
  deadline,
  FRAMING_UPSTREAM,
  initializeRequest,
  isAlive,
  ROOT,
  STUBBORN_TREE,
  startLines,
  tempHome,
  waitUntil,
} from "./support/harness.ts";

/** Hang guard per test (bunfig has no effect on per-test timeouts here). */
const E2E_TIMEOUT = 120_000;

const home = tempHome();

/** Starts `bouncer run` (cli) in front of the stubborn tree and waits until the tree runs. */
async function startTree(): Promise<{ session: ReturnType<typeof startLines>; pids: number[] }> {
  const pidFile = join(mkdtempSync(join(tmpdir(), "bouncer-tree-")), "pids");
  const { command, args } = bouncerCommand("cli", ["--upstream-name", "tree", "--", STUBBORN_TREE, pidFile]);
  const session = startLines(command, args, { BOUNCER_HOME: home });
  await waitUntil(() => existsSync(pidFile), 20_000, "the upstream tree started");
  const pids = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
  expect(pids.every(isAlive)).toBe(true);
  return { session, pids };
}

describe("bouncer run life cycle", () => {
  test(
    "bouncer run answers every call a client sent in the same write as the end of its input (end-to-end smoke test: timing decides whether the batch path is taken)",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "bouncer-eof-burst-"));
      const policy = join(dir, "policy.yaml");
      writeFileSync(policy, "echo: { exfiltrating: false }\n");
      const echo = join(ROOT, "tests/fixtures/servers/echo.ts");
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "echo",
        "--policy",
        policy,
        "--",
        BUN,
        echo,
      ]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      session.send(initializeRequest(0));
      await session.next((m) => m.id === 0, "initialize");
      session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      session.send({ jsonrpc: "2.0", id: "list", method: "tools/list", params: {} });
      await session.next((m) => m.id === "list", "tools/list");
      // Several calls in flight at once: their forwards wait for the end of the turn (batched). Whether
      // the end of input reaches Bouncer in the same turn depends on timing, so this test catches a
      // lost forward only most of the time; message-writer.test.ts's sendWaiting() test is the exact one.
      const ids = Array.from({ length: 20 }, (_, i) => i + 1);
      const burst = ids
        .map((id) =>
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "echo", arguments: { text: `m${id}` } },
          }),
        )
        .join("\n");
      session.child.stdin?.end(`${burst}\n`);
      const answers = await Promise.all(
        ids.map((id) => session.next((m) => m.id === id, `the answer to ${id}`)),
      );
      expect(answers.map((m) => (m.result as { content: { text: string }[] }).content[0]?.text)).toEqual(
        ids.map((id) => `m${id}`),
      );
      expect((await deadline(session.exited, 30_000, "bouncer exits")).code).toBe(0);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run answers a call pending when the upstream dies with -32000, the exit code and stderr tail, then exits 1 (F07)",
    async () => {
      const { command, args } = bouncerCommand("pass", [
        "--upstream-name",
        "fx",
        "--",
        BUN,
        FRAMING_UPSTREAM,
      ]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      session.send(initializeRequest(0));
      await session.next((m) => m.id === 0, "initialize answered");
      session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      session.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "die", arguments: {} } });
      const answer = await session.next((m) => m.id === 7, "the error for the pending call");
      expect(answer).toMatchObject({
        error: { code: -32000, message: 'Upstream "fx" exited (code 1)', data: { exitCode: 1 } },
      });
      expect(JSON.stringify(answer)).toContain("fatal: the fixture upstream gives up");
      expect((await deadline(session.exited, 20_000, "bouncer exits")).code).toBe(1);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run answers initialize with an error naming a missing command and the PATH searched, then exits 1 (F10)",
    async () => {
      const auditLog = join(mkdtempSync(join(tmpdir(), "bouncer-gone-")), "audit.jsonl");
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "gone",
        "--audit-log",
        auditLog,
        "--",
        "no-such-mcp-server-xyz",
        "--flag",
      ]);
      const session = startLines(command, args, {
        BOUNCER_HOME: home,
        PATH: `/nonexistent-dir:${process.env.PATH ?? ""}`,
      });
      session.send(initializeRequest(0));
      const answer = (await session.next((m) => m.id === 0, "the initialize error")) as {
        error: { message: string; data: { path: string } };
      };
      expect(answer.error.message).toContain('"no-such-mcp-server-xyz"');
      expect(answer.error.message).toContain("/nonexistent-dir:");
      expect(answer.error.data.path.startsWith("/nonexistent-dir:")).toBe(true);
      expect(session.stderr()).toContain("no-such-mcp-server-xyz");
      expect((await deadline(session.exited, 20_000, "bouncer exits")).code).toBe(1);
      // The gate was never needed for a call, yet the upstream's failure is audited (SPEC §3.5).
      const events = readFileSync(auditLog, "utf8")
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { event: string }).event);
      expect(events).toContain("upstream_exit");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run hides a secret-named environment value its dying upstream printed, in its stderr, the client's error and the audit log",
    async () => {
      const auditLog = join(mkdtempSync(join(tmpdir(), "bouncer-envsecret-")), "audit.jsonl");
      const script = 'echo "connecting as app with password $DB_PASSWORD" >&2; exit 3';
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "db",
        "--audit-log",
        auditLog,
        "--",
        "sh",
        "-c",
        script,
      ]);
      const session = startLines(command, args, { BOUNCER_HOME: home, DB_PASSWORD: "Tr0ub4dor&3" });
      await waitUntil(() => session.stderr().includes('Upstream "db" exited (code 3)'), 20_000, "the exit");
      session.send(initializeRequest(0));
      const answer = await session.next((m) => m.id === 0, "the initialize error");
      session.child.stdin?.end();
      expect((await deadline(session.exited, 20_000, "bouncer exits")).code).toBe(1);
      const exit = readFileSync(auditLog, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { event: string; reason?: string })
        .find((record) => record.event === "upstream_exit");
      expect(exit?.reason).toBe("Upstream exited with code 3: connecting as app with password [redacted]");
      expect(JSON.stringify(answer)).toContain("password [redacted]");
      expect(session.stderr()).toContain("[upstream:db] connecting as app with password [redacted]");
      for (const text of [JSON.stringify(answer), session.stderr(), readFileSync(auditLog, "utf8")]) {
        expect(text).not.toContain("Tr0ub4dor");
      }
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run redacts a token its dying upstream printed (in no environment variable) in the client's error, as in the audit log",
    async () => {
      const auditLog = join(mkdtempSync(join(tmpdir(), "bouncer-tailtoken-")), "audit.jsonl");
      const token = `ghp_${"a1B2c3D4e5".repeat(4)}`;
      const script = `echo "GITHUB_TOKEN=${token} rejected" >&2; echo "retry with ${token}" >&2; exit 3`;
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "gh",
        "--audit-log",
        auditLog,
        "--",
        "sh",
        "-c",
        script,
      ]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      await waitUntil(() => session.stderr().includes('Upstream "gh" exited (code 3)'), 20_000, "the exit");
      session.send(initializeRequest(0));
      const answer = (await session.next((m) => m.id === 0, "the initialize error")) as {
        error: { data: { stderrTail: string } };
      };
      session.child.stdin?.end();
      expect((await deadline(session.exited, 20_000, "bouncer exits")).code).toBe(1);
      expect(answer.error.data.stderrTail).toBe("GITHUB_TOKEN=[redacted] rejected\nretry with [redacted]\n");
      expect(readFileSync(auditLog, "utf8")).not.toContain(token);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run hides a secret-named environment value in a line its upstream wrote on stdout that is not JSON, in its stderr and the audit noise record",
    async () => {
      const auditLog = join(mkdtempSync(join(tmpdir(), "bouncer-envnoise-")), "audit.jsonl");
      const script = 'echo "config: password=$DB_PASSWORD"; exec "$0" "$1"';
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "db",
        "--audit-log",
        auditLog,
        "--",
        "sh",
        "-c",
        script,
        BUN,
        FRAMING_UPSTREAM,
      ]);
      const secret = "Tr0ub4dor&3-horse-battery-staple";
      const session = startLines(command, args, { BOUNCER_HOME: home, DB_PASSWORD: secret });
      session.send(initializeRequest(0));
      await session.next((m) => m.id === 0, "initialize answered");
      session.child.stdin?.end();
      await deadline(session.exited, 20_000, "bouncer exits");
      const noise = readFileSync(auditLog, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { event: string; reason?: string })
        .find((record) => record.event === "noise");
      expect(noise?.reason).toBe('not_json (49 characters): "config: password=[redacted]"');
      expect(session.stderr()).toContain(
        '[bouncer] The upstream wrote a line that is not JSON (49 characters): "config: password=[redacted]"',
      );
      for (const text of [session.stderr(), readFileSync(auditLog, "utf8")])
        expect(text).not.toContain("Tr0ub4dor");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run hides the body of a PEM private key its upstream writes on stdout, in its stderr and the audit noise records",
    async () => {
      const auditLog = join(mkdtempSync(join(tmpdir(), "bouncer-keynoise-")), "audit.jsonl");
      const body = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BKcwggSjAgEAAoIBAQC7StdoutKeyBody"];
      const key = [
        ["-----BEGIN", "PRIVATE KEY-----"].join(" "),
        ...body,
        ["-----END", "PRIVATE KEY-----"].join(" "),
      ];
      const script = `printf '%s\\n' ${key.map((line) => `'${line}'`).join(" ")}; exec "$0" "$1"`;
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "keys",
        "--audit-log",
        auditLog,
        "--",
        "sh",
        "-c",
        script,
        BUN,
        FRAMING_UPSTREAM,
      ]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      session.send(initializeRequest(0));
      await session.next((m) => m.id === 0, "initialize answered");
      session.child.stdin?.end();
      await deadline(session.exited, 20_000, "bouncer exits");
      const records = readFileSync(auditLog, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { event: string; reason?: string })
        .filter((record) => record.event === "noise");
      expect(records).toHaveLength(4);
      for (const text of [session.stderr(), readFileSync(auditLog, "utf8")])
        for (const line of body) expect(text).not.toContain(line);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run exits 1 when its upstream died before the client said anything and the client then leaves",
    async () => {
      const { command, args } = bouncerCommand("cli", ["--upstream-name", "die", "--", "sh", "-c", "exit 3"]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      await waitUntil(
        () => session.stderr().includes('Upstream "die" exited (code 3)'),
        20_000,
        "the exit is logged",
      );
      session.child.stdin?.end();
      expect((await deadline(session.exited, 30_000, "bouncer exits")).code).toBe(1);
    },
    E2E_TIMEOUT,
  );

  test.each(["SIGTERM", "SIGHUP"] as const)(
    "bouncer run exits 1 when its upstream died and %s then ends it (a signal ends a live session with 0)",
    async (signal) => {
      const { command, args } = bouncerCommand("cli", ["--upstream-name", "die", "--", "sh", "-c", "exit 3"]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      await waitUntil(
        () => session.stderr().includes('Upstream "die" exited (code 3)'),
        20_000,
        "the exit is logged",
      );
      session.child.kill(signal);
      expect((await deadline(session.exited, 30_000, `bouncer exits after ${signal}`)).code).toBe(1);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run --config starts the upstream stashed in the client config, relays its initialize answer, and says that the entry's own --policy is not applied",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "bouncer-config-"));
      const config = join(dir, "mcp.json");
      const upstream = { command: BUN, args: [join(ROOT, "tests/fixtures/servers/echo.ts")] };
      // The entry's own flags, as init writes them: this run is not given its --policy.
      const entryArgs = ["run", "--policy", join(dir, "bouncer.yaml"), "--upstream-name", "echo", "--", BUN];
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { echo: { command: "bouncer", args: entryArgs, "x-bouncer-upstream": upstream } },
        }),
      );
      const { command, args } = bouncerCommand("cli", ["--upstream-name", "echo", "--config", config]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      session.send(initializeRequest(0));
      const answer = (await session.next((m) => m.id === 0, "the initialize answer")) as {
        result: { serverInfo: { name: string } };
      };
      expect(answer.result.serverInfo.name).toBe("echo-fixture");
      session.child.stdin?.end();
      expect((await deadline(session.exited, 30_000, "bouncer exits after stdin EOF")).code).toBe(0);
      expect(session.stderr()).toContain(
        `The entry "echo" of "${config}" runs with --policy ${join(dir, "bouncer.yaml")}; this run has no --policy, so its verdicts can differ from the client's`,
      );
      // The same file, written another way (`dir/./bouncer.yaml`), is the same policy: nothing said.
      writeFileSync(join(dir, "bouncer.yaml"), "echo: { exfiltrating: false }\n");
      const sameArgs = ["run", "--policy", `${dir}/./bouncer.yaml`, "--upstream-name", "echo", "--", BUN];
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { echo: { command: "bouncer", args: sameArgs, "x-bouncer-upstream": upstream } },
        }),
      );
      const same = bouncerCommand("cli", [
        "--upstream-name",
        "echo",
        "--config",
        config,
        "--policy",
        join(dir, "bouncer.yaml"),
      ]);
      const again = startLines(same.command, same.args, { BOUNCER_HOME: home });
      again.send(initializeRequest(0));
      await again.next((m) => m.id === 0, "the initialize answer");
      again.child.stdin?.end();
      expect((await deadline(again.exited, 30_000, "bouncer exits after stdin EOF")).code).toBe(0);
      expect(again.stderr()).not.toContain("The entry");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run --config that cannot give the upstream answers initialize with the reason and exits 2",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "bouncer-config-"));
      const noServer = join(dir, "mcp.json");
      writeFileSync(noServer, JSON.stringify({ mcpServers: {} }));
      for (const [config, code, words] of [
        [join(dir, "missing.json"), "CONFIG_UNREADABLE", ": no such file"],
        [noServer, "CONFIG_INVALID", "has no such server"],
      ] as const) {
        const { command, args } = bouncerCommand("cli", ["--upstream-name", "echo", "--config", config]);
        const session = startLines(command, args, { BOUNCER_HOME: home });
        session.send(initializeRequest(0));
        const answer = await session.next((m) => m.id === 0, "the initialize answer");
        expect(answer.error).toMatchObject({
          code: -32001,
          data: { code },
          message: expect.stringContaining(words),
        });
        session.child.stdin?.end();
        expect((await deadline(session.exited, 30_000, "bouncer exits")).code).toBe(2);
      }
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run stops the whole upstream tree and exits 0 when its stdin closes (F06 a, c)",
    async () => {
      const { session, pids } = await startTree();
      session.child.stdin?.end();
      expect((await deadline(session.exited, 30_000, "bouncer exits after stdin EOF")).code).toBe(0);
      await waitUntil(() => !pids.some(isAlive), 10_000, "no upstream process remains");
      expect(session.lines).toEqual([]);
    },
    E2E_TIMEOUT,
  );

  test.skipIf(process.platform !== "linux")(
    "bouncer run stops a grandchild that left the upstream's process group (setsid), even when the upstream exits on stdin EOF first",
    async () => {
      const pidFile = join(mkdtempSync(join(tmpdir(), "bouncer-setsid-")), "pids");
      const script = join(ROOT, "tests/fixtures/servers/setsid-tree.sh");
      const { command, args } = bouncerCommand("cli", ["--upstream-name", "tree", "--", script, pidFile]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      await waitUntil(() => existsSync(pidFile), 20_000, "the upstream tree started");
      const pids = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
      try {
        expect(pids.every(isAlive)).toBe(true);
        session.child.stdin?.end();
        expect((await deadline(session.exited, 30_000, "bouncer exits after stdin EOF")).code).toBe(0);
        await waitUntil(() => !pids.some(isAlive), 10_000, "no upstream process remains");
      } finally {
        for (const pid of pids.filter(isAlive)) process.kill(pid, "SIGKILL");
      }
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run stops the whole upstream tree when the SDK's client transport closes it (stdin end, SIGTERM 2 s later, SIGKILL 2 s after)",
    async () => {
      const pidFile = join(mkdtempSync(join(tmpdir(), "bouncer-tree-")), "pids");
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "tree",
        "--",
        STUBBORN_TREE,
        pidFile,
      ]);
      const env = { ...(process.env as Record<string, string>), BOUNCER_HOME: home };
      const transport = new StdioClientTransport({ command, args, env, stderr: "ignore" });
      await transport.start();
      await waitUntil(() => existsSync(pidFile), 20_000, "the upstream tree started");
      const pids = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
      expect(pids.every(isAlive)).toBe(true);
      // The SDK's own close: it SIGKILLs Bouncer 4 s after ending its stdin if it is still there.
      await transport.close();
      await waitUntil(() => !pids.some(isAlive), 10_000, "no upstream process remains");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run stops the whole upstream tree when the client stops reading (broken pipe)",
    async () => {
      const { session, pids } = await startTree();
      session.child.stdout?.destroy();
      // A batch is answered by Bouncer itself, so it writes to the closed pipe.
      session.send([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
      await deadline(session.exited, 30_000, "bouncer exits after a broken pipe");
      await waitUntil(() => !pids.some(isAlive), 10_000, "no upstream process remains");
      expect(session.stderr()).toContain("broken pipe");
    },
    E2E_TIMEOUT,
  );

  test.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)(
    "bouncer run stops the whole upstream tree on %s and exits 0",
    async (signal) => {
      const { session, pids } = await startTree();
      session.child.kill(signal);
      expect((await deadline(session.exited, 30_000, `bouncer exits after ${signal}`)).code).toBe(0);
      await waitUntil(() => !pids.some(isAlive), 10_000, "no upstream process remains");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run notices that its parent died and stops the upstream tree (F06 b)",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "bouncer-parent-"));
      const bouncerPidFile = join(dir, "bouncer.pid");
      const treePidFile = join(dir, "tree.pids");
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "tree",
        "--",
        STUBBORN_TREE,
        treePidFile,
      ]);
      // `sleep` holds the write end of Bouncer's stdin, so the parent's death brings no EOF.
      const holder = spawn(
        "sh",
        [
          "-c",
          'sleep 120 | "$0" "$@"',
          join(ROOT, "tests/proxy/support/spawn-and-wait.sh"),
          bouncerPidFile,
          command,
          ...args,
        ],
        {
          cwd: ROOT,
          env: { ...process.env, BOUNCER_HOME: home },
          stdio: "ignore",
          detached: true,
        },
      );
      try {
        await waitUntil(
          () => existsSync(bouncerPidFile) && existsSync(treePidFile),
          20_000,
          "bouncer and its upstream started",
        );
        const bouncerPid = Number(readFileSync(bouncerPidFile, "utf8"));
        const pids = readFileSync(treePidFile, "utf8").trim().split(" ").map(Number);
        const stat = readFileSync(`/proc/${bouncerPid}/stat`, "utf8");
        const parentPid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        await new Promise((r) => setTimeout(r, 1500));
        expect([bouncerPid, ...pids].every(isAlive)).toBe(true);
        process.kill(parentPid, "SIGKILL");
        await waitUntil(
          () => !isAlive(bouncerPid) && !pids.some(isAlive),
          30_000,
          "bouncer and its upstream tree are gone",
        );
      } finally {
        if (holder.pid !== undefined) process.kill(-holder.pid, "SIGKILL");
      }
    },
    E2E_TIMEOUT,
  );

  test.each([
    ["SIGTERM", "signal"],
    ["the end of its input", "client closed"],
  ] as const)(
    "bouncer run answers a call still forwarded when %s stops it (-32603 naming why), not leaving it without an answer",
    async (how, reason) => {
      const upstream = join(ROOT, "tests/fixtures/servers/lifecycle-upstream.ts");
      const { command, args } = bouncerCommand("cli", ["--upstream-name", "fx", "--", BUN, upstream]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      session.send(initializeRequest(0));
      await session.next((m) => m.id === 0, "initialize");
      session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      session.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang", arguments: {} } });
      // Forwarded in order: once the later call is answered, the upstream has the hanging one.
      const text = '{"jsonrpc":"2.0","id":{ID},"result":{"content":[]}}';
      session.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "raw", arguments: { text } },
      });
      await session.next((m) => m.id === 2, "the later call");
      if (how === "SIGTERM") session.child.kill("SIGTERM");
      else session.child.stdin?.end();
      const answer = await session.next((m) => m.id === 1, "the hanging call's answer");
      expect(answer).toEqual({
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32603,
          message: `Bouncer stopped (${reason}) before the upstream answered this call`,
        },
      });
      expect((await deadline(session.exited, 30_000, "bouncer exits")).code).toBe(0);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run relays the answer an upstream writes as it is stopped by SIGTERM, rather than giving the call up",
    async () => {
      const upstream = join(ROOT, "tests/fixtures/servers/answer-on-term.ts");
      const { command, args } = bouncerCommand("cli", ["--upstream-name", "term", "--", BUN, upstream]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      session.send(initializeRequest(0));
      await session.next((m) => m.id === 0, "initialize");
      session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      session.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", arguments: {} } });
      await waitUntil(
        () => session.stderr().includes("holding a call"),
        20_000,
        "the upstream holds the call",
      );
      session.child.kill("SIGTERM");
      const answer = await session.next((m) => m.id === 1, "the call's answer");
      expect(answer).toEqual({
        jsonrpc: "2.0",
        id: 1,
        result: { content: [{ type: "text", text: "answered on SIGTERM" }] },
      });
      expect((await deadline(session.exited, 30_000, "bouncer exits")).code).toBe(0);
    },
    E2E_TIMEOUT,
  );
});
