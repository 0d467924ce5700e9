import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { clientInfo } from "../../src/init/client-table.ts";
import { planInit } from "../../src/init/plan.ts";
import type { Launcher } from "../../src/init/types.ts";

const LAUNCHER: Launcher = { command: "/b/bouncer", prefixArgs: [] };
const CURSOR = clientInfo("cursor");
const ZED = clientInfo("zed");

/** Wraps with the plain launcher and no policy. */
function wrap(text: string, client = CURSOR): string {
  return planInit(text, { client, mode: "wrap", launcher: LAUNCHER }).after;
}

/** Restores. */
function undo(text: string, client = CURSOR): string {
  return planInit(text, { client, mode: "undo" }).after;
}

interface Row {
  readonly name: string;
  readonly before: string;
  readonly after: string;
}

const S = '"x-bouncer-upstream": {"command": "npx", "args": []}';

const rows: Row[] = [
  {
    name: "args absent, one line",
    before: '{"mcpServers": {"a": {"command": "npx"}}}',
    after: `{"mcpServers": {"a": {"command": "/b/bouncer", "args": [ "run", "--upstream-name", "a", "--", "npx" ], ${S}}}}`,
  },
  {
    name: "args absent, multi-line",
    before: '{\n  "mcpServers": {\n    "a": {\n      "command": "npx"\n    }\n  }\n}\n',
    after: `{\n  "mcpServers": {\n    "a": {\n      "command": "/b/bouncer",\n      "args": [ "run", "--upstream-name", "a", "--", "npx" ],\n      ${S}\n    }\n  }\n}\n`,
  },
  {
    name: "args empty",
    before: '{"mcpServers": {"a": {"command": "npx", "args": []}}}',
    after: `{"mcpServers": {"a": {"command": "/b/bouncer", "args": ["run", "--upstream-name", "a", "--", "npx"], ${S}}}}`,
  },
  {
    name: "args on one line",
    before: '{"mcpServers": {"a": {"command": "npx", "args": ["-y", "p"]}}}',
    after:
      '{"mcpServers": {"a": {"command": "/b/bouncer", "args": ["run", "--upstream-name", "a", "--", "npx", "-y", "p"], "x-bouncer-upstream": {"command": "npx", "args": ["-y", "p"]}}}}',
  },
  {
    name: "args one per line with CRLF and tabs",
    before:
      '{\r\n\t"mcpServers": {\r\n\t\t"a": {\r\n\t\t\t"command": "npx",\r\n\t\t\t"args": [\r\n\t\t\t\t"p"\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}',
    after:
      '{\r\n\t"mcpServers": {\r\n\t\t"a": {\r\n\t\t\t"command": "/b/bouncer",\r\n\t\t\t"args": [\r\n\t\t\t\t"run",\r\n\t\t\t\t"--upstream-name",\r\n\t\t\t\t"a",\r\n\t\t\t\t"--",\r\n\t\t\t\t"npx",\r\n\t\t\t\t"p"\r\n\t\t\t],\r\n\t\t\t"x-bouncer-upstream": {"command": "npx", "args": ["p"]}\r\n\t\t}\r\n\t}\r\n}',
  },
  {
    name: "non-ASCII and escapes kept as written",
    before: '{"mcpServers": {"é": {"command": "n\\u0070x", "args": ["日本"]}}}',
    after:
      '{"mcpServers": {"é": {"command": "/b/bouncer", "args": ["run", "--upstream-name", "é", "--", "n\\u0070x", "日本"], "x-bouncer-upstream": {"command": "npx", "args": ["日本"]}}}}',
  },
];

describe("wrapJsonEntry()", () => {
  test.each(rows)("planInit() wraps a JSON entry exactly: $name", (row) => {
    expect(wrap(row.before)).toBe(row.after);
    expect(undo(row.after)).toBe(row.before);
  });

  test("planInit() keeps a trailing comma after the last property of a JSONC entry", () => {
    const before = '{\n  "context_servers": {\n    "a": {\n      "command": "x",\n    },\n  },\n}\n';
    const after = wrap(before, ZED);
    expect(after).toBe(
      '{\n  "context_servers": {\n    "a": {\n      "command": "/b/bouncer",\n      "args": [ "run", "--upstream-name", "a", "--", "x" ],\n    },\n  },\n}\n',
    );
    expect(undo(after, ZED)).toBe(before);
  });

  test('planInit() undo of an entry without args whose file a client rewrote (stash gone) leaves "args": [], not a blank line', () => {
    const wrapped = JSON.parse(wrap('{"mcpServers": {"a": {"command": "srv", "env": {}}}}'));
    delete wrapped.mcpServers.a["x-bouncer-upstream"];
    const restored = undo(`${JSON.stringify(wrapped, null, 2)}\n`);
    expect(restored).toBe(
      '{\n  "mcpServers": {\n    "a": {\n      "command": "srv",\n      "env": {},\n      "args": []\n    }\n  }\n}\n',
    );
  });

  test("planInit() replaces a stale stash instead of adding a second one", () => {
    const before =
      '{"mcpServers": {"a": {"command": "npx", "x-bouncer-upstream": {"command": "old", "args": []}}}}';
    const after = wrap(before);
    expect(after.match(/x-bouncer-upstream/g)).toHaveLength(1);
    expect(JSON.parse(after).mcpServers.a["x-bouncer-upstream"]).toEqual({ command: "npx", args: [] });
  });

  test("planInit() refuses a file with a duplicate server name", () => {
    expect(() => wrap('{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}')).toThrow(
      'line 1, column 40: duplicate key "a"',
    );
  });
});

/** A JSON config generated from random entries and random layout. */
const configText = fc
  .record({
    servers: fc.uniqueArray(
      fc.record({
        name: fc.oneof(
          fc.constantFrom("__proto__", "constructor", "prototype"),
          fc.string({ minLength: 1, maxLength: 8 }),
        ),
        command: fc.string({ minLength: 1, maxLength: 10 }).filter((s) => s.trim() !== ""),
        args: fc.option(fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }), { nil: undefined }),
        env: fc.option(
          fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.string({ maxLength: 6 })),
          {
            nil: undefined,
          },
        ),
        disabled: fc.option(fc.boolean(), { nil: undefined }),
      }),
      { selector: (server) => server.name, maxLength: 4 },
    ),
    indent: fc.constantFrom(0, 1, 2, 4, "\t"),
    crlf: fc.boolean(),
    finalNewline: fc.boolean(),
  })
  .map(({ servers, indent, crlf, finalNewline }) => {
    const mcpServers: Record<string, unknown> = {};
    for (const server of servers) {
      const entry: Record<string, unknown> = { command: server.command };
      if (server.args !== undefined) entry.args = server.args;
      if (server.env !== undefined) entry.env = server.env;
      if (server.disabled !== undefined) entry.disabled = server.disabled;
      Object.defineProperty(mcpServers, server.name, { value: entry, enumerable: true });
    }
    let text = JSON.stringify({ theme: "dark", mcpServers }, null, indent);
    if (crlf) text = text.replace(/\n/g, "\r\n");
    return finalNewline ? `${text}${crlf ? "\r\n" : "\n"}` : text;
  });

describe("planInit() properties on generated JSON configs", () => {
  test("planInit() undo after wrap gives back the original bytes, and a second wrap changes nothing", () => {
    fc.assert(
      fc.property(configText, (text) => {
        const wrapped = wrap(text);
        expect(wrap(wrapped)).toBe(wrapped);
        expect(undo(wrapped)).toBe(text);
        const value = JSON.parse(wrapped) as { theme: string };
        expect(value.theme).toBe("dark");
      }),
      { numRuns: 300 },
    );
  });
});
