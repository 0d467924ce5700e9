import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sourceCliPath, sourceRuntimeFlags } from "../../src/init/launcher.ts";
import type { Launcher } from "../../src/init/types.ts";
import { placeSample, runBouncer, tempDir } from "./run-helpers.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const SOURCE: Launcher = {
  command: process.execPath,
  prefixArgs: [...sourceRuntimeFlags("bun", sourceCliPath(), process.platform), sourceCliPath()],
};

/**
 * What `npm link` of a checkout puts on PATH: `bin/bouncer`, a symbolic link to a `src/cli.ts` whose
 * first line is `#!/usr/bin/env bun`.
 * @param dir - A temporary folder.
 * @returns The PATH folder and the link.
 */
function npmLinked(dir: string): { bin: string; script: string } {
  const bin = path.join(dir, "npm", "bin");
  mkdirSync(path.join(dir, "npm", "checkout", "src"), { recursive: true });
  mkdirSync(bin);
  const cli = path.join(dir, "npm", "checkout", "src", "cli.ts");
  writeFileSync(cli, "#!/usr/bin/env bun\n", { mode: 0o755 });
  symlinkSync(cli, path.join(bin, "bouncer"));
  return { bin, script: path.join(bin, "bouncer") };
}

/** A temporary Claude Desktop config from a sample. */
function setup(sample = "claude-desktop.claude_desktop_config.json"): { dir: string; file: string } {
  const dir = tempDir();
  dirs.push(dir);
  return { dir, file: placeSample(sample, { dir: dir, relative: "claude_desktop_config.json" }) };
}

/**
 * A temporary Claude Desktop config with one entry `fs` wrapped by this checkout's CLI.
 * @param runFlags - Flags of `bouncer run` after `--upstream-name fs`.
 * @returns The folder and the config file.
 */
function wrappedConfig(runFlags: readonly string[]): { dir: string; file: string } {
  const dir = tempDir();
  dirs.push(dir);
  const file = path.join(dir, "claude_desktop_config.json");
  const args = [...SOURCE.prefixArgs, "run", "--upstream-name", "fs", ...runFlags, "--", "npx", "-y", "pkg"];
  writeFileSync(file, JSON.stringify({ mcpServers: { fs: { command: SOURCE.command, args } } }, null, 2));
  return { dir, file };
}

describe("runCheck()", () => {
  test("init --check lists an unwrapped server and exits 1", async () => {
    const { dir, file } = setup();
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^STATUS +SERVER +FILE +DETAIL\nnot wrapped +filesystem +/);
    expect(result.stderr).toContain(`1 server(s) need attention: run bouncer init --config=${file}\n`);
  });

  test("init --check advises the init command with the --config and --server it was given, each one shell word", async () => {
    const { dir, file } = setup();
    const result = await runBouncer("init", ["--check", "--config", file, "--server", "filesystem"], {
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `1 server(s) need attention: run bouncer init --config=${file} --server=filesystem\n`,
    );
    const odd = path.join(dir, "my config.json");
    writeFileSync(odd, readFileSync(file));
    const quoted = await runBouncer("init", ["--check", "--config", odd], { cwd: dir });
    expect(quoted.stderr).toContain(`run bouncer init '--config=${odd}'\n`);
  });

  test("init --check on a config with no servers says nothing was checked (no empty table, no 'every server is wrapped')", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, "claude_desktop_config.json");
    writeFileSync(file, JSON.stringify({ mcpServers: {} }));
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("No MCP servers in the selected configs: nothing to check");
    expect(result.stderr).not.toContain("Every stdio server is wrapped");
  });

  test("init --check flags an entry that runs bouncer run in a form it cannot read", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, "claude_desktop_config.json");
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { b: { command: "bouncer", args: ["run", "--", "npx"] } } }),
    );
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/wrapping unreadable +b +/);
  });

  test("init --check --server with a name no config holds exits 2, as init does", async () => {
    const { dir, file } = wrappedConfig([]);
    const result = await runBouncer("init", ["--check", "--config", file, "--server", "nope"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No server named "nope"');
    expect(result.stderr).not.toContain("Every stdio server is wrapped");
  });

  test("init --check exits 0 once every stdio server is wrapped with a launcher that exists", async () => {
    const { dir, file } = setup("edge/claude-desktop-windows.SYNTHETIC.json");
    expect((await runBouncer("init", ["--config", file, "--yes"], { cwd: dir, launcher: SOURCE })).code).toBe(
      0,
    );
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^wrapped /gm)).toHaveLength(2);
  });

  test("init --check reports entries that lost their wrapping when the client rewrote the file", async () => {
    const { dir, file } = setup();
    expect((await runBouncer("init", ["--config", file, "--yes"], { cwd: dir, launcher: SOURCE })).code).toBe(
      0,
    );
    const config = JSON.parse(readFileSync(file, "utf8"));
    const entry = config.mcpServers.filesystem;
    entry.command = entry["x-bouncer-upstream"].command;
    entry.args = entry["x-bouncer-upstream"].args;
    writeFileSync(file, JSON.stringify(config, null, 2));
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\nlost its wrapping +filesystem +/);
  });

  test("init --check reports a from-source launcher an older init wrote, which lets Bun read the project's .env and bunfig.toml", async () => {
    const { dir, file } = setup();
    const older: Launcher = { command: process.execPath, prefixArgs: [sourceCliPath()] };
    expect((await runBouncer("init", ["--config", file, "--yes"], { cwd: dir, launcher: older })).code).toBe(
      0,
    );
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\nlauncher unsafe +filesystem +/);
    expect(result.stdout).toContain("lets Bun read the project folder's .env and bunfig.toml");
  });

  test("init passes over a bouncer on PATH that npm link made (a script run by bun), names the launcher it writes, and --check accepts it", async () => {
    const { dir, file } = setup();
    const { bin, script } = npmLinked(dir);
    const compiled = path.join(dir, "dist", "bouncer-linux-x64");
    mkdirSync(path.dirname(compiled));
    writeFileSync(compiled, "\u007fELF", { mode: 0o755 });
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    const options = { cwd: dir, env, execPath: compiled, cliPath: "/$bunfs/root/cli.ts", findLauncher: true };
    const result = await runBouncer("init", ["--config", file, "--yes"], options);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `Launcher written: "${compiled}", not "${script}" found on PATH: that is a script run by bun, which would read the .env and bunfig.toml of the folder a client starts it in\n`,
    );
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.filesystem.command).toBe(compiled);
    expect((await runBouncer("init", ["--check", "--config", file], { cwd: dir, env })).code).toBe(0);
  });

  test("init --check reports a launcher that is a script run by bun (npm link), which reads the project's .env", async () => {
    const { dir, file } = setup();
    const linked: Launcher = { command: npmLinked(dir).script, prefixArgs: [] };
    const wrote = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir, launcher: linked });
    expect(wrote.code).toBe(0);
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\nlauncher unsafe +filesystem +/);
    expect(result.stdout).toContain(`launcher "${linked.command}" is a script run by bun without the flags`);
    expect(result.stdout).toContain("run bouncer init --undo, then bouncer init");
  });

  test("init --check reports a launcher that no longer exists", async () => {
    const { dir, file } = setup();
    const gone: Launcher = { command: `${dir}/old-bouncer/bin/bouncer`, prefixArgs: [] };
    expect((await runBouncer("init", ["--config", file, "--yes"], { cwd: dir, launcher: gone })).code).toBe(
      0,
    );
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`launcher missing  filesystem`);
    expect(result.stdout).toContain(
      `launcher "${gone.command}" does not exist or is not executable: run bouncer init --undo, then bouncer init, to point the entry at a launcher that exists`,
    );
  });

  test("init --check reports an entry whose x-bouncer-upstream disagrees with the command after --, which --undo refuses", async () => {
    const { dir, file } = wrappedConfig([]);
    const config = JSON.parse(readFileSync(file, "utf8"));
    config.mcpServers.fs["x-bouncer-upstream"] = { command: "npx", args: ["-y", "other-pkg"] };
    writeFileSync(file, JSON.stringify(config, null, 2));
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("stash disagrees  fs");
    expect(result.stdout).toContain(
      'the command after "--" (what the client runs) disagrees with x-bouncer-upstream, so bouncer init --undo refuses it: make them agree by hand',
    );
    const undo = await runBouncer("init", ["--undo", "--config", file, "--yes"], { cwd: dir });
    expect(undo.stderr).toContain('"fs": the command after "--" disagrees with x-bouncer-upstream');
  });

  test("init --check counts an entry whose x-bouncer-upstream agrees with the command after -- as wrapped", async () => {
    const { dir, file } = wrappedConfig([]);
    const config = JSON.parse(readFileSync(file, "utf8"));
    config.mcpServers.fs["x-bouncer-upstream"] = { command: "npx", args: ["-y", "pkg"] };
    writeFileSync(file, JSON.stringify(config, null, 2));
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.stdout).toMatch(/\nwrapped +fs +/);
    expect(result.code).toBe(0);
  });

  test.each([
    ["not on PATH", [], "", 'launcher "bouncer", which "/usr/bin/env" runs, is not on PATH'],
    [
      "on the PATH env is given, not the environment's",
      ["PATH=/nonexistent"],
      "bin",
      'launcher "bouncer", which "/usr/bin/env" runs, is not on PATH',
    ],
  ] as const)(
    "init --check reports a /usr/bin/env bouncer launcher whose bouncer is %s",
    async (_how, envArgs, onPath, message) => {
      const dir = tempDir();
      dirs.push(dir);
      const bin = path.join(dir, "bin");
      mkdirSync(bin);
      writeFileSync(path.join(bin, "bouncer"), "#!/bin/sh\n", { mode: 0o755 });
      const file = path.join(dir, "claude_desktop_config.json");
      const args = [...envArgs, "bouncer", "run", "--upstream-name", "fs", "--", "npx", "-y", "pkg"];
      writeFileSync(file, JSON.stringify({ mcpServers: { fs: { command: "/usr/bin/env", args } } }));
      const PATH = onPath === "" ? "/usr/bin:/bin" : `${bin}:/usr/bin:/bin`;
      const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir, env: { PATH } });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain("launcher missing  fs");
      expect(result.stdout).toContain(`${message}: run bouncer init --undo, then bouncer init`);
    },
  );

  test.each([
    ["/usr/bin/env", ["bouncer"], 'launcher "bouncer", which "/usr/bin/env" runs, is not on PATH'],
    ["bouncer", [], 'launcher "bouncer" is not on PATH'],
  ] as const)(
    "init --check looks the launcher %s up on the entry's own env.PATH, as its client starts it",
    async (command, prefix, message) => {
      // The client starts the server with the entry's `env`: its PATH, not Bouncer's, is searched.
      const dir = tempDir();
      dirs.push(dir);
      const bin = path.join(dir, "bin");
      mkdirSync(bin);
      writeFileSync(path.join(bin, "bouncer"), "#!/bin/sh\n", { mode: 0o755 });
      const file = path.join(dir, "claude_desktop_config.json");
      const args = [...prefix, "run", "--upstream-name", "NAME", "--", "npx", "-y", "pkg"];
      const entry = (name: string, PATH: string) => ({
        command,
        args: args.map((arg) => (arg === "NAME" ? name : arg)),
        env: { PATH },
      });
      const servers = { lacking: entry("lacking", "/usr/bin:/bin"), having: entry("having", bin) };
      writeFileSync(file, JSON.stringify({ mcpServers: servers }));
      for (const PATH of [`${bin}:/usr/bin:/bin`, "/usr/bin:/bin"]) {
        const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir, env: { PATH } });
        expect(result.code).toBe(1);
        expect(result.stdout).toContain(`launcher missing  lacking  ${file}  ${message}: run bouncer init`);
        expect(result.stdout).toMatch(/\nwrapped +having +/);
      }
    },
  );

  test("init --check counts a /usr/bin/env bouncer launcher as wrapped when bouncer is on PATH", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const bin = path.join(dir, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "bouncer"), "#!/bin/sh\n", { mode: 0o755 });
    const file = path.join(dir, "claude_desktop_config.json");
    const args = ["-u", "X", "bouncer", "run", "--upstream-name", "fs", "--", "npx", "-y", "pkg"];
    writeFileSync(file, JSON.stringify({ mcpServers: { fs: { command: "/usr/bin/env", args } } }));
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir, env });
    expect(result.stdout).toMatch(/\nwrapped +fs +/);
    expect(result.code).toBe(0);
  });

  test("init on an entry whose launcher no longer exists warns with the fix, and --undo then init repoints it", async () => {
    const { dir, file } = setup();
    const gone: Launcher = { command: `${dir}/old-bouncer/bin/bouncer`, prefixArgs: [] };
    expect((await runBouncer("init", ["--config", file, "--yes"], { cwd: dir, launcher: gone })).code).toBe(
      0,
    );
    const again = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(
      `  warning: "filesystem": launcher "${gone.command}" does not exist or is not executable: run bouncer init --undo, then bouncer init, to point the entry at a launcher that exists\n`,
    );
    expect(again.stderr).toContain("Nothing to change");
    // The fix the warning gives works: the entry is unwrapped, then wrapped with a launcher that exists.
    expect((await runBouncer("init", ["--undo", "--config", file, "--yes"], { cwd: dir })).code).toBe(0);
    expect((await runBouncer("init", ["--config", file, "--yes"], { cwd: dir, launcher: SOURCE })).code).toBe(
      0,
    );
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.filesystem.command).toBe(SOURCE.command);
    expect((await runBouncer("init", ["--check", "--config", file], { cwd: dir })).code).toBe(0);
  });

  /** A temporary Claude Desktop config with the given servers. */
  function serversConfig(mcpServers: object): { dir: string; file: string } {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, "claude_desktop_config.json");
    writeFileSync(file, JSON.stringify({ mcpServers }, null, 2));
    return { dir, file };
  }

  const UNCHECKED = "calls reach the server unchecked";
  test.each([
    ['a server named ""', { "": { command: "node" } }, "cannot be wrapped: the server name is empty"],
    ["args holding a number", { s: { command: "node", args: ["x.js", 8080] } }, "cannot be wrapped: args is"],
    ["args that is a string", { s: { command: "node", args: "x.js" } }, "cannot be wrapped: args is"],
    ["a server named constructor", { constructor: { command: "node" } }, UNCHECKED],
    ["a server named __proto__", JSON.parse('{"__proto__": {"command": "node"}}'), UNCHECKED],
    [
      "type stdio beside a url",
      { s: { type: "stdio", command: "node", url: "https://x.example" } },
      UNCHECKED,
    ],
    ["an empty url beside a command", { s: { command: "node", url: "" } }, UNCHECKED],
    ["a null url beside a command", { s: { command: "node", url: null } }, UNCHECKED],
    ["a url beside a command, no type", { s: { command: "node", url: "https://x.example" } }, UNCHECKED],
    [
      "a serverUrl beside a command, no type",
      { s: { command: "node", serverUrl: "https://x.example" } },
      UNCHECKED,
    ],
  ])("init --check lists %s as not wrapped and exits 1", async (_, servers, detail) => {
    const { dir, file } = serversConfig(servers);
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\nnot wrapped +/);
    expect(result.stdout).toContain(detail);
    expect(result.stderr).not.toContain("Every stdio server is wrapped");
  });

  test("init wraps every stdio server it can, refuses the others with the reason, and --check still lists those", async () => {
    const { dir, file } = serversConfig({
      "": { command: "node" },
      numbers: { command: "node", args: ["x.js", 8080] },
      constructor: { command: "node" },
      typed: { type: "stdio", command: "node", url: "https://x.example" },
      blank: { command: "node", url: "" },
      both: { command: "node", args: ["s.js"], url: "https://x.example/mcp" },
    });
    const init = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir, launcher: SOURCE });
    expect(init.stderr).toContain('wrap "both" (it has a "url" too');
    expect(init.code).toBe(1);
    expect(init.stderr).toContain('refused: "" cannot be wrapped: the server name is empty');
    expect(init.stderr).toContain('refused: "numbers" cannot be wrapped: args is not a list of strings');
    const servers = JSON.parse(readFileSync(file, "utf8")).mcpServers;
    for (const name of ["constructor", "typed", "blank", "both"])
      expect(servers[name].command).toBe(SOURCE.command);
    expect(servers.both.url).toBe("https://x.example/mcp");
    expect(servers.numbers.command).toBe("node");
    const check = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout.match(/^not wrapped /gm)).toHaveLength(2);
    expect(check.stdout.match(/^wrapped /gm)).toHaveLength(4);
    expect(check.stderr).toContain("2 server(s) need attention\n");
  });

  test("init --check counts remote servers as skipped, not as problems", async () => {
    const { dir, file } = setup("edge/cursor-remote-url-only.mcp.json");
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nskipped +Sentry +.+ remote server \(url\)\n/);
    expect(result.stderr).toContain("No stdio servers in the selected configs");
    expect(result.stderr).not.toContain("Every stdio server is wrapped");
  });

  test("init --check exits 2 on a file that does not parse", async () => {
    const { dir, file } = setup("edge/truncated.SYNTHETIC.json");
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("line 7, column 9");
  });

  test.each([
    [["--mode", "audit"], "(--mode audit)"],
    [["--mode=audit"], "(--mode audit)"],
    [["--pins", "off"], "(--pins off)"],
    [["--mode", "audit", "--pins", "off"], "(--mode audit, --pins off)"],
  ])(
    "init --check lists an entry wrapped with %j as wrapped, not enforcing, and exits 1",
    async (flags, detail) => {
      const { dir, file } = wrappedConfig(flags);
      const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/\nwrapped, not enforcing +fs +/);
      expect(result.stdout).toContain(detail);
      expect(result.stderr).not.toContain("Every stdio server is wrapped");
    },
  );

  test("init --check counts an entry wrapped with --mode enforce and --pins strict as wrapped", async () => {
    const { dir, file } = wrappedConfig(["--mode", "enforce", "--pins", "strict"]);
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nwrapped +fs +/);
  });

  test("init --check reports an entry whose policy file is missing and exits 1", async () => {
    const policyDir = tempDir();
    dirs.push(policyDir);
    const gone = path.join(policyDir, "gone.yaml");
    const { dir, file } = wrappedConfig(["--policy", gone]);
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\npolicy unreadable +fs +/);
    expect(result.stdout).toContain(`Cannot read policy "${gone}": no such file`);
  });

  test("init --check reports an entry whose policy file is invalid, with file:line:column, and exits 1", async () => {
    const policyDir = tempDir();
    dirs.push(policyDir);
    const policy = path.join(policyDir, "bouncer.yaml");
    writeFileSync(policy, "version: 1\ntools:\n  read_file:\n    alow: true\n");
    const { dir, file } = wrappedConfig(["--policy", policy]);
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\npolicy invalid +fs +/);
    expect(result.stdout).toContain(`${policy}:4:5: unknown key "alow"`);
  });

  test("init --check counts an entry whose policy file is valid as wrapped", async () => {
    const policyDir = tempDir();
    dirs.push(policyDir);
    const policy = path.join(policyDir, "bouncer.yaml");
    writeFileSync(policy, "version: 1\n");
    const { dir, file } = wrappedConfig(["--policy", policy]);
    const result = await runBouncer("init", ["--check", "--config", file], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nwrapped +fs +/);
  });

  test.each([
    ["a missing file", (dir: string): string => path.join(dir, "missing.json")],
    [
      "a directory",
      (dir: string): string => {
        mkdirSync(path.join(dir, "folder.json"));
        return path.join(dir, "folder.json");
      },
    ],
  ])("init --check --config with %s exits 2 and never says every server is wrapped", async (_, make) => {
    const dir = tempDir();
    dirs.push(dir);
    const result = await runBouncer("init", ["--check", "--config", make(dir)], { cwd: dir });
    expect(result.code).toBe(2);
    expect(`${result.stdout}${result.stderr}`).not.toContain("Every stdio server is wrapped");
    expect(result.stderr).toContain("bouncer: ");
  });
});
