import { afterAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLIENTS, detectClient } from "../../src/init/client-table.ts";
import { findLauncher, sourceCliPath } from "../../src/init/launcher.ts";
import { planInit } from "../../src/init/plan.ts";
import { backupsOf, NOW, placeSample, runBouncer, tempDir } from "./run-helpers.ts";
import { BREW_LAUNCHER, sampleText } from "./samples.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A temporary project with the Claude Desktop sample as `claude_desktop_config.json`. */
function desktopConfig(sample = "claude-desktop.claude_desktop_config.json"): {
  dir: string;
  file: string;
  before: string;
} {
  const dir = tempDir();
  dirs.push(dir);
  const file = placeSample(sample, { dir: dir, relative: "claude_desktop_config.json" });
  return { dir, file, before: readFileSync(file, "utf8") };
}

describe("initCommand writes only when allowed", () => {
  test("initCommand --dry-run prints the masked diff and writes nothing", async () => {
    const { dir, file, before } = desktopConfig();
    const result = await runBouncer("init", ["--config", file, "--dry-run"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('+      "command": "/opt/homebrew/bin/bouncer",');
    expect(result.stderr).toContain("Dry run: nothing written");
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(backupsOf(file)).toEqual([]);
  });

  test("initCommand --dry-run masks secrets in the diff's unchanged lines too (client tokens, remote servers' URLs)", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, ".claude.json");
    const config = {
      oauthAccount: { accessToken: "abcdef0123456789abcdef0123456789" },
      password: "hunter2hunter2",
      mcpServers: {
        remote: { url: "https://mcp.example.com/mcp?api_key=abc123def456ghi" },
        sse: { type: "sse", url: "https://user:pa55word@x.example/sse" },
        local: { command: "npx", args: ["-y", "some-server"] },
      },
    };
    writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
    const result = await runBouncer("init", ["--config", file, "--dry-run"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("+++");
    for (const secret of [
      "abcdef0123456789abcdef0123456789",
      "hunter2hunter2",
      "abc123def456ghi",
      "pa55word",
    ]) {
      expect(result.stdout).not.toContain(secret);
    }
  });

  test("initCommand --dry-run masks values nested under a secret-named key and secret numbers, not a server named auth", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    const config = {
      credentials: { github: "plainsecretvalue8" },
      apiKey: 987654321,
      mcpServers: { auth: { command: "npx", args: ["-y", "auth-server"] } },
    };
    writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
    const result = await runBouncer("init", ["--config", file, "--dry-run"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("plainsecretvalue8");
    expect(result.stdout).not.toContain("987654321");
    expect(result.stdout).toContain('"auth-server"');
  });

  test("initCommand --dry-run shows the value after a flag that merely contains 'pass' (--pass-environment)", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    const config = {
      mcpServers: { git: { command: "mcp-proxy", args: ["--pass-environment", "/srv/git-mcp"] } },
    };
    writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
    const result = await runBouncer("init", ["--config", file, "--dry-run"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"/srv/git-mcp"');
  });

  test("initCommand --dry-run masks a model provider's bearer token beside the servers of a Codex config", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, "config.toml");
    writeFileSync(
      file,
      '[model_providers.azure]\nexperimental_bearer_token = "azkey0123456789abcdef"\n\n[mcp_servers.local]\ncommand = "npx"\nargs = ["-y", "some-server"]\n',
    );
    const result = await runBouncer("init", ["--config", file, "--dry-run"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("experimental_bearer_token");
    expect(result.stdout).not.toContain("azkey0123456789abcdef");
  });

  test("initCommand without --yes and without a terminal writes nothing and exits 2", async () => {
    const { dir, file, before } = desktopConfig();
    const result = await runBouncer("init", ["--config", file], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Not written: run again with --yes to write");
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  test.each<[boolean | "interrupted", number, boolean]>([
    [false, 0, false],
    [true, 0, true],
    ["interrupted", 130, false],
  ])("initCommand on a terminal answered %p exits %i (written: %p)", async (answer, code, written) => {
    const { dir, file, before } = desktopConfig();
    const questions: string[] = [];
    const confirm = async (question: string): Promise<boolean | "interrupted"> => {
      questions.push(question);
      return answer;
    };
    const result = await runBouncer("init", ["--config", file], { cwd: dir, interactive: true, confirm });
    expect(result.code).toBe(code);
    expect(questions).toEqual(["Write 1 file? [y/N] "]);
    expect(readFileSync(file, "utf8") !== before).toBe(written);
    expect(result.stderr.includes("Nothing written\n")).toBe(answer === false);
    expect(result.stderr.includes("Interrupted: nothing written\n")).toBe(answer === "interrupted");
    expect(backupsOf(file).length > 0).toBe(written);
  });

  test("initCommand --yes writes atomically with a backup and keeps the file mode", async () => {
    const { dir, file, before } = desktopConfig();
    const result = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir });
    expect(result.code).toBe(0);
    const backups = backupsOf(file);
    expect(backups).toEqual([
      `claude_desktop_config.json.bouncer-backup-${NOW.toISOString().replace(/[-:.]/g, "")}`,
    ]);
    expect(readFileSync(path.join(dir, backups[0] ?? ""), "utf8")).toBe(before);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = JSON.parse(readFileSync(file, "utf8"));
    expect(written.mcpServers.filesystem.command).toBe(BREW_LAUNCHER.command);
    expect(written.preferences.sidebarMode).toBe("task");
  });

  test("initCommand run twice changes nothing the second time, and --undo restores the original bytes", async () => {
    const { dir, file, before } = desktopConfig("edge/claude-desktop-windows.SYNTHETIC.json");
    expect((await runBouncer("init", ["--config", file, "--yes"], { cwd: dir })).code).toBe(0);
    const wrapped = readFileSync(file, "utf8");
    const second = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir });
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('"filesystem" is already wrapped');
    expect(second.stderr).toContain("Nothing to change");
    expect(readFileSync(file, "utf8")).toBe(wrapped);
    expect(backupsOf(file)).toHaveLength(1);
    const undo = await runBouncer("init", ["--undo", "--config", file, "--yes"], { cwd: dir });
    expect(undo.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  test("initCommand refuses to write when the file changed after it was read", async () => {
    const { dir, file } = desktopConfig();
    const confirm = async (): Promise<boolean> => {
      writeFileSync(file, '{"mcpServers": {}}\n');
      return true;
    };
    const result = await runBouncer("init", ["--config", file], { cwd: dir, interactive: true, confirm });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("it changed since it was read");
    expect(readFileSync(file, "utf8")).toBe('{"mcpServers": {}}\n');
    expect(backupsOf(file)).toEqual([]);
  });
});

describe("initCommand refuses what it cannot edit safely", () => {
  test.each([
    ["edge/truncated.SYNTHETIC.json", "line 7, column 9: unexpected end of string"],
    ["edge/not-json.SYNTHETIC.json", "line 1, column 1: invalid symbol"],
  ])(
    "initCommand refuses %s with line:column, exit 2, and leaves it byte-identical",
    async (sample, message) => {
      const { dir, file, before } = desktopConfig(sample);
      const result = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`Cannot read client config "${file}": ${message}`);
      expect(result.stderr).toContain("Nothing written");
      expect(readFileSync(file, "utf8")).toBe(before);
      expect(backupsOf(file)).toEqual([]);
    },
  );

  test("initCommand says a file has no server section and exits 2", async () => {
    const { dir, file } = desktopConfig();
    writeFileSync(file, '{"preferences": {}}\n');
    const result = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Cannot use "${file}": it has no MCP server section ("mcpServers")`);
  });

  test("initCommand leaves a file of remote servers untouched, exits 0 and says why", async () => {
    const { dir, file, before } = desktopConfig("edge/cursor-remote-url-only.mcp.json");
    const result = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('"Sentry" is a remote server (url): not wrapped');
    expect(result.stderr).toContain("Nothing to change");
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  test.each([
    [["--bogus"], 'unknown flag "--bogus"'],
    [["--config", "a.json", "--client", "cursor"], "give --config or --client, not both"],
    [["--client", "emacs"], 'Unknown client "emacs"'],
    [["--check", "--undo"], '--check": --undo does not apply'],
    [["--check", "--policy", "p.yaml"], '--check": --policy does not apply'],
    [["--check", "--undo", "--policy", "p.yaml"], '--check": --undo and --policy do not apply'],
    [["--check", "--yes"], '--check": --yes does not apply'],
    [["--check", "--dry-run"], '--check": --dry-run does not apply'],
    [["--check", "--undo", "--dry-run", "--yes"], '--check": --undo, --dry-run and --yes do not apply'],
    [["--undo", "--policy", "p.yaml"], "--policy only applies when wrapping"],
    [["--config", "a.json", "--config", "b.json"], "give --config once"],
    [["extra"], 'unexpected argument "extra"'],
  ])("initCommand %j is a usage error (exit 2)", async (args, message) => {
    const dir = tempDir();
    dirs.push(dir);
    const result = await runBouncer("init", args, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  test("initCommand refuses a missing policy file and an unknown --server name", async () => {
    const { dir, file, before } = desktopConfig();
    const policy = await runBouncer("init", ["--config", file, "--policy", "missing.yaml", "--yes"], {
      cwd: dir,
    });
    expect(policy.code).toBe(2);
    expect(policy.stderr).toContain('Cannot read policy "missing.yaml": no such file');
    const server = await runBouncer("init", ["--config", file, "--server", "nope", "--yes"], { cwd: dir });
    expect(server.code).toBe(2);
    expect(server.stderr).toContain('No server named "nope"');
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  test("initCommand refuses an invalid --policy file with file:line:column and writes nothing", async () => {
    const { dir, file, before } = desktopConfig();
    writeFileSync(path.join(dir, "bad.yaml"), "version: 1\ntools:\n  read_file:\n    alow: true\n");
    const result = await runBouncer("init", ["--config", file, "--policy", "bad.yaml", "--yes"], {
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.yaml:4:5: unknown key "alow"');
    expect(result.stderr).toContain("nothing written");
    expect(result.stdout).toBe("");
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(backupsOf(file)).toEqual([]);
  });

  test("initCommand refuses a --policy that is a directory and writes nothing", async () => {
    const { dir, file, before } = desktopConfig();
    mkdirSync(path.join(dir, "policy.yaml"));
    const result = await runBouncer("init", ["--config", file, "--policy", "policy.yaml", "--yes"], {
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Cannot read policy "policy.yaml": it is a folder, not a file (EISDIR)');
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  test("initCommand writes --policy files as absolute paths", async () => {
    const { dir, file } = desktopConfig();
    writeFileSync(path.join(dir, "bouncer.yaml"), "version: 1\n");
    const result = await runBouncer("init", ["--config", file, "--policy", "bouncer.yaml", "--yes"], {
      cwd: dir,
    });
    expect(result.code).toBe(0);
    const args = JSON.parse(readFileSync(file, "utf8")).mcpServers.filesystem.args as string[];
    expect(args.slice(0, 6)).toEqual([
      "run",
      "--upstream-name",
      "filesystem",
      "--policy",
      path.join(dir, "bouncer.yaml"),
      "--",
    ]);
  });

  test("initCommand --policy on a server already wrapped with other policies says it is not applied and exits 1", async () => {
    const { dir, file } = desktopConfig();
    writeFileSync(path.join(dir, "bouncer.yaml"), "version: 1\n");
    expect((await runBouncer("init", ["--config", file, "--yes"], { cwd: dir })).code).toBe(0);
    const wrapped = readFileSync(file, "utf8");
    const again = await runBouncer("init", ["--config", file, "--policy", "bouncer.yaml", "--yes"], {
      cwd: dir,
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      'refused: "filesystem" is already wrapped, with no --policy: --policy is not applied to it',
    );
    expect(again.stderr).toContain("bouncer: Nothing written");
    expect(again.stderr).not.toContain("Nothing to change");
    expect(readFileSync(file, "utf8")).toBe(wrapped);
  });

  test("initCommand --policy run twice with the same policy keeps the server as it is and exits 0", async () => {
    const { dir, file } = desktopConfig();
    writeFileSync(path.join(dir, "bouncer.yaml"), "version: 1\n");
    const args = ["--config", file, "--policy", "bouncer.yaml", "--yes"];
    expect((await runBouncer("init", args, { cwd: dir })).code).toBe(0);
    const second = await runBouncer("init", args, { cwd: dir });
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('"filesystem" is already wrapped');
  });

  test("initCommand --help prints the flags and exits 0", async () => {
    const result = await runBouncer("init", ["--help"], { cwd: tempDir() });
    expect(result.code).toBe(0);
    for (const flag of [
      "--config",
      "--client",
      "--server",
      "--policy",
      "--dry-run",
      "--yes",
      "--undo",
      "--check",
    ]) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stdout).toContain("exit 1 if any, 2 if no config is found");
  });

  test("init --help and doctor --help list every --client name, in the client table's order", async () => {
    const names = CLIENTS.map((client) => client.kind).join(", ");
    for (const command of ["init", "doctor"] as const) {
      const result = await runBouncer(command, ["--help"], { cwd: tempDir() });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Every config file of one client: ${names}`);
    }
  });
});

describe("initCommand finds client files", () => {
  test("initCommand --client cursor lists the project and user files before writing", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const project = path.join(dir, "project");
    const home = path.join(dir, "home");
    const projectFile = placeSample("cursor.mcp.json", { dir: project, relative: ".cursor/mcp.json" });
    const userFile = placeSample("edge/cursor-remote-url-only.mcp.json", {
      dir: home,
      relative: ".cursor/mcp.json",
    });
    const result = await runBouncer("init", ["--client", "cursor", "--yes"], { cwd: project, home });
    expect(result.code).toBe(0);
    const listing = result.stderr.indexOf("Client configs found:");
    expect(listing).toBeGreaterThanOrEqual(0);
    expect(result.stderr.indexOf(projectFile)).toBeGreaterThan(listing);
    expect(result.stderr.indexOf(userFile)).toBeGreaterThan(listing);
    expect(result.stderr.indexOf("Wrote")).toBeGreaterThan(result.stderr.indexOf(userFile));
    expect(backupsOf(projectFile)).toHaveLength(1);
    expect(backupsOf(userFile)).toEqual([]);
  });

  test("initCommand writes a config reached by two paths (a symlink) once, and exits 0", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const shared = placeSample("cursor.mcp.json", { dir, relative: ".mcp.json" });
    mkdirSync(path.join(dir, ".cursor"));
    symlinkSync("../.mcp.json", path.join(dir, ".cursor", "mcp.json"));
    const result = await runBouncer("init", ["--yes"], { cwd: dir, home: path.join(dir, "home") });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `${path.join(dir, ".cursor", "mcp.json")}: the same file as ${shared}, skipped\n`,
    );
    expect(result.stderr).not.toContain("\\u{a}");
    expect(result.stderr.split("Wrote ")).toHaveLength(2);
    expect(backupsOf(shared)).toHaveLength(1);
  });

  test("initCommand says, in the plan and after the write, that a hard-linked config's other name keeps the old content", async () => {
    const { dir, file, before } = desktopConfig();
    const other = path.join(dir, "shared.json");
    linkSync(file, other);
    const dry = await runBouncer("init", ["--config", file, "--dry-run"], { cwd: dir });
    const warning = `  warning: "${file}" is hard-linked: the write replaces it with a new file, so its 1 other hard link keeps the old content (link it again after the write, or use a symlink, which is written through)\n`;
    expect(dry.stderr).toContain(warning);
    const result = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(warning);
    expect(result.stderr).toMatch(
      /Wrote "[^"]+" \(backup "[^"]+"\); its 1 other hard link keeps the old content\n/,
    );
    expect(readFileSync(other, "utf8")).toBe(before);
    expect(readFileSync(file, "utf8")).not.toBe(before);
  });

  test("initCommand names the backup by its full path when the config is a symlink into another folder", async () => {
    const { dir, file } = desktopConfig();
    const project = path.join(dir, "project");
    mkdirSync(project);
    const link = path.join(project, "claude_desktop_config.json");
    symlinkSync(file, link);
    const result = await runBouncer("init", ["--config", link, "--yes"], { cwd: project });
    expect(result.code).toBe(0);
    const [backup = ""] = backupsOf(file);
    expect(result.stderr).toContain(`Wrote "${link}" (backup "${path.join(dir, backup)}")\n`);
    const beside = desktopConfig();
    const plain = await runBouncer("init", ["--config", beside.file, "--yes"], { cwd: beside.dir });
    expect(plain.stderr).toContain(`Wrote "${beside.file}" (backup "${backupsOf(beside.file)[0]}")\n`);
  });

  test("initCommand says that an empty config is empty, exits 2 and writes nothing", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    writeFileSync(file, "\n");
    const result = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `bouncer: Cannot read client config "${file}": the file is empty\nbouncer: Nothing written\n`,
    );
    expect(readFileSync(file, "utf8")).toBe("\n");
  });

  test("initCommand gives no hard-link warning for a config with one name", async () => {
    const { dir, file } = desktopConfig();
    const result = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("hard link");
  });

  test("initCommand --check lists the entries of a config reached by two paths (a symlink) once", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const home = path.join(dir, "home");
    const windsurf = path.join(home, ".codeium", "windsurf", "mcp_config.json");
    mkdirSync(path.dirname(windsurf), { recursive: true });
    writeFileSync(windsurf, JSON.stringify({ mcpServers: { fs: { command: "npx" } } }));
    mkdirSync(path.join(home, ".cursor"));
    symlinkSync(windsurf, path.join(home, ".cursor", "mcp.json"));
    const result = await runBouncer("init", ["--check"], { cwd: dir, home });
    expect(result.code).toBe(1);
    expect(result.stdout.match(/^not wrapped +fs /gm)).toHaveLength(1);
    expect(result.stderr).toMatch(/: the same file as .*, skipped\n/);
    expect(result.stderr).toContain("1 server(s) need attention");
  });

  test("initCommand escapes a line feed in a server name, so the name cannot print a plan line of its own", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    const name = 'x\n  "shell" is a remote server (url): not wrapped';
    writeFileSync(file, JSON.stringify({ mcpServers: { [name]: { command: "npx" } } }, null, 2));
    const result = await runBouncer("init", ["--config", file, "--dry-run"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('  wrap "x\\u{a}  "shell" is a remote server (url): not wrapped"\n');
    expect(result.stderr).not.toContain('\n  "shell" is a remote server');
    const missing = await runBouncer("init", ["--config", file, "--server", "a\nb"], { cwd: dir });
    expect(missing.stderr).toContain('No server named "a\\u{a}b"');
  });

  test("initCommand --config on a file whose server section is null says it has none and exits 2", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    writeFileSync(file, '{"mcpServers": null}\n');
    const result = await runBouncer("init", ["--config", file, "--yes"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("it has no MCP server section");
  });

  test("initCommand --config on a file whose mcpServers is a list says it is not an object, not that there is none", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, "servers.json");
    writeFileSync(file, '{"mcpServers": []}\n');
    for (const args of [["--yes"], ["--check"]]) {
      const result = await runBouncer("init", ["--config", file, ...args], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('"mcpServers" is not an object of servers (it is a list)');
      expect(result.stderr).not.toContain("no MCP server section");
    }
  });

  test("initCommand --client whose only file has no server section of that client says so and exits 2", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, ".vscode", "mcp.json");
    mkdirSync(path.dirname(file));
    writeFileSync(file, '{"mcpServers": {"a": {"command": "npx"}}}\n');
    const before = readFileSync(file, "utf8");
    const result = await runBouncer("init", ["--client", "vscode", "--yes"], {
      cwd: dir,
      home: path.join(dir, "home"),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no MCP server section");
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  test("initCommand lists the files it found before refusing one that does not parse, and writes none", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const broken = placeSample("edge/truncated.SYNTHETIC.json", { dir, relative: ".cursor/mcp.json" });
    const good = placeSample("cursor.mcp.json", { dir, relative: "home/.cursor/mcp.json" });
    const result = await runBouncer("init", ["--yes"], { cwd: dir, home: path.join(dir, "home") });
    expect(result.code).toBe(2);
    const listing = result.stderr.indexOf("Client configs found:");
    expect(listing).toBe(0);
    expect(result.stderr.indexOf(good)).toBeGreaterThan(listing);
    expect(result.stderr.indexOf(`Cannot read client config "${broken}"`)).toBeGreaterThan(
      result.stderr.indexOf(good),
    );
    expect(backupsOf(good)).toEqual([]);
    expect(readFileSync(good, "utf8")).toBe(sampleText("cursor.mcp.json"));
  });

  test("initCommand with no config anywhere says so and exits 2", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const result = await runBouncer("init", ["--yes"], { cwd: dir, home: dir, env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("No MCP client config found");
  });

  test("initCommand and init --check with no config anywhere name the folder and the user's files looked in", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const home = path.join(dir, "home");
    const project = path.join(dir, "project");
    mkdirSync(home);
    mkdirSync(project);
    for (const flags of [["--yes"], ["--check"]]) {
      const result = await runBouncer("init", flags, { cwd: project, home, env: {}, platform: "linux" });
      expect(result.code).toBe(2);
      const line = result.stderr.split("\n")[0] ?? "";
      expect(line).toStartWith(
        `bouncer: No MCP client config found (looked in the current folder ${project} for `,
      );
      for (const file of [".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".codex/config.toml"]) {
        expect(line).toContain(` ${file},`);
      }
      expect(line).toContain(
        "and for the user's configs ~/.config/Claude/claude_desktop_config.json, ~/.claude.json, ",
      );
      expect(line).toContain(", ~/.codex/config.toml, ");
      expect(line).not.toContain(home);
      expect(line).toEndWith("): name one with --config FILE");
    }
  });

  test("initCommand --client with no config of that client names the client and the files looked for", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const result = await runBouncer("init", ["--client", "cursor", "--yes"], {
      cwd: dir,
      home: dir,
      env: {},
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No config of client "cursor" found');
    expect(result.stderr).toContain(path.join(dir, ".cursor", "mcp.json"));
  });
});

describe("initCommand never shows a secret", () => {
  test.each([
    ["claude-code.mcp.json", ".mcp.json"],
    ["edge/f11-secrets.SYNTHETIC.mcp.json", ".mcp.json"],
    ["codex.config.toml", ".codex/config.toml"],
    ["edge/claude-desktop-windows.SYNTHETIC.json", "claude_desktop_config.json"],
  ])("no env value of %s appears in any output of init, --check or --undo", async (sample, relative) => {
    const dir = tempDir();
    dirs.push(dir);
    const file = placeSample(sample, { dir: dir, relative: relative });
    const outputs: string[] = [];
    for (const args of [["--dry-run"], ["--yes"], ["--check"], ["--yes"], ["--undo", "--yes"], ["--check"]]) {
      const result = await runBouncer("init", ["--config", file, ...args], { cwd: dir });
      outputs.push(result.stdout, result.stderr);
    }
    const text = outputs.join("\n");
    const client = detectClient(file, sampleText(sample));
    const plan = planInit(sampleText(sample), { client, mode: "wrap", launcher: BREW_LAUNCHER });
    let checked = 0;
    for (const entry of plan.config.entries) {
      const commandLine = JSON.stringify([entry.command, ...(entry.args ?? [])]);
      for (const [, value] of entry.env) {
        if (value.length <= 3 || commandLine.includes(value)) continue;
        expect(text).not.toContain(value);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
    expect(text).not.toContain("ghp_FAKE");
    expect(text).not.toContain("sk-FAKE");
  });
});

describe("initCommand never prints what a terminal would act on", () => {
  test("initCommand --dry-run and --check escape control characters of names, comments and arguments", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    writeFileSync(
      file,
      '{\n  // note \u001b]0;pwned\u0007 here\n  "mcpServers": {\n    "ev\\u001b[2Jil": {"command": "npx", "args": ["\\u202eslf"]},\n    "ok": {"command": "npx"}\n  }\n}\n',
    );
    const outputs: string[] = [];
    for (const args of [["--dry-run"], ["--check"], ["--server", "\u001b[2Jnope", "--dry-run"]]) {
      const result = await runBouncer("init", ["--config", file, ...args], { cwd: dir });
      outputs.push(result.stdout, result.stderr);
    }
    const text = outputs.join("\n");
    expect(text).toContain("ev\\u{1b}[2Jil");
    expect(text).toContain("note \\u{1b}]0;pwned\\u{7} here");
    expect(text).toContain("\\u{1b}[2Jnope");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
  });

  test("initCommand --dry-run shows a CRLF file's diff with plain line ends, not escaped CRs", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, ".mcp.json");
    writeFileSync(file, '{\r\n  "mcpServers": {\r\n    "ok": {"command": "npx"}\r\n  }\r\n}\r\n');
    const result = await runBouncer("init", ["--config", file, "--dry-run"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('-    "ok": {"command": "npx"}\n');
    expect(result.stdout).not.toContain("\\u{d}");
  });
});

/** `bouncer run` is another helper's work; this test needs it and says so when it is absent. */
const PROXY_MISSING = !existsSync(new URL("../../src/proxy/command.ts", import.meta.url).pathname);
const FILESYSTEM_SERVER = new URL(
  "../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
  import.meta.url,
).pathname;

describe.skipIf(PROXY_MISSING)("initCommand output runs through bouncer run", () => {
  test("the rewritten filesystem entry, started by the SDK client, lists the real filesystem server's tools through Bouncer", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const data = path.join(dir, "data");
    mkdirSync(data);
    const file = path.join(dir, ".mcp.json");
    const original = { command: process.execPath, args: [FILESYSTEM_SERVER, data], env: { FS_NOTE: "kept" } };
    writeFileSync(file, `${JSON.stringify({ mcpServers: { fs: original } }, null, 2)}\n`);
    const launcher = findLauncher({
      env: { PATH: "/usr/bin:/bin" },
      platform: process.platform,
      execPath: process.execPath,
    });
    expect(launcher.command).toBe(process.execPath);
    expect(launcher.prefixArgs.at(-1)).toBe(sourceCliPath());
    expect((await runBouncer("init", ["--config", file, "--yes"], { cwd: dir, launcher })).code).toBe(0);

    const entry = JSON.parse(readFileSync(file, "utf8")).mcpServers.fs as typeof original;
    expect(entry.args.slice(entry.args.indexOf("--") + 1)).toEqual([original.command, ...original.args]);
    const env: Record<string, string> = { BOUNCER_HOME: path.join(dir, "bouncer-home"), HOME: dir };
    for (const [key, value] of Object.entries(process.env))
      if (value !== undefined && !Object.hasOwn(env, key)) env[key] = value;
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...env, ...entry.env },
      cwd: dir,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: "init-test", version: "1" });
    try {
      await client.connect(transport);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("write_file");
      expect(names).toContain("list_directory");
      expect(stderr).toContain("[upstream:fs] ");
    } finally {
      await client.close();
    }
  });
});
