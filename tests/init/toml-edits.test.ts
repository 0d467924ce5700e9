import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { parse } from "smol-toml";
import { clientInfo } from "../../src/init/client-table.ts";
import { planInit } from "../../src/init/plan.ts";
import { tomlString } from "../../src/init/toml-string.ts";
import type { Launcher } from "../../src/init/types.ts";

const LAUNCHER: Launcher = { command: "/b/bouncer", prefixArgs: ["/src/cli.ts"] };
const CODEX = clientInfo("codex");

/** Wraps. */
function wrap(text: string): string {
  return planInit(text, { client: CODEX, mode: "wrap", launcher: LAUNCHER }).after;
}

/** Restores. */
function undo(text: string): string {
  return planInit(text, { client: CODEX, mode: "undo" }).after;
}

const E = '"/src/cli.ts", "run", "--upstream-name", "a", "--"';

describe("wrapTomlEntry()", () => {
  test.each([
    {
      name: "a table with args",
      before: '[mcp_servers.a]\ncommand = "npx" # launcher\nargs = ["-y", "p"]\n',
      after: `[mcp_servers.a]\ncommand = "/b/bouncer" # launcher\nargs = [${E}, "npx", "-y", "p"]\n`,
    },
    {
      name: "a table without args (line added under command, comment kept on its line)",
      before: '[mcp_servers.a]\n  command = "npx" # launcher\n  env = { K = "v" }\n',
      after: `[mcp_servers.a]\n  command = "/b/bouncer" # launcher\n  args = [ ${E}, "npx" ]\n  env = { K = "v" }\n`,
    },
    {
      name: "an empty args array",
      before: '[mcp_servers.a]\ncommand = "npx"\nargs = []\n',
      after: `[mcp_servers.a]\ncommand = "/b/bouncer"\nargs = [${E}, "npx"]\n`,
    },
    {
      name: "dotted keys under [mcp_servers], CRLF, no final newline",
      before: "[mcp_servers]\r\na.command = 'C:\\npx.cmd'\r\na.cwd = \"/w\"",
      after: `[mcp_servers]\r\na.command = "/b/bouncer"\r\na.args = [ ${E}, 'C:\\npx.cmd' ]\r\na.cwd = "/w"`,
    },
    {
      name: "an inline table",
      before: 'mcp_servers.a = { command = "npx", env = { K = "v" } }\n',
      after: `mcp_servers.a = { command = "/b/bouncer", args = [ ${E}, "npx" ], env = { K = "v" } }\n`,
    },
    {
      name: "a multi-line args array with comments",
      before:
        '[mcp_servers.a]\ncommand = "docker"\nargs = [\n  # image below\n  "run", # sub-command\n  "img",\n]\n',
      after: `[mcp_servers.a]\ncommand = "/b/bouncer"\nargs = [\n  # image below\n  "/src/cli.ts",\n  "run",\n  "--upstream-name",\n  "a",\n  "--",\n  "docker",\n  "run", # sub-command\n  "img",\n]\n`,
    },
  ])("planInit() edits Codex TOML in place: $name", ({ before, after }) => {
    expect(wrap(before)).toBe(after);
    expect(undo(after)).toBe(before);
    expect(() => parse(after)).not.toThrow();
  });

  test("planInit() refuses a TOML file that does not parse, with its line and column", () => {
    expect(() => wrap('[mcp_servers.a]\ncommand = "npx\n')).toThrow(/^line 2, column \d+: /);
  });
});

/** A Codex config generated from random servers and layout. */
const codexText = fc
  .record({
    servers: fc.uniqueArray(
      fc.record({
        name: fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/),
        command: fc.string({ minLength: 1, maxLength: 10 }),
        args: fc.option(fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }), { nil: undefined }),
        comment: fc.boolean(),
        indent: fc.constantFrom("", "  ", "\t"),
        env: fc.boolean(),
      }),
      { selector: (server) => server.name, maxLength: 4 },
    ),
    crlf: fc.boolean(),
  })
  .filter(({ servers }) => servers.every((s) => s.command.trim() !== ""))
  .map(({ servers, crlf }) => {
    const lines = ["# Codex", 'model = "o3"', ""];
    for (const s of servers) {
      lines.push(`[mcp_servers.${s.name}]`);
      lines.push(`${s.indent}command = ${tomlString(s.command)}${s.comment ? " # the server" : ""}`);
      if (s.args !== undefined) lines.push(`${s.indent}args = [${s.args.map(tomlString).join(", ")}]`);
      if (s.env) lines.push(`${s.indent}env = { TOKEN = "t" }`);
      lines.push("");
    }
    return lines.join(crlf ? "\r\n" : "\n");
  });

describe("planInit() properties on generated Codex configs", () => {
  test("planInit() undo after wrap gives back the original TOML bytes, and a second wrap changes nothing", () => {
    fc.assert(
      fc.property(codexText, (text) => {
        const wrapped = wrap(text);
        expect(wrap(wrapped)).toBe(wrapped);
        expect(undo(wrapped)).toBe(text);
        expect((parse(wrapped) as { model: string }).model).toBe("o3");
      }),
      { numRuns: 200 },
    );
  });
});
