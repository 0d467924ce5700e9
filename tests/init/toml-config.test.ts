import { describe, expect, test } from "bun:test";
import { clientByName } from "../../src/init/client-table.ts";
import { planInit } from "../../src/init/plan.ts";
import { readTomlConfig } from "../../src/init/toml-config.ts";
import { BREW_LAUNCHER, sampleText } from "./samples.ts";

describe("readTomlConfig()", () => {
  test("readTomlConfig() reads every server of the Codex sample with its kind", () => {
    const config = readTomlConfig(sampleText("codex.config.toml"));
    expect(config.sections).toEqual([["mcp_servers"]]);
    expect(config.entries.map((entry) => [entry.name, entry.kind])).toEqual([
      ["context7", "stdio"],
      ["github", "stdio"],
      ["filesystem", "stdio"],
      ["memory", "stdio"],
      ["figma", "remote"],
    ]);
    const github = config.entries.find((entry) => entry.name === "github");
    expect(github?.env).toEqual([["GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_FAKE000000000000000000000000000000"]]);
    const filesystem = config.entries.find((entry) => entry.name === "filesystem");
    expect(filesystem).toMatchObject({
      command: "/opt/homebrew/bin/mcp-server-filesystem",
      cwd: "/Users/<USER>",
    });
  });

  test("readTomlConfig() marks env tables, inline env and bearer tokens as secret ranges", () => {
    const text =
      '[mcp_servers.a]\ncommand = "x"\nenv = { K = "v" }\nbearer_token = "b"\n[mcp_servers.b]\ncommand = "y"\n[mcp_servers.b.env]\nT = "t"\n';
    const spans = readTomlConfig(text).secretSpans.map((span) => text.slice(span.start, span.end));
    expect(spans.sort()).toEqual(['"b"', '"t"', '"v"', '{ K = "v" }']);
  });

  test("readTomlConfig() reports a file without [mcp_servers] as having no sections", () => {
    expect(readTomlConfig('model = "o3"\n').sections).toEqual([]);
  });

  test("readTomlConfig() leaves a server alone whose command is not a string", () => {
    const entry = readTomlConfig("[mcp_servers.a]\ncommand = 3\n").entries[0];
    expect(entry).toMatchObject({ kind: "unsupported", reason: "the command is not a string" });
  });

  test.each(["constructor", "__proto__"])("planInit() wraps a Codex server named %s", (name) => {
    const client = clientByName("codex");
    if (client === undefined) throw new Error("no codex client");
    const text = `[mcp_servers.${name}]\ncommand = "node"\nargs = ["x.js"]\n`;
    const plan = planInit(text, { client, mode: "wrap", launcher: BREW_LAUNCHER });
    expect(plan.actions.map((action) => action.action)).toEqual(["wrap"]);
    expect(readTomlConfig(plan.after).entries[0]).toMatchObject({ name, kind: "wrapped" });
  });

  test.each([
    ['url = ""', "stdio"],
    ['args = ["x.js", 8080]', "unsupported"],
  ])("readTomlConfig() reads a command beside %s as %s", (line, kind) => {
    const entry = readTomlConfig(`[mcp_servers.a]\ncommand = "node"\n${line}\n`).entries[0];
    expect(entry?.kind).toBe(kind as "stdio" | "unsupported");
    if (kind === "unsupported") expect(entry?.unwrappable).toBe(true);
  });

  test("readTomlConfig() refuses an mcp_servers that is not a table (not 'no servers')", () => {
    expect(() => readTomlConfig('model = "x"\nmcp_servers = 5\n')).toThrow(
      'line 2, column 1: "mcp_servers" is not a table of servers',
    );
  });

  test("readTomlConfig() refuses a duplicate key with its line and column", () => {
    expect(() => readTomlConfig('[mcp_servers.a]\ncommand = "x"\ncommand = "y"\n')).toThrow(
      /^line 3, column \d+: /,
    );
  });
});
