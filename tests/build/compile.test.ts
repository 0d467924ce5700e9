import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { compileArgs, DEFAULT_BYTECODE, NO_AUTOLOAD_FLAGS } from "../../scripts/build/compile.ts";
import { headerMismatch, readExecutableHeader, readHead } from "../../scripts/build/executable-header.ts";
import {
  type Built,
  buildExecutables,
  cleanEnv,
  exchange,
  FIXTURE_COMMAND,
  FIXTURES,
  ROOT,
  requireHostTarget,
  resultText,
  runToEnd,
} from "./harness.ts";

const VERSION: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const POLICY = join(FIXTURES, "policy.yaml");
const PACK_NAMES = readdirSync(join(ROOT, "packs"))
  .filter((name) => name.endsWith(".yaml"))
  .map((name) => name.slice(0, -".yaml".length));

let built: Built;

beforeAll(async () => {
  built = await buildExecutables();
  process.stderr.write(`compiled bouncer in ${built.ms.bouncer} ms, fixture in ${built.ms.fixture} ms\n`);
}, 120_000);

afterAll(() => {
  if (built !== undefined) rmSync(built.scratch, { recursive: true, force: true });
});

/**
 * A new empty folder inside the scratch root.
 * @param name - Its name.
 * @returns Its path.
 */
function emptyDir(name: string): string {
  const dir = join(built.scratch, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The `bouncer run` command line wrapping the fixture server by name, under `env -i`.
 * @param session - BOUNCER_SESSION for this run.
 * @returns The command line.
 */
function runCommandLine(session: string): string[] {
  return [
    ...cleanEnv(built, session),
    built.bouncer,
    "run",
    "--upstream-name",
    "mail",
    "--policy",
    POLICY,
    "--",
    FIXTURE_COMMAND,
  ];
}

describe("compileArgs()", () => {
  const windows = {
    ...requireHostTarget(),
    name: "windows-x64",
    bunTarget: "bun-windows-x64",
    file: "b.exe",
  };

  test("compileArgs() turns every autoload off, minifies and names the target and file", () => {
    const args = compileArgs(windows, { entry: "src/cli.ts", outDir: "dist" });
    expect(args.slice(0, 3)).toEqual(["build", "--compile", "--target=bun-windows-x64"]);
    for (const flag of [...NO_AUTOLOAD_FLAGS, "--minify"]) expect(args).toContain(flag);
    expect(args.slice(-3)).toEqual(["--outfile", join("dist", "b.exe"), "src/cli.ts"]);
  });

  test("compileArgs() adds --bytecode with --format=esm only when bytecode is on", () => {
    const on = compileArgs(windows, { entry: "e.ts", outDir: "d", bytecode: true });
    expect(on).toContain("--bytecode");
    expect(on).toContain("--format=esm");
    const off = compileArgs(windows, { entry: "e.ts", outDir: "d", bytecode: false, minify: false });
    expect(off.filter((arg) => ["--bytecode", "--format=esm", "--minify"].includes(arg))).toEqual([]);
    expect(compileArgs(windows, { entry: "e.ts", outDir: "d" }).includes("--bytecode")).toBe(
      DEFAULT_BYTECODE,
    );
  });
});

describe("compileTarget() host executable", () => {
  test("compileTarget() writes an executable with the host platform's header", () => {
    expect(headerMismatch(readExecutableHeader(readHead(built.bouncer)), requireHostTarget())).toBeNull();
  });

  test("the test PATH holds no node, bun or npx", () => {
    for (const name of ["node", "bun", "npx", "bunx", "deno"]) {
      expect(Bun.which(name, { PATH: built.bin })).toBeNull();
    }
    expect(readdirSync(built.bin)).toEqual([FIXTURE_COMMAND]);
  });

  test("bouncer --version prints the package.json version under env -i", async () => {
    const ran = await runToEnd([...cleanEnv(built, "version"), built.bouncer, "--version"], {
      cwd: emptyDir("v"),
    });
    expect(ran).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  test("bouncer check validates a policy under env -i and exits 2 on an invalid one", async () => {
    const cwd = emptyDir("check");
    const good = await runToEnd([...cleanEnv(built, "check"), built.bouncer, "check", "--policy", POLICY], {
      cwd,
    });
    expect(good.code).toBe(0);
    const bad = join(FIXTURES, "invalid-policy.yaml");
    const failed = await runToEnd([...cleanEnv(built, "check"), built.bouncer, "check", "--policy", bad], {
      cwd,
    });
    expect(failed.code).toBe(2);
    expect(`${failed.stdout}${failed.stderr}`).toContain('"alow"');
  });

  test("bouncer packs list run from an empty folder shows every pack of packs/", async () => {
    expect(PACK_NAMES.length).toBeGreaterThanOrEqual(6);
    const ran = await runToEnd([...cleanEnv(built, "packs"), built.bouncer, "packs", "list"], {
      cwd: emptyDir("empty"),
    });
    expect(ran.code).toBe(0);
    for (const name of PACK_NAMES) expect(ran.stdout).toContain(name);
  });

  test("bouncer replay decides a recorded session under env -i: the planted address is denied", async () => {
    const session = join(FIXTURES, "session.jsonl");
    const command = [
      ...cleanEnv(built, "replay"),
      built.bouncer,
      "replay",
      session,
      "--policy",
      POLICY,
      "--json",
    ];
    const ran = await runToEnd(command, { cwd: emptyDir("replay") });
    expect(ran.code).toBe(0);
    const lines = ran.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.slice(0, 3).map((line) => [line.tool, line.verdict])).toEqual([
      ["read_inbox", "allow"],
      ["send_message", "allow"],
      ["send_message", "deny"],
    ]);
    expect(lines[3]).toEqual({ summary: { calls: 3, allow: 2, deny: 1, ask: 0 } });
  });
});

describe("bouncer run from the compiled executable", () => {
  test("bouncer run wrapping a compiled server forwards a trusted send and blocks a tainted one", async () => {
    const transport = new StdioClientTransport({
      command: runCommandLine("run")[0]!,
      args: runCommandLine("run").slice(1),
      cwd: emptyDir("run"),
      stderr: "ignore",
    });
    const client = new Client({ name: "bouncer-build-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(names).toEqual(["env_value", "read_inbox", "send_message", "sent_log"]);
      const allowed = await client.callTool({ name: "send_message", arguments: { to: "boss@corp.example" } });
      expect(allowed.isError ?? false).toBeFalse();
      expect(allowed.content).toEqual([{ type: "text", text: "sent" }]);
      await client.callTool({ name: "read_inbox", arguments: {} });
      const denied = await client.callTool({
        name: "send_message",
        arguments: { to: "attacker@evil.example" },
      });
      expect(denied.isError).toBeTrue();
      expect(JSON.stringify(denied.content)).toContain("[bouncer blocked]");
      const log = await client.callTool({ name: "sent_log", arguments: {} });
      expect(log.content).toEqual([{ type: "text", text: JSON.stringify(["boss@corp.example"]) }]);
    } finally {
      await client.close();
    }
  });
});

describe("bouncer init from the compiled executable", () => {
  const CONFIG =
    '{\n  "mcpServers": {\n    "mail": { "command": "bouncer-fixture-mail", "args": [] }\n  }\n}\n';

  /**
   * Runs `bouncer init --config .mcp.json --yes` in a new project folder under `env -i`.
   * @param name - The project folder's name.
   * @param path - The PATH of the run.
   * @returns The launcher written as the entry's command, and the entry's args.
   */
  async function initWith(name: string, path: string): Promise<{ command: unknown; args: unknown }> {
    const dir = emptyDir(name);
    writeFileSync(join(dir, ".mcp.json"), CONFIG);
    const env = ["/usr/bin/env", "-i", `PATH=${path}`, `HOME=${built.home}`, `BOUNCER_HOME=${built.home}`];
    const ran = await runToEnd([...env, built.bouncer, "init", "--config", ".mcp.json", "--yes"], {
      cwd: dir,
    });
    expect(ran.code).toBe(0);
    const entry = JSON.parse(readFileSync(join(dir, ".mcp.json"), "utf8")).mcpServers.mail;
    return { command: entry.command, args: entry.args };
  }

  test("bouncer init writes the bouncer found on PATH (a Homebrew-style symlink, unresolved) as the launcher", async () => {
    const shims = emptyDir("shims");
    symlinkSync(built.bouncer, join(shims, "bouncer"));
    const written = await initWith("init-shim", `${shims}:${built.bin}`);
    expect(written).toEqual({
      command: join(shims, "bouncer"),
      args: ["run", "--upstream-name", "mail", "--", "bouncer-fixture-mail"],
    });
  });

  test("bouncer init writes the executable's own absolute path when no bouncer is on PATH", async () => {
    const written = await initWith("init-direct", built.bin);
    expect(written.command).toBe(built.bouncer);
  });
});

describe("compiled executable in a hostile folder", () => {
  const DOTENV_KEY = "BOUNCER_BUILD_TEST_DOTENV";

  /**
   * A folder holding a `.env` and a `bunfig.toml` whose preload writes `marker.txt` beside it.
   * @returns The folder.
   */
  function hostileDir(): string {
    const dir = emptyDir("hostile");
    writeFileSync(join(dir, ".env"), `${DOTENV_KEY}=from-dotenv\n`);
    writeFileSync(join(dir, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
    writeFileSync(
      join(dir, "preload.ts"),
      'await Bun.write(new URL("./marker.txt", import.meta.url), "ran");\n',
    );
    rmSync(join(dir, "marker.txt"), { force: true });
    return dir;
  }

  const ENV_CALL = [
    {
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    },
    { method: "notifications/initialized" },
    { id: 2, method: "tools/call", params: { name: "env_value", arguments: { name: DOTENV_KEY } } },
  ];

  test("a Bun executable built without the flags loads that .env and runs that preload (control)", async () => {
    const dir = hostileDir();
    const control = join(built.scratch, "control-mail");
    const source = join(FIXTURES, "mail-server.ts");
    const compiled = Bun.spawnSync([process.execPath, "build", "--compile", source, "--outfile", control], {
      cwd: ROOT,
    });
    expect(compiled.exitCode).toBe(0);
    const responses = await exchange([...cleanEnv(built, "control"), control], ENV_CALL, { cwd: dir });
    expect(resultText(responses.get(2))).toBe("from-dotenv");
    expect(existsSync(join(dir, "marker.txt"))).toBeTrue();
    expect(NO_AUTOLOAD_FLAGS).toContain("--no-compile-autoload-dotenv");
  });

  test("bouncer run started there neither passes the .env values upstream nor runs the preload", async () => {
    const dir = hostileDir();
    const responses = await exchange(runCommandLine("hostile"), ENV_CALL, { cwd: dir });
    expect(responses.get(2)?.error).toBeUndefined();
    expect(resultText(responses.get(2))).toBe("(unset)");
    expect(existsSync(join(dir, "marker.txt"))).toBeFalse();
  });

  test("bouncer --version and check started there run no preload", async () => {
    const dir = hostileDir();
    expect((await runToEnd([...cleanEnv(built, "h"), built.bouncer, "--version"], { cwd: dir })).code).toBe(
      0,
    );
    const check = await runToEnd([...cleanEnv(built, "h"), built.bouncer, "check", "--policy", POLICY], {
      cwd: dir,
    });
    expect(check.code).toBe(0);
    expect(existsSync(join(dir, "marker.txt"))).toBeFalse();
  });
});
