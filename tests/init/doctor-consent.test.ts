import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runCli } from "../run-cli.ts";
import { tempDir } from "./run-helpers.ts";

const FILESYSTEM_SERVER = new URL(
  "../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
  import.meta.url,
).pathname;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A server entry that creates `marker` if it is ever started (then exits: not an MCP server). */
function markerServer(marker: string): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran")`],
  };
}

/** Writes a JSON file, making its folder. */
function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A cloned project (`root/project`, its `.mcp.json` holding two marker servers) and a home
 * (`root/home`) whose `~/.cursor/mcp.json` holds the real filesystem server.
 */
function setup(): { root: string; project: string; home: string; markers: string[] } {
  const root = tempDir("bouncer-doctor-consent-");
  dirs.push(root);
  const project = path.join(root, "project");
  const home = path.join(root, "home");
  mkdirSync(path.join(home, "data"), { recursive: true });
  const markers = [path.join(root, "evil-ran"), path.join(root, "evil2-ran")];
  writeJson(path.join(project, ".mcp.json"), {
    mcpServers: { evil: markerServer(markers[0] ?? ""), evil2: markerServer(markers[1] ?? "") },
  });
  writeJson(path.join(home, ".cursor", "mcp.json"), {
    mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM_SERVER, path.join(home, "data")] } },
  });
  return { root, project, home, markers };
}

/** The environment of a run: every user config place under `home`, none of the machine's. */
function envFor(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    CODEX_HOME: path.join(home, ".codex"),
    CLAUDE_CONFIG_DIR: home,
    APPDATA: path.join(home, "AppData", "Roaming"),
    LOCALAPPDATA: path.join(home, "AppData", "Local"),
    BOUNCER_HOME: path.join(home, "bouncer-home"),
  };
}

const NOTE = `project config .${path.sep}.mcp.json is not started unless you name it (a client asks you to trust a project before it starts its servers): bouncer doctor --config .mcp.json`;

describe("bouncer doctor and project files", () => {
  test("bouncer doctor with no flags lists a project .mcp.json's servers as not-started, never runs them, and exits 0", async () => {
    const { project, home, markers } = setup();
    const result = await runCli(["doctor"], { cwd: project, env: envFor(home) });
    expect(result.stderr).toBe("doctor: starting 1 server(s)\ndoctor: [1/1] fs: started\n");
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[1]).toMatch(/^evil +Claude Code +no +not-started +- +- +- +- +- +-$/);
    expect(lines[2]).toMatch(/^evil2 +Claude Code +no +not-started +- +- +- +- +- +-$/);
    expect(lines[3]).toMatch(/^fs +Cursor +no +started +\d+ ms +\d+ +filesystem /);
    // One note for the file, below the table, not one per server.
    expect(result.stdout.split(NOTE)).toHaveLength(2);
    expect(result.stdout).toEndWith(`\n\n${NOTE}\n`);
    for (const marker of markers) expect(existsSync(marker)).toBe(false);
  }, 60_000);

  test("bouncer doctor --json gives a not-started project server a status of its own, with the note as its detail", async () => {
    const { project, home, markers } = setup();
    const result = await runCli(["doctor", "--json"], { cwd: project, env: envFor(home) });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { servers: Record<string, unknown>[] };
    expect(report.servers.map((row) => [row.server, row.status])).toEqual([
      ["evil", "not-started"],
      ["evil2", "not-started"],
      ["fs", "started"],
    ]);
    expect(report.servers[0]).toMatchObject({ file: path.join(project, ".mcp.json"), detail: NOTE });
    for (const marker of markers) expect(existsSync(marker)).toBe(false);
  }, 60_000);

  test("bouncer doctor --client claude-code does not start the project .mcp.json either: only --config names it", async () => {
    const { project, home, markers } = setup();
    const result = await runCli(["doctor", "--client", "claude-code", "--json"], {
      cwd: project,
      env: envFor(home),
    });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { servers: Record<string, unknown>[] };
    expect(report.servers.map((row) => row.status)).toEqual(["not-started", "not-started"]);
    for (const marker of markers) expect(existsSync(marker)).toBe(false);
  }, 60_000);

  test("bouncer doctor --config .mcp.json starts the project's servers (naming the file is the consent)", async () => {
    const { project, home, markers } = setup();
    const result = await runCli(["doctor", "--config", ".mcp.json"], { cwd: project, env: envFor(home) });
    // The marker servers exit without speaking MCP: started, so they are errors.
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\nevil +Claude Code +no +error /);
    expect(result.stdout).not.toContain("is not started unless you name it");
    for (const marker of markers) expect(existsSync(marker)).toBe(true);
  }, 60_000);

  test("bouncer doctor run in the home folder starts ~/.cursor/mcp.json (the user's file), not ~/.mcp.json", async () => {
    const { home, markers } = setup();
    const own = path.join(home, "own-ran");
    writeJson(path.join(home, ".cursor", "mcp.json"), { mcpServers: { own: markerServer(own) } });
    writeJson(path.join(home, ".mcp.json"), { mcpServers: { evil: markerServer(markers[0] ?? "") } });
    const result = await runCli(["doctor", "--json"], { cwd: home, env: envFor(home) });
    const report = JSON.parse(result.stdout) as { servers: Record<string, unknown>[] };
    expect(report.servers.map((row) => [row.server, row.status])).toEqual([
      ["evil", "not-started"],
      ["own", "error"],
    ]);
    expect(existsSync(own)).toBe(true);
    expect(existsSync(markers[0] ?? "")).toBe(false);
  }, 60_000);

  test.if(process.platform !== "win32")(
    "bouncer doctor starts a project file that the user's own config is a symlink to",
    async () => {
      const { project, home } = setup();
      const ran = path.join(home, "linked-ran");
      const file = path.join(project, ".cursor", "mcp.json");
      writeJson(file, { mcpServers: { linked: markerServer(ran) } });
      rmSync(path.join(home, ".cursor", "mcp.json"));
      symlinkSync(file, path.join(home, ".cursor", "mcp.json"));
      const result = await runCli(["doctor", "--json"], { cwd: project, env: envFor(home) });
      const report = JSON.parse(result.stdout) as { servers: Record<string, unknown>[] };
      expect(report.servers.map((row) => [row.server, row.status])).toEqual([
        ["evil", "not-started"],
        ["evil2", "not-started"],
        ["linked", "error"],
      ]);
      expect(existsSync(ran)).toBe(true);
    },
    60_000,
  );
});
