// biome-ignore-all lint/suspicious/noTemplateCurlyInString: client placeholders such as ${input:id} are the data under test
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { safeName } from "../../src/engine/index.ts";
import { sourceCliPath, sourceRuntimeFlags } from "../../src/init/launcher.ts";
import type { Launcher } from "../../src/init/types.ts";
import { isAlive, STUBBORN_TREE, waitUntil } from "../proxy/support/harness.ts";
import { runCli } from "../run-cli.ts";
import { runBouncer, tempDir } from "./run-helpers.ts";

const FILESYSTEM_SERVER = new URL(
  "../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
  import.meta.url,
).pathname;
const SOURCE: Launcher = {
  command: process.execPath,
  prefixArgs: [...sourceRuntimeFlags("bun", sourceCliPath(), process.platform), sourceCliPath()],
};
const RUG_PULL_SERVER = new URL("../fixtures/servers/rug-pull-upstream.ts", import.meta.url).pathname;
const PROXY_MISSING = !existsSync(new URL("../../src/proxy/command.ts", import.meta.url).pathname);
const SECRET = "s3cr3t-doctor-value";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A project with a `.mcp.json` holding a real filesystem server, a failing one and a remote one. */
function project(): { dir: string; file: string; env: Record<string, string> } {
  const dir = tempDir("bouncer-doctor-");
  dirs.push(dir);
  mkdirSync(path.join(dir, "data"));
  const file = path.join(dir, ".mcp.json");
  const config = {
    mcpServers: {
      fs: {
        command: process.execPath,
        args: [FILESYSTEM_SERVER, path.join(dir, "data")],
        env: { FS_TOKEN: SECRET },
      },
      broken: {
        command: process.execPath,
        args: ["-e", "console.error('boom ' + process.env.BROKEN_TOKEN); process.exit(3)"],
        env: { BROKEN_TOKEN: SECRET },
      },
      remote: { type: "http", url: "https://mcp.example/mcp" },
    },
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return {
    dir,
    file,
    env: { PATH: "/usr/bin:/bin", HOME: dir, BOUNCER_HOME: path.join(dir, "bouncer-home") },
  };
}

describe("doctorCommand", () => {
  test("doctorCommand starts each server as its client would and reports tools, pack, errors and skips", async () => {
    const { dir, file, env } = project();
    const result = await runBouncer("doctor", ["--config", file], {
      cwd: dir,
      env,
      doctor: { timeoutMs: 20_000 },
    });
    expect(result.code).toBe(1);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(
      /^SERVER +CLIENT +WRAPPED +STATUS +INIT +TOOLS +PACK +EXFILTRATING +UNCONFINED +ASKS$/,
    );
    expect(lines[1]).toMatch(/^fs +Claude Code +no +started +\d+ ms +\d+ +filesystem +none +none +yes /);
    expect(lines[2]).toMatch(/^broken +Claude Code +no +error +- +- +- +- +- +yes /);
    expect(lines[3]).toMatch(/^remote +Claude Code +no +skipped +- +- +- +- +- +-$/);
    expect(result.stdout).toContain("  | boom ********");
    expect(result.stdout).toContain("remote (");
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    expect(result.stderr).toContain("doctor: starting 2 server(s)\n");
    expect(result.stderr).toMatch(/doctor: \[2\/2\] /);
  });

  test("doctorCommand --json prints one JSON document with a row per server", async () => {
    const { dir, file, env } = project();
    const result = await runBouncer("doctor", ["--config", file, "--json"], {
      cwd: dir,
      env,
      doctor: { timeoutMs: 20_000 },
    });
    const report = JSON.parse(result.stdout) as { servers: Record<string, unknown>[] };
    expect(report.servers.map((row) => [row.server, row.status])).toEqual([
      ["fs", "started"],
      ["broken", "error"],
      ["remote", "skipped"],
    ]);
    const fs = report.servers[0] ?? {};
    expect(fs.tools).toBeGreaterThan(5);
    expect(fs.analysis).toEqual({ packs: ["filesystem"], exfiltrating: [], unconfined: [] });
    expect(fs.serverInfo).toMatchObject({ name: "secure-filesystem-server" });
    expect(result.stdout).not.toContain(SECRET);
  });

  test("doctorCommand skips an entry whose placeholder only the client can fill", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const file = path.join(dir, ".vscode", "mcp.json");
    mkdirSync(path.dirname(file));
    writeFileSync(file, '{"servers": {"gh": {"command": "gh-mcp", "env": {"TOKEN": "${input:token}"}}}}');
    const result = await runBouncer("doctor", ["--config", file], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin" },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("gh (");
    expect(result.stdout).toContain("skipped: ${input:token} can only be filled in by the client");
  });

  test("doctorCommand counts once the tools of a server that repeats its tools/list cursor, and names that as a server defect", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    const server = path.join(import.meta.dir, "..", "fixtures", "servers", "odd-tools.ts");
    const config = { mcpServers: { odd: { command: process.execPath, args: [server, "repeat-cursor"] } } };
    writeFileSync(file, JSON.stringify(config));
    const result = await runBouncer("doctor", ["--config", file], {
      cwd: dir,
      doctor: { timeoutMs: 20_000 },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nodd +Claude Code +no +started +\d+ ms +2 +/);
    expect(result.stdout).toContain(
      `\nodd (${file}): server defect: tools/list gave the cursor "c1" again: the listing stopped there; 1 tool(s) an earlier page listed came again, counted once\n`,
    );
    const json = await runBouncer("doctor", ["--config", file, "--json"], {
      cwd: dir,
      doctor: { timeoutMs: 20_000 },
    });
    expect(JSON.parse(json.stdout).servers[0]).toMatchObject({
      tools: 2,
      defect: expect.stringContaining('"c1" again'),
    });
  });

  test("doctorCommand masks in a server's stderr the secrets of a JSON-valued argument and the value after -k", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    // Prints its arguments whole, then the JSON argument's value alone, as a server logging its settings.
    const echo =
      "const a = process.argv.slice(1); console.error(a.join(' ')); console.error('key is ' + JSON.parse(a[0]).apiKey); process.exit(3)";
    const args = ["-e", echo, '{"apiKey":"plainjsonvalue95"}', "-k", "plainshortflag98"];
    writeFileSync(file, JSON.stringify({ mcpServers: { leaky: { command: process.execPath, args } } }));
    const result = await runBouncer("doctor", ["--config", file], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", HOME: dir },
      doctor: { timeoutMs: 20_000 },
    });
    expect(result.code).toBe(1);
    const shown = result.stdout + result.stderr;
    expect(shown).toContain("key is ********");
    expect(shown).not.toContain("plainjsonvalue95");
    expect(shown).not.toContain("plainshortflag98");
  });

  test("doctorCommand masks in a server's stderr a secret filled in from ${VAR} and secrets in its arguments", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    const echoAll =
      "console.error(process.argv.slice(1).join(' ') + ' ' + process.env.API_KEY + ' ' + process.env.HEADER + ' ' + process.env.OTHER + ' ' + process.env.MY_T + ' ' + process.env.DB_PASSWORD); process.exit(3)";
    const config = {
      mcpServers: {
        leaky: {
          command: process.execPath,
          args: [
            "-e",
            echoAll,
            "--api-key",
            "hunter2hunter2",
            "postgresql://user:S3cretPass@db.example/app",
            "OPENAI_API_KEY=plainsecretvalue",
          ],
          env: {
            API_KEY: "${MY_KEY}",
            HEADER: "Bearer ${MY_T}",
            OTHER: "${GH_TOKEN_X}",
            DBURL: "postgres://app:${DB_PASSWORD}@db/app",
          },
        },
      },
    };
    writeFileSync(file, JSON.stringify(config));
    const result = await runBouncer("doctor", ["--config", file], {
      cwd: dir,
      env: {
        PATH: "/usr/bin:/bin",
        HOME: dir,
        MY_KEY: "expanded-secret-from-env",
        MY_T: "bearer-secret-xyz-123",
        GH_TOKEN_X: "token-from-named-var-456",
        DB_PASSWORD: "dbpassword999",
      },
      doctor: { timeoutMs: 20_000 },
    });
    expect(result.code).toBe(1);
    const shown = result.stdout + result.stderr;
    expect(shown).toContain("  | ********");
    for (const secret of [
      "expanded-secret-from-env",
      "bearer-secret-xyz-123",
      "token-from-named-var-456",
      "dbpassword999",
      "hunter2hunter2",
      "S3cretPass",
      "plainsecretvalue",
    ]) {
      expect(shown).not.toContain(secret);
    }
  });

  test("doctorCommand leaves no process behind of a server tree that ignores stdin EOF and SIGTERM", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const pidFile = path.join(dir, "pids");
    const file = path.join(dir, ".mcp.json");
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { stubborn: { command: STUBBORN_TREE, args: [pidFile] } } }),
    );
    const result = await runBouncer("doctor", ["--config", file], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", HOME: dir },
      doctor: { timeoutMs: 1000 },
    });
    expect(result.code).toBe(1);
    const pids = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
    expect(pids).toHaveLength(2);
    await waitUntil(() => !pids.some(isAlive), 10_000, "no process of the server's tree remains");
  }, 60_000);

  test.if(process.platform === "linux")(
    "bouncer doctor with piped output ends although a server's descendant left its group holding the pipes",
    async () => {
      const dir = tempDir("bouncer-doctor-");
      dirs.push(dir);
      const file = path.join(dir, ".mcp.json");
      const echo = path.join(import.meta.dir, "..", "fixtures", "servers", "echo.ts");
      const script = `setsid sleep 60 & exec "${process.execPath}" "${echo}"`;
      writeFileSync(file, JSON.stringify({ mcpServers: { esc: { command: "sh", args: ["-c", script] } } }));
      const run = runCli(["doctor", "--config", file], { cwd: dir, env: { HOME: dir } });
      const result = await Promise.race([run, Bun.sleep(20_000).then(() => "hang" as const)]);
      expect(result === "hang" ? "hang" : result.code).toBe(0);
    },
    60_000,
  );

  test.if(process.platform === "linux")(
    "bouncer doctor with piped output ends when a server exits first, leaving children in and out of its group",
    async () => {
      const dir = tempDir("bouncer-doctor-");
      dirs.push(dir);
      const file = path.join(dir, ".mcp.json");
      const pidFile = path.join(dir, "pids");
      const script = 'sleep 1009 & a=$!; setsid sleep 1010 & echo "$a $!" > "$0"; exit 0';
      writeFileSync(
        file,
        JSON.stringify({ mcpServers: { f: { command: "sh", args: ["-c", script, pidFile] } } }),
      );
      const run = runCli(["doctor", "--config", file], { cwd: dir, env: { HOME: dir } });
      const result = await Promise.race([run, Bun.sleep(20_000).then(() => "hang" as const)]);
      const [inGroup = 0, escaped = 0] = readFileSync(pidFile, "utf8").trim().split(" ").map(Number);
      // The one that left the group is out of doctor's reach (SPEC §3.3 signals the group).
      if (isAlive(escaped)) process.kill(escaped, "SIGKILL");
      if (result === "hang") {
        // Ends the hung doctor (its server's pipes close) before the test fails.
        if (isAlive(inGroup)) process.kill(inGroup, "SIGKILL");
        await run;
      }
      expect(result === "hang" ? "hang" : result.code).toBe(1);
      await waitUntil(() => !isAlive(inGroup), 10_000, "the child in the server's group is stopped");
    },
    60_000,
  );

  test("bouncer doctor --json names a config it cannot read in the document itself (exit 2)", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const file = path.join(dir, "broken.json");
    writeFileSync(file, '{"mcpServers": {');
    const result = await runCli(["doctor", "--config", file, "--json"], { cwd: dir, env: { HOME: dir } });
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as { servers: unknown[]; errors?: string[] };
    expect(report.servers).toEqual([]);
    expect(report.errors).toEqual([
      `Cannot read client config ${JSON.stringify(file)}: line 1, column 17: close brace expected`,
    ]);
    // The table form says it once, on stderr, with no "No MCP servers" after it.
    const table = await runCli(["doctor", "--config", file], { cwd: dir, env: { HOME: dir } });
    expect(table.code).toBe(2);
    expect(table.stdout).toBe("");
    expect(table.stderr).toContain("close brace expected");
  });

  test("bouncer doctor masks the secrets of a whole command line in its error, in the table and --json", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const file = path.join(dir, "line.json");
    const command =
      "no-such-program-xyz -y pkg --api-key sk-abcdefghijklmnopqrstuvwx12345 --password=hunter2hunter2";
    writeFileSync(file, JSON.stringify({ mcpServers: { a: { command } } }));
    for (const extra of [[], ["--json"]]) {
      const result = await runCli(["doctor", "--config", file, ...extra], { cwd: dir, env: { HOME: dir } });
      const printed = result.stdout + result.stderr;
      expect(printed).toContain("no-such-program-xyz -y pkg --api-key ******** ********");
      for (const secret of ["sk-abcdefghij", "hunter2"]) expect(printed).not.toContain(secret);
    }
  });

  test("bouncer doctor --config on a file with no MCP server section (a misspelt key) says so and exits 2, as init does", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const file = path.join(dir, "typo.json");
    writeFileSync(file, JSON.stringify({ mcpservers: { a: { command: "x" } } }));
    const table = await runCli(["doctor", "--config", file], { cwd: dir, env: { HOME: dir } });
    expect(table.code).toBe(2);
    expect(table.stdout).toBe("");
    expect(table.stderr).toContain(`Cannot use "${file}": it has no MCP server section`);
    const json = await runCli(["doctor", "--config", file, "--json"], { cwd: dir, env: { HOME: dir } });
    expect(json.code).toBe(2);
    expect((JSON.parse(json.stdout) as { errors: string[] }).errors).toEqual([
      `Cannot use "${file}": it has no MCP server section`,
    ]);
  });

  test.if(process.platform !== "win32")(
    "bouncer doctor --json reports a server that writes a line over 10 MiB as an error, without a stack trace",
    async () => {
      const dir = tempDir("bouncer-doctor-");
      dirs.push(dir);
      const file = path.join(dir, "f.json");
      const pidFile = path.join(dir, "pid");
      const script = `echo $$ > "$0"; head -c 11000000 /dev/zero | tr '\\0' a; exec sleep 1007`;
      writeFileSync(
        file,
        JSON.stringify({ mcpServers: { big: { command: "sh", args: ["-c", script, pidFile] } } }),
      );
      const result = await runCli(["doctor", "--config", file, "--json"], { cwd: dir, env: { HOME: dir } });
      const pid = Number(readFileSync(pidFile, "utf8"));
      const stopped = await waitUntil(() => !isAlive(pid), 10_000, "the server is stopped").then(
        () => true,
        () => false,
      );
      if (!stopped) process.kill(pid, "SIGKILL");
      expect(stopped).toBe(true);
      expect(result.code).toBe(1);
      const report = JSON.parse(result.stdout) as { servers: Record<string, unknown>[] };
      expect(report.servers[0]).toMatchObject({
        status: "error",
        detail: "The server wrote a line over 10 MiB to its stdout (the most one message may be)",
      });
      expect(result.stderr).not.toContain("ReadBuffer");
      expect(result.stderr).not.toContain("    at ");
    },
    60_000,
  );

  test("doctorCommand starts the servers of two config paths to one file (a symlink) once", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    writeFileSync(
      path.join(dir, ".mcp.json"),
      JSON.stringify({ mcpServers: { once: { command: "sh", args: ["-c", "exit 3"] } } }),
    );
    mkdirSync(path.join(dir, ".cursor"));
    symlinkSync(path.join("..", ".mcp.json"), path.join(dir, ".cursor", "mcp.json"));
    const result = await runBouncer("doctor", ["--json"], { cwd: dir, doctor: { timeoutMs: 10_000 } });
    const report = JSON.parse(result.stdout) as { servers: Record<string, unknown>[] };
    expect(report.servers.map((row) => [row.server, row.file])).toEqual([
      ["once", path.join(dir, ".mcp.json")],
    ]);
    expect(result.stderr).toContain(
      `${path.join(dir, ".cursor", "mcp.json")}: the same file as ${path.join(dir, ".mcp.json")}, skipped\n`,
    );
  });

  test("doctorCommand --json with no config found prints one JSON document with the error, and exits 2", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const result = await runBouncer("doctor", ["--json"], { cwd: dir });
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as { servers: unknown[]; error: string };
    expect(report.servers).toEqual([]);
    expect(report.error).toStartWith(
      `No MCP client config found (looked in the current folder ${dir} for .mcp.json, `,
    );
    expect(report.error).toContain("and for the user's configs ");
    expect(report.error).toContain(`~${path.sep}.claude.json`);
    expect(report.error).toEndWith("): name one with --config FILE");
    expect(result.stderr).toBe(`bouncer: ${report.error}\n`);
    const client = await runBouncer("doctor", ["--json", "--client", "cursor"], { cwd: dir });
    expect(JSON.parse(client.stdout).error).toStartWith('No config of client "cursor" found (looked for ');
  });

  test("doctorCommand escapes the control characters of --config and --client in its error lines", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const missing = await runBouncer("doctor", ["--config", "x\u001b[2Jy.json"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toStartWith("bouncer: ");
    expect(missing.stderr).toContain("x\\u{1b}[2Jy.json");
    expect(missing.stderr).not.toContain("\u001b");
    const client = await runBouncer("doctor", ["--client", "cur\u001b[2Jsor"], { cwd: dir });
    expect(client.code).toBe(2);
    expect(client.stderr).toContain("cur\\u{1b}[2Jsor");
    expect(client.stderr).not.toContain("\u001b");
  });

  test("doctorCommand shows a server name's ESC sequence and line break escaped in the progress line", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const name = "a\u001b[31mb\nc";
    const file = path.join(dir, ".mcp.json");
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { [name]: { command: "sh", args: ["-c", "exit 3"] } } }),
    );
    const result = await runBouncer("doctor", ["--config", file], {
      cwd: dir,
      doctor: { timeoutMs: 10_000 },
    });
    expect(result.stderr).toContain(`doctor: [1/1] ${safeName(name)}: error\n`);
    expect(result.stderr).not.toContain("\u001b");
    expect(result.stderr.split("\n").filter((line) => line !== "")).toHaveLength(2);
  });

  test("doctorCommand looks a /usr/bin/env launcher's bouncer up on the entry's own env.PATH", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const bin = path.join(dir, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "bouncer"), "#!/bin/sh\n", { mode: 0o755 });
    const file = path.join(dir, ".mcp.json");
    const args = ["bouncer", "run", "--upstream-name", "fs", "--", "npx", "-y", "pkg"];
    const fs = { command: "/usr/bin/env", args, env: { PATH: "/usr/bin:/bin" } };
    writeFileSync(file, JSON.stringify({ mcpServers: { fs } }));
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    const result = await runBouncer("doctor", ["--config", file, "--json"], { cwd: dir, env });
    expect(result.code).toBe(1);
    const [row] = (JSON.parse(result.stdout) as { servers: Record<string, unknown>[] }).servers;
    expect(row?.detail).toBe(
      'Cannot start Bouncer: launcher "bouncer", which "/usr/bin/env" runs, is not on PATH: run bouncer init --undo, then bouncer init, to point the entry at a launcher that exists',
    );
  });

  test("doctorCommand names a wrapped entry's missing launcher as Bouncer's, not the upstream, with the fix", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    const gone = path.join(dir, "old", "tmpgate");
    const args = ["run", "--upstream-name", "fs", "--", "npx", "-y", "pkg"];
    writeFileSync(file, JSON.stringify({ mcpServers: { fs: { command: gone, args } } }));
    const result = await runBouncer("doctor", ["--config", file, "--json"], { cwd: dir });
    expect(result.code).toBe(1);
    const [row] = (JSON.parse(result.stdout) as { servers: Record<string, unknown>[] }).servers;
    expect(row?.status).toBe("error");
    expect(row?.detail).toBe(
      `Cannot start Bouncer: launcher "${gone}" does not exist or is not executable: run bouncer init --undo, then bouncer init, to point the entry at a launcher that exists`,
    );
  });

  test("doctorCommand --config on a missing file prints only the error and exits 2", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const result = await runBouncer("doctor", ["--config", path.join(dir, "nope.json")], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no such file");
    expect(result.stdout).toBe("");
  });

  test.each([
    [["--bogus"], 'unknown flag "--bogus"'],
    [["--client", "nope"], 'Unknown client "nope"'],
  ])("doctorCommand %j is a usage error (exit 2)", async (args, message) => {
    const result = await runBouncer("doctor", args, { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  test.skipIf(PROXY_MISSING)(
    "doctorCommand starts a wrapped filesystem server through bouncer run and lists its tools",
    async () => {
      const { dir, file, env } = project();
      const init = await runBouncer("init", ["--config", file, "--server", "fs", "--yes"], {
        cwd: dir,
        launcher: SOURCE,
      });
      expect(init.code).toBe(0);
      const result = await runBouncer("doctor", ["--config", file, "--json"], {
        cwd: dir,
        env,
        doctor: { timeoutMs: 30_000 },
      });
      const report = JSON.parse(result.stdout) as { servers: Record<string, unknown>[] };
      expect(report.servers[0]).toMatchObject({ server: "fs", wrapped: true, status: "started" });
      expect(report.servers[0]?.tools).toBeGreaterThan(5);
      expect(report.servers[0]?.analysis).toMatchObject({ packs: ["filesystem"] });
    },
  );

  test.skipIf(PROXY_MISSING)(
    "doctorCommand names the tools of a wrapped server that Bouncer holds back until reviewed (changed since pinned)",
    async () => {
      const dir = tempDir("bouncer-doctor-rug-");
      dirs.push(dir);
      const file = path.join(dir, ".mcp.json");
      const rug = { command: process.execPath, args: [RUG_PULL_SERVER] };
      writeFileSync(file, `${JSON.stringify({ mcpServers: { rug } }, null, 2)}\n`);
      const env = { PATH: "/usr/bin:/bin", HOME: dir, BOUNCER_HOME: path.join(dir, "bouncer-home") };
      const options = { cwd: dir, env, doctor: { timeoutMs: 30_000 } };
      expect(
        (await runBouncer("init", ["--config", file, "--yes"], { cwd: dir, launcher: SOURCE })).code,
      ).toBe(0);
      // First sight pins the honest definition: nothing is held back.
      const first = await runBouncer("doctor", ["--config", file, "--json"], options);
      expect(
        (JSON.parse(first.stdout) as { servers: Record<string, unknown>[] }).servers[0],
      ).not.toHaveProperty("pending");
      // The server changes between sessions (an environment variable: the same identity).
      const config = JSON.parse(readFileSync(file, "utf8")) as {
        mcpServers: { rug: Record<string, unknown> };
      };
      config.mcpServers.rug.env = { RUG_PULLED: "1" };
      writeFileSync(file, JSON.stringify(config, null, 2));
      const json = await runBouncer("doctor", ["--config", file, "--json"], options);
      const [row] = (JSON.parse(json.stdout) as { servers: Record<string, unknown>[] }).servers;
      expect(row).toMatchObject({ status: "started", pending: { server: "rug", tools: ["get_forecast"] } });
      const table = await runBouncer("doctor", ["--config", file], options);
      expect(table.stdout).toContain(
        `rug (${file}): 1 tool changed or new since pinned, held back until reviewed: get_forecast; see bouncer pins list rug\n`,
      );
    },
  );
});
