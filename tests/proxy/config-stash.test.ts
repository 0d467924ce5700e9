import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isBouncerError } from "../../src/platform/errors.ts";
import { readUpstreamStash } from "../../src/proxy/config-stash.ts";

const dir = mkdtempSync(join(tmpdir(), "bouncer-stash-"));

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const stash = {
  command: "npx",
  args: ["-y", "@modelcontextprotocol/server-filesystem", "/data dir"],
  cwd: "/work/proj",
};

describe("readUpstreamStash", () => {
  test.skipIf(process.platform === "win32")("readUpstreamStash() refuses a FIFO as --config at once", () => {
    const fifo = join(mkdtempSync(join(tmpdir(), "bouncer-stash-fifo-")), "mcp.json");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expect(() => readUpstreamStash(fifo, { name: "x", cwd: "/" })).toThrow(
      `Cannot read client config "${fifo}": it is not a regular file`,
    );
  });

  test.each([
    [
      "Claude Desktop JSON (mcpServers)",
      "a.json",
      JSON.stringify({
        mcpServers: { fs: { command: "bouncer", args: ["run"], "x-bouncer-upstream": stash } },
      }),
    ],
    [
      "VS Code JSONC with comments and trailing commas (servers)",
      "mcp.json",
      `{\n  // mine\n  "servers": { "fs": { "command": "bouncer", "x-bouncer-upstream": ${JSON.stringify(stash)}, }, },\n}`,
    ],
    [
      "Zed JSONC (context_servers)",
      "settings.json",
      JSON.stringify({ context_servers: { fs: { "x-bouncer-upstream": stash } } }),
    ],
    [
      "Codex TOML (mcp_servers)",
      "config.toml",
      `# Codex\n[mcp_servers.fs]\ncommand = "bouncer"\n\n[mcp_servers.fs.x-bouncer-upstream]\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/server-filesystem", "/data dir"]\ncwd = "/work/proj"\n`,
    ],
    [
      "~/.claude.json projects",
      "claude.json",
      JSON.stringify({ projects: { "/elsewhere": { mcpServers: { fs: { "x-bouncer-upstream": stash } } } } }),
    ],
  ])("readUpstreamStash() reads the stash from %s", (_name, file, text) => {
    expect(readUpstreamStash(write(file, text), { name: "fs", cwd: "/home/me" })).toEqual({
      ...stash,
      source: "config",
      entryPolicies: [],
    });
  });

  test("readUpstreamStash() gives the --policy files of the entry's own arguments, up to --", () => {
    const entry = {
      command: "bouncer",
      args: [
        "run",
        "--policy",
        "/p/a.yaml",
        "--policy=/p/b.yaml",
        "--upstream-name",
        "fs",
        "--",
        "--policy",
        "x",
      ],
      "x-bouncer-upstream": stash,
    };
    const path = write("policies.json", JSON.stringify({ mcpServers: { fs: entry } }));
    expect(readUpstreamStash(path, { name: "fs", cwd: "/" }).entryPolicies).toEqual([
      "/p/a.yaml",
      "/p/b.yaml",
    ]);
  });

  test("readUpstreamStash() prefers the project of the working directory in ~/.claude.json", () => {
    const other = { ...stash, command: "other" };
    const path = write(
      "claude2.json",
      JSON.stringify({
        projects: {
          "/a": { mcpServers: { fs: { "x-bouncer-upstream": other } } },
          "/b": { mcpServers: { fs: { "x-bouncer-upstream": stash } } },
        },
      }),
    );
    expect(readUpstreamStash(path, { name: "fs", cwd: "/b" }).command).toBe("npx");
  });

  test("readUpstreamStash() runs the upstream in Bouncer's own cwd unless the stash cwd is absolute (F15)", () => {
    const path = write(
      "rel.json",
      JSON.stringify({
        mcpServers: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a VS Code placeholder, not a template
          fs: { "x-bouncer-upstream": { command: "python", args: ["s.py"], cwd: "${workspaceFolder}/x" } },
        },
      }),
    );
    expect(readUpstreamStash(path, { name: "fs", cwd: "/work/proj" }).cwd).toBe("/work/proj");
  });

  test.each([
    ["a file that does not parse", "bad.json", '{"mcpServers": {', "CONFIG_INVALID"],
    ["no such server", "none.json", JSON.stringify({ mcpServers: { other: {} } }), "CONFIG_INVALID"],
    [
      "a server without a stash",
      "nostash.json",
      JSON.stringify({ mcpServers: { fs: { command: "npx" } } }),
      "CONFIG_INVALID",
    ],
    [
      "a malformed stash",
      "malformed.json",
      JSON.stringify({ mcpServers: { fs: { "x-bouncer-upstream": { command: "npx", args: "-y" } } } }),
      "CONFIG_INVALID",
    ],
    [
      "a server named __proto__",
      "proto.json",
      '{"mcpServers": {"__proto__": {"x-bouncer-upstream": {"command": "evil"}}}}',
      "CONFIG_INVALID",
    ],
  ])("readUpstreamStash() refuses %s", (_name, file, text, code) => {
    const name = file === "proto.json" ? "__proto__" : "fs";
    try {
      readUpstreamStash(write(file, text), { name, cwd: dir });
      throw new Error("no error");
    } catch (error) {
      expect(isBouncerError(error) ? error.code : String(error)).toBe(code);
    }
  });

  test("readUpstreamStash() names the line and column of a parse error", () => {
    expect(() =>
      readUpstreamStash(write("bad2.json", '{\n  "mcpServers": {\n    "fs": ,\n  }\n}'), {
        name: "fs",
        cwd: dir,
      }),
    ).toThrow(/line 3:11/);
  });

  test("readUpstreamStash() reports a missing file as unreadable", () => {
    expect(() => readUpstreamStash(join(dir, "missing.json"), { name: "fs", cwd: dir })).toThrow(
      /Cannot read client config/,
    );
  });
});
