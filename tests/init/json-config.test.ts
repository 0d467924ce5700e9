import { describe, expect, test } from "bun:test";
import { readJsonConfig } from "../../src/init/json-config.ts";
import type { EntryKind } from "../../src/init/types.ts";
import { sampleText } from "./samples.ts";

const SECTIONS = { keys: ["mcpServers"], projects: true };

/** Reads a config with Claude Code's sections. */
function read(text: string) {
  return readJsonConfig(text, { format: "json", sections: SECTIONS });
}

/** The kind and reason of the single entry `s`. */
function classify(entry: unknown): { kind: EntryKind; reason?: string } {
  const found = read(JSON.stringify({ mcpServers: { s: entry } })).entries[0];
  return {
    kind: found?.kind ?? "unsupported",
    ...(found?.reason === undefined ? {} : { reason: found.reason }),
  };
}

describe("readJsonConfig() classifies entries", () => {
  test.each<[string, unknown, EntryKind, string | undefined]>([
    ["a stdio entry", { command: "npx", args: ["-y", "p"] }, "stdio", undefined],
    ["a stdio entry with type stdio", { type: "stdio", command: "npm" }, "stdio", undefined],
    ["a url entry", { url: "https://x.example/mcp" }, "remote", "remote server (url)"],
    ["a serverUrl entry (Windsurf)", { serverUrl: "https://x.example/sse" }, "remote", "remote server (url)"],
    ["an httpUrl entry (Gemini)", { httpUrl: "https://x.example/mcp" }, "remote", "remote server (url)"],
    ["a type http entry", { type: "http", command: "x" }, "remote", 'remote server (type "http")'],
    ["a type sse entry", { type: "sse" }, "remote", 'remote server (type "sse")'],
    [
      "a settings-only entry",
      { settings: {} },
      "unsupported",
      "no command (an extension or settings-only entry)",
    ],
    ["a non-object entry", "npx", "unsupported", "the entry is not an object"],
    ["a numeric command", { command: 3 }, "unsupported", "the command is not a string"],
    ["an empty command", { command: " " }, "unsupported", "the command is empty"],
    [
      "args that are not strings",
      { command: "x", args: [1] },
      "unsupported",
      "args is not a list of strings (write each argument as a string)",
    ],
    [
      "a wrapped entry",
      { command: "/b/bouncer", args: ["run", "--upstream-name", "s", "--", "npx"] },
      "wrapped",
      undefined,
    ],
    [
      "an entry wrapped from a checkout (bun …/src/cli.ts run …)",
      { command: "/usr/bin/bun", args: ["/c/src/cli.ts", "run", "--upstream-name", "s", "--", "npx"] },
      "wrapped",
      undefined,
    ],
    [
      "an entry wrapped by a renamed Bouncer executable",
      { command: "/opt/bin/bnc", args: ["run", "--upstream-name", "s", "--", "npx"] },
      "wrapped",
      undefined,
    ],
    [
      "docker's own run with look-alike flags (not Bouncer's)",
      { command: "docker", args: ["run", "--upstream-name", "x", "--", "img"] },
      "stdio",
      undefined,
    ],
    [
      "Bouncer's run in a form init does not write (no --upstream-name)",
      { command: "bouncer", args: ["run", "--", "npx", "-y", "srv"] },
      "unsupported",
      "it already runs bouncer run, in a form init does not write (wrapping it again would nest Bouncer)",
    ],
    [
      "another tool's cli.js run subcommand (not Bouncer)",
      { command: "node", args: ["/opt/github-mcp/dist/cli.js", "run", "--toolsets", "all"] },
      "stdio",
      undefined,
    ],
    [
      "Bouncer's run after a runtime's own run (bun run …/src/cli.ts run --bogus)",
      { command: "bun", args: ["run", "/c/src/cli.ts", "run", "--bogus", "--", "npx"] },
      "unsupported",
      "it already runs bouncer run, in a form init does not write (wrapping it again would nest Bouncer)",
    ],
    [
      "Bouncer's run with a flag init does not know, from a checkout",
      { command: "bun", args: ["/c/src/cli.ts", "run", "--upstream-name", "s", "--bogus", "--", "npx"] },
      "unsupported",
      "it already runs bouncer run, in a form init does not write (wrapping it again would nest Bouncer)",
    ],
  ])("readJsonConfig() reads %s as %s", (_, entry, kind, reason) => {
    expect(classify(entry)).toEqual({ kind, ...(reason === undefined ? {} : { reason }) });
  });

  test("readJsonConfig() still reads an entry with an empty name that an older init wrapped (undoable)", () => {
    const config = read(
      '{"mcpServers": {"": {"command": "bouncer", "args": ["run", "--upstream-name", "", "--", "npx"]}}}',
    );
    expect(config.entries[0]?.kind).toBe("wrapped");
  });

  test("readJsonConfig() marks an entry with an empty name as a stdio server it cannot wrap", () => {
    const config = read('{"mcpServers": {"": {"command": "npx"}}}');
    expect(config.entries[0]).toMatchObject({
      kind: "unsupported",
      unwrappable: true,
      reason: "the server name is empty (bouncer run needs one: rename it)",
    });
  });

  test.each(["__proto__", "constructor", "prototype"])(
    "readJsonConfig() reads a server named %s as stdio",
    (name) => {
      const config = read(`{"mcpServers": {"${name}": {"command": "x"}}}`);
      expect(config.entries[0]).toMatchObject({ name, kind: "stdio", command: "x" });
    },
  );

  test.each([
    ['"args": ["x.js", 8080]', "a number"],
    ['"args": "x.js"', "a string"],
  ])("readJsonConfig() marks a server whose %s (%s) as one it cannot wrap", (args) => {
    const config = read(`{"mcpServers": {"s": {"command": "node", ${args}}}}`);
    expect(config.entries[0]).toMatchObject({
      kind: "unsupported",
      unwrappable: true,
      reason: "args is not a list of strings (write each argument as a string)",
    });
  });

  test.each([
    ['"type": "stdio", "command": "node", "url": "https://x.example"', "stdio"],
    ['"command": "node", "url": ""', "stdio"],
    ['"command": "node", "url": null', "stdio"],
    ['"command": "node", "serverUrl": 3', "stdio"],
    ['"command": "node", "url": "https://x.example"', "stdio"],
    ['"command": "", "url": "https://x.example"', "remote"],
    ['"url": "https://x.example"', "remote"],
    ['"type": "sse", "command": "node"', "remote"],
  ])("readJsonConfig() reads {%s} as %s", (fields, kind) => {
    expect(read(`{"mcpServers": {"s": {${fields}}}}`).entries[0]?.kind).toBe(kind as "stdio" | "remote");
  });

  test("readJsonConfig() reads Zed's nested command object", () => {
    const config = readJsonConfig(sampleText("edge/zed-settings.SYNTHETIC.jsonc"), {
      format: "jsonc",
      sections: { keys: ["context_servers"], projects: false },
    });
    const jira = config.entries.find((entry) => entry.name === "jira-pm");
    expect(jira).toMatchObject({ kind: "stdio", nested: true, command: "zara-jira-mcp", args: [] });
  });

  test("readJsonConfig() finds the servers of every project in ~/.claude.json", () => {
    const config = read(
      JSON.stringify({
        numStartups: 3,
        mcpServers: { user: { command: "a" } },
        projects: {
          "/home/me/p": { mcpServers: { local: { command: "b" } } },
          "/home/me/q": { allowedTools: [] },
        },
      }),
    );
    expect(config.sections).toEqual([["mcpServers"], ["projects", "/home/me/p", "mcpServers"]]);
    expect(config.entries.map((entry) => entry.label)).toEqual(["user", 'local (project "/home/me/p")']);
  });

  test("readJsonConfig() reports a file without a server section as having no sections", () => {
    expect(read('{"theme": "dark"}').sections).toEqual([]);
  });

  test("readJsonConfig() marks env, headers and values after secret flags as secret ranges", () => {
    const text =
      '{"mcpServers": {"s": {"command": "x", "args": ["--token", "abc", "--x"], "env": {"A": "1"}, "headers": {"Authorization": "B"}}}}';
    const spans = read(text)
      .secretSpans.map((span) => text.slice(span.start, span.end))
      .sort();
    expect(spans).toEqual(['"1"', '"B"', '"abc"']);
  });
});

describe("readJsonConfig() refuses what it cannot read safely", () => {
  test.each([
    ["a truncated file", "edge/truncated.SYNTHETIC.json", "line 7, column 9: unexpected end of string"],
    ["a YAML file", "edge/not-json.SYNTHETIC.json", "line 1, column 1: invalid symbol"],
  ])("readJsonConfig() refuses %s with its line and column", (_, file, message) => {
    expect(() => read(sampleText(file))).toThrow(message);
  });

  test.each([
    ["an empty file", "", "the file is empty"],
    ["a file of white space", " \n\t\r\n", "the file is empty"],
    ["a file of comments only", "// settings\n/* none yet */\n", "the file holds only comments, no settings"],
    ["a top-level array", "[]", "line 1, column 1: the top level is not an object"],
    [
      "a duplicate key inside an entry",
      '{"mcpServers": {"s": {"command": "a",\n "command": "b"}}}',
      'line 2, column 2: duplicate key "command"',
    ],
    [
      "a duplicate section",
      '{"mcpServers": {}, "mcpServers": {}}',
      'line 1, column 20: duplicate key "mcpServers"',
    ],
    [
      "a server section that is a list (not 'no servers')",
      '{"mcpServers": []}',
      'line 1, column 16: "mcpServers" is not an object of servers (it is a list)',
    ],
    [
      "values nested 20,000 deep (the parser would overflow its stack)",
      `{"mcpServers": {}, "x": ${"[".repeat(20_000)}${"]".repeat(20_000)}}`,
      "line 1, column 1024: values nest more than 1000 levels deep",
    ],
  ])("readJsonConfig() refuses %s", (_, text, message) => {
    expect(() => read(text)).toThrow(message);
  });

  const GENERIC = { keys: ["mcpServers", "servers", "context_servers"], projects: false };
  test("readJsonConfig() of an unknown client's file says a server key holding a list is not an object", () => {
    expect(() => readJsonConfig('{"mcpServers": []}', { format: "json", sections: GENERIC })).toThrow(
      'line 1, column 16: "mcpServers" is not an object of servers (it is a list)',
    );
  });

  test("readJsonConfig() of an unknown client's file passes over a list under another candidate key", () => {
    const config = readJsonConfig('{"servers": [1], "mcpServers": {"a": {"command": "x"}}}', {
      format: "json",
      sections: GENERIC,
    });
    expect(config.sections).toEqual([["mcpServers"]]);
    expect(config.entries.map((entry) => entry.name)).toEqual(["a"]);
  });
});
