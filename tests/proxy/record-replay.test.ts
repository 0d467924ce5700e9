/**
 * `bouncer run --record FILE` in front of the real filesystem server writes a session file that
 * `bouncer replay` replays to the same verdicts the live session audited (SPEC §3.6, §5.9; issue 3
 * "A --record file replays through bouncer replay to the same verdicts").
 */

import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUN,
  bouncerCommand,
  type Connected,
  connect,
  FS_SERVER,
  initializeRequest,
  ROOT,
  startLines,
  tempHome,
} from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;

/**
 * The first `decision` record of each call in an audit log, as [seq, tool, verdict, contract].
 * @param file - The audit log.
 * @returns One row per seq, in log order.
 */
function decisions(file: string): (string | number | undefined)[][] {
  const seen = new Set<number | undefined>();
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map(
      (line) =>
        JSON.parse(line) as {
          event: string;
          seq?: number;
          tool?: string;
          verdict?: string;
          contract?: string;
        },
    )
    .filter(
      (record) => record.event === "decision" && !seen.has(record.seq) && seen.add(record.seq) !== undefined,
    )
    .map((record) => [record.seq, record.tool, record.verdict, record.contract]);
}
const clients: Connected[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.client.close()));
}, E2E_TIMEOUT);

describe("bouncer run --record", () => {
  test(
    "bouncer run --record writes a session that bouncer replay decides exactly as the live session did",
    async () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-rec-")));
      const out = join(dir, "out");
      mkdirSync(out);
      writeFileSync(join(dir, "notes.txt"), "hello\n");
      const home = tempHome();
      const policy = join(home, "policy.yaml");
      writeFileSync(
        policy,
        `write_file:\n  max_calls: 2\n  allowed_path_prefixes: [${JSON.stringify(out)}]\n`,
      );
      const session = join(home, "session.jsonl");
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "fs",
        "--policy",
        policy,
        "--record",
        session,
        "--",
        FS_SERVER,
        dir,
      ]);
      const proxied = await connect(command, { args, env: { BOUNCER_HOME: home } });
      clients.push(proxied);
      const calls = [
        { name: "read_text_file", arguments: { path: join(dir, "notes.txt") } },
        { name: "write_file", arguments: { path: join(dir, "outside-prefix.txt"), content: "no" } },
        { name: "write_file", arguments: { path: join(out, "a.txt"), content: "a" } },
        { name: "list_directory", arguments: { path: dir } },
        { name: "write_file", arguments: { path: join(out, "b.txt"), content: "b" } },
      ];
      for (const call of calls) await proxied.client.callTool(call);
      await proxied.client.close();
      expect(statSync(session).mode & 0o777).toBe(0o600);
      const events = readFileSync(session, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as { event: string; tool?: string; result?: unknown });
      expect(events.map((event) => event.event)).toEqual(["server", "tools", ...calls.map(() => "call")]);
      expect(events[2]?.result).toBeDefined();
      expect(events[3]?.result).toBeUndefined();

      const replay = spawnSync(
        BUN,
        [join(ROOT, "src/cli.ts"), "replay", session, "--policy", policy, "--json"],
        {
          cwd: ROOT,
          encoding: "utf8",
          env: { ...process.env, BOUNCER_HOME: home },
        },
      );
      expect(replay.stderr).toBe("");
      expect(replay.status).toBe(0);
      const rows = replay.stdout
        .split("\n")
        .filter((line) => line !== "")
        .map(
          (line) => JSON.parse(line) as { seq?: number; tool?: string; verdict?: string; contract?: string },
        );
      const replayed = rows
        .filter((row) => row.seq !== undefined)
        .map((row) => [row.seq, row.tool, row.verdict, row.contract]);
      const audited = decisions(join(home, "audit.jsonl"));
      expect(replayed).toEqual(audited);
      // Budgets count attempts (SPEC §2.3): the denied write used one of the two slots.
      expect(replayed.map((row) => row[2])).toEqual(["allow", "deny", "allow", "allow", "deny"]);
    },
    E2E_TIMEOUT,
  );

  test.if(process.platform !== "win32")(
    "bouncer replay of a session with a server event resolves symbolic links as the live session did",
    async () => {
      const root = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-rec-")));
      const data = join(root, "data");
      const outside = join(root, "outside");
      mkdirSync(data);
      mkdirSync(outside);
      symlinkSync(outside, join(data, "link"));
      const home = tempHome();
      const policy = join(home, "policy.yaml");
      writeFileSync(policy, `write_file:\n  allowed_path_prefixes: [${JSON.stringify(data)}]\n`);
      const session = join(home, "session.jsonl");
      const { command, args } = bouncerCommand("cli", [
        ...["--upstream-name", "fs", "--policy", policy, "--record", session],
        ...["--", FS_SERVER, data],
      ]);
      const proxied = await connect(command, { args, env: { BOUNCER_HOME: home } });
      clients.push(proxied);
      await proxied.client.callTool({
        name: "write_file",
        arguments: { path: join(data, "a.txt"), content: "a" },
      });
      // Inside the prefix as written, outside it once the link is followed.
      const through = join(data, "link", "b.txt");
      await proxied.client.callTool({ name: "write_file", arguments: { path: through, content: "b" } });
      await proxied.client.close();
      expect(existsSync(join(outside, "b.txt"))).toBe(false);
      const audited = decisions(join(home, "audit.jsonl"));
      expect(audited.map((row) => row[2])).toEqual(["allow", "deny"]);
      const replay = spawnSync(
        BUN,
        [join(ROOT, "src/cli.ts"), "replay", session, "--policy", policy, "--json"],
        { cwd: ROOT, encoding: "utf8", env: { ...process.env, BOUNCER_HOME: home } },
      );
      expect(replay.stderr).toBe("");
      const rows = replay.stdout
        .split("\n")
        .filter((line) => line.startsWith('{"seq"'))
        .map((line) => JSON.parse(line) as { seq: number; tool: string; verdict: string; contract: string });
      const replayed: (string | number | undefined)[][] = rows.map((row) => [
        row.seq,
        row.tool,
        row.verdict,
        row.contract,
      ]);
      expect(replayed).toEqual(audited);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run --record marks calls denied for ambiguous JSON, and bouncer replay denies them again",
    async () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-rec-")));
      writeFileSync(join(dir, "notes.txt"), "hello\n");
      const home = tempHome();
      const session = join(home, "session.jsonl");
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "fs",
        "--record",
        session,
        "--",
        FS_SERVER,
        dir,
      ]);
      const live = startLines(command, args, { BOUNCER_HOME: home });
      live.send(initializeRequest(0));
      await live.next((m) => m.id === 0, "initialize answered");
      live.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const path = JSON.stringify(join(dir, "notes.txt"));
      // The same read four ways, one after the other: plain, with a repeated key, with an integer
      // beyond 2^53, nested past 1,000 levels (more than the runtime serialises).
      const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
      const lines = [
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":${path}}}}`,
        `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/etc/hostname","path":${path}}}}`,
        `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":${path},"head":9007199254740993}}}`,
        `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":${path},"x":${deep}}}}`,
      ];
      const answers: string[] = [];
      for (const [index, line] of lines.entries()) {
        live.send(line);
        const answer = await live.next((m) => m.id === index + 1, `call ${index + 1} answered`);
        answers.push(JSON.stringify(answer));
      }
      // The live proxy forwarded the plain read only; the other three were blocked.
      expect(answers.map((answer) => answer.includes("[bouncer blocked]"))).toEqual([
        false,
        true,
        true,
        true,
      ]);
      live.child.stdin?.end();
      await live.exited;
      const calls = readFileSync(session, "utf8")
        .split("\n")
        .filter((line) => line.includes('"event":"call"'))
        .map((line) => JSON.parse(line) as { ambiguous_json?: string; arguments: unknown });
      expect(calls.map((call) => call.ambiguous_json)).toEqual([
        undefined,
        "duplicate_keys",
        "unsafe_integers",
        "too_deep",
      ]);

      const replay = spawnSync(BUN, [join(ROOT, "src/cli.ts"), "replay", session, "--json"], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, BOUNCER_HOME: home },
      });
      expect(replay.status).toBe(0);
      const rows = replay.stdout
        .split("\n")
        .filter((line) => line.startsWith('{"seq"'))
        .map((line) => JSON.parse(line) as { verdict: string; reason: string | null; outcome: string });
      expect(rows.map((row) => [row.verdict, row.outcome])).toEqual([
        ["allow", "forwarded"],
        ["deny", "blocked"],
        ["deny", "blocked"],
        ["deny", "blocked"],
      ]);
      expect(rows[1]?.reason).toContain("repeats an object key");
      expect(rows[2]?.reason).toContain("beyond ±2^53");
      expect(rows[3]?.reason).toContain("nests deeper than 1000 levels");
    },
    E2E_TIMEOUT,
  );
});
