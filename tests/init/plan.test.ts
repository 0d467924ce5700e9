// biome-ignore-all lint/suspicious/noTemplateCurlyInString: client placeholders such as ${VAR} are the data under test
import { describe, expect, test } from "bun:test";
import { structuredPatch } from "diff";
import fc from "fast-check";
import { applyEdits } from "jsonc-parser";
import { applyTextEdits, planInit } from "../../src/init/plan.ts";
import {
  BREW_LAUNCHER,
  parseAsClient,
  SAMPLES,
  type Sample,
  SOURCE_LAUNCHER,
  sampleClient,
  sampleText,
  serversOf,
} from "./samples.ts";

/** The 1-based line of an offset. */
function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

describe.each(SAMPLES.map((sample) => [sample.file, sample] as [string, Sample]))(
  "planInit() on %s",
  (_, sample) => {
    const before = sampleText(sample.file);
    const client = sampleClient(sample);
    const plan = planInit(before, {
      client,
      mode: "wrap",
      launcher: SOURCE_LAUNCHER,
      policies: ["/etc/bouncer/p.yaml"],
    });

    test("the wrapped output parses with the client's own format", () => {
      expect(() => parseAsClient(plan.after, client)).not.toThrow();
    });

    test("every stdio entry launches Bouncer with the original command and args after --", () => {
      const original = serversOf(parseAsClient(before, client), client);
      const wrapped = serversOf(parseAsClient(plan.after, client), client);
      const stdio = plan.config.entries.filter((entry) => entry.kind === "stdio");
      for (const entry of stdio) {
        const was = original.get(entry.name) ?? {};
        const now = wrapped.get(entry.name) ?? {};
        const [oldHolder, newHolder] =
          entry.nested === true
            ? [was.command as Record<string, unknown>, now.command as Record<string, unknown>]
            : [was, now];
        const oldCommand = entry.nested === true ? oldHolder.path : oldHolder.command;
        const newCommand = entry.nested === true ? newHolder.path : newHolder.command;
        expect(newCommand).toBe(SOURCE_LAUNCHER.command);
        expect(newHolder.args).toEqual([
          ...SOURCE_LAUNCHER.prefixArgs,
          "run",
          "--upstream-name",
          entry.name,
          "--policy",
          "/etc/bouncer/p.yaml",
          "--",
          oldCommand,
          ...((oldHolder.args as string[] | undefined) ?? []),
        ]);
      }
    });

    test("every other key of a wrapped entry is kept in place", () => {
      const original = serversOf(parseAsClient(before, client), client);
      const wrapped = serversOf(parseAsClient(plan.after, client), client);
      for (const [name, was] of original) {
        const now = wrapped.get(name) ?? {};
        for (const key of Object.keys(was).filter((k) => k !== "command" && k !== "args"))
          expect(now[key]).toEqual(was[key]);
        const keys = Object.keys(now).filter(
          (key) => key !== "x-bouncer-upstream" && (key !== "args" || "args" in was),
        );
        expect(keys).toEqual(Object.keys(was));
      }
    });

    test("every line outside the changed entries is byte-identical to the input", () => {
      const changed = plan.actions
        .filter((action) => action.action === "wrap")
        .map((action) => action.entry.span);
      const ranges = changed.map((span) => [lineOf(before, span.start), lineOf(before, span.end)] as const);
      const patch = structuredPatch("a", "b", before, plan.after, undefined, undefined, { context: 0 });
      for (const hunk of patch.hunks) {
        const first = hunk.oldLines === 0 ? hunk.oldStart + 1 : hunk.oldStart;
        const last = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart + hunk.oldLines - 1;
        expect(
          ranges.some(([from, to]) => from <= Math.min(first, last) && Math.max(first, last) <= to),
        ).toBe(true);
      }
    });

    test("a second init changes nothing", () => {
      const again = planInit(plan.after, { client, mode: "wrap", launcher: BREW_LAUNCHER });
      expect(again.changed).toBe(false);
      expect(again.after).toBe(plan.after);
    });

    test("--undo restores the original bytes exactly", () => {
      const undo = planInit(plan.after, { client, mode: "undo" });
      expect(undo.after).toBe(before);
    });

    test("no env value appears in the stash", () => {
      const wrapped = serversOf(parseAsClient(plan.after, client), client);
      for (const entry of plan.config.entries) {
        const stash = wrapped.get(entry.name)?.["x-bouncer-upstream"];
        if (stash === undefined) continue;
        expect(Object.keys(stash as object).sort()).toEqual(
          entry.cwd === undefined ? ["args", "command"] : ["args", "command", "cwd"],
        );
        const text = JSON.stringify(stash);
        const commandLine = JSON.stringify([entry.command, ...(entry.args ?? [])]);
        for (const [, value] of entry.env) {
          if (value.length > 3 && !commandLine.includes(value)) expect(text).not.toContain(value);
        }
      }
    });
  },
);

describe("planInit() on single cases", () => {
  test("planInit() keeps JSONC comments and trailing commas and neither wraps nor removes a commented-out server", () => {
    const sample = SAMPLES.find((s) => s.file.includes("f12"));
    const before = sampleText(sample?.file ?? "");
    const plan = planInit(before, {
      client: sampleClient(sample ?? SAMPLES[0]!),
      mode: "wrap",
      launcher: BREW_LAUNCHER,
    });
    expect(plan.after).toContain('    // "old": { "command": "foo" },\n');
    expect(plan.after).toContain('"/tmp"], },\n  }\n}');
    expect(plan.actions.map((action) => action.entry.name)).toEqual(["fs"]);
  });

  test("planInit() keeps every comment of the Zed settings and leaves the extension entry alone", () => {
    const before = sampleText("edge/zed-settings.SYNTHETIC.jsonc");
    const plan = planInit(before, {
      client: sampleClient({ file: "", kind: "zed" }),
      mode: "wrap",
      launcher: BREW_LAUNCHER,
    });
    for (const line of before.split("\n").filter((l) => l.trim().startsWith("//")))
      expect(plan.after).toContain(line);
    expect(plan.after).toContain(
      '"mcp-server-context7": {\n      "settings": { "default_minimum_tokens": "10000" },\n    },',
    );
    const kept = plan.actions.find((action) => action.entry.name === "mcp-server-context7");
    expect(kept?.action).toBe("keep");
  });

  test("planInit() keeps every TOML comment, the commented-out server and the remote server of config.toml", () => {
    const before = sampleText("codex.config.toml");
    const plan = planInit(before, {
      client: sampleClient({ file: "", kind: "codex" }),
      mode: "wrap",
      launcher: BREW_LAUNCHER,
    });
    for (const line of before.split("\n").filter((l) => l.includes("#"))) {
      const comment = line.slice(line.indexOf("#"));
      expect(plan.after).toContain(comment);
    }
    expect(plan.after).toContain('# [mcp_servers.old-sqlite]\n# command = "uvx"\n');
    expect(plan.after).toContain('[mcp_servers.figma]\nurl = "https://mcp.figma.com/mcp"\n');
    expect(plan.actions.find((a) => a.entry.name === "figma")?.message).toBe(
      '"figma" is a remote server (url): not wrapped',
    );
  });

  test("planInit() notes an entry whose command is a whole command line without args, and not an absolute path with spaces", () => {
    const before = JSON.stringify({
      mcpServers: {
        line: { command: "npx -y @modelcontextprotocol/server-memory" },
        path: { command: "C:\\Program Files\\nodejs\\node.exe" },
        split: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
      },
    });
    const plan = planInit(before, {
      client: sampleClient({ file: "", kind: "claude-code" }),
      mode: "wrap",
      launcher: BREW_LAUNCHER,
    });
    const messages = Object.fromEntries(plan.actions.map((action) => [action.entry.name, action.message]));
    expect(messages.line).toBe(
      'wrap "line" (its command "npx -y @modelcontextprotocol/server-memory" holds spaces and it has no args: started as one program\'s name, it will not start; split it into "command" and "args" if the server does not start)',
    );
    expect(messages.path).toBe('wrap "path"');
    expect(messages.split).toBe('wrap "split"');
  });

  test("planInit() masks the secrets of a whole command line in its note, as the diff does", () => {
    const before = JSON.stringify({
      mcpServers: {
        flags: { command: "npx -y pkg --api-key sk-abcdefghijklmnopqrstuvwx12345 --password=hunter2hunter2" },
        env: { command: "GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB npx" },
      },
    });
    const plan = planInit(before, {
      client: sampleClient({ file: "", kind: "claude-code" }),
      mode: "wrap",
      launcher: BREW_LAUNCHER,
    });
    const notes = plan.actions.map((action) => action.message).join("\n");
    expect(notes).toContain('its command "npx -y pkg --api-key ******** ********" holds spaces');
    expect(notes).toContain('its command "******** npx" holds spaces');
    for (const secret of ["sk-abcdefghij", "hunter2", "ghp_0123"]) expect(notes).not.toContain(secret);
  });

  test("planInit() leaves a remote-only file untouched and reports the remote entry", () => {
    const before = sampleText("edge/cursor-remote-url-only.mcp.json");
    const plan = planInit(before, {
      client: sampleClient({ file: "", kind: "cursor" }),
      mode: "wrap",
      launcher: BREW_LAUNCHER,
    });
    expect(plan.changed).toBe(false);
    expect(plan.after).toBe(before);
    expect(plan.actions).toHaveLength(1);
    expect(plan.actions[0]?.message).toBe('"Sentry" is a remote server (url): not wrapped');
  });

  test("planInit() wraps a Windows cmd /c entry as it is, path with a space as one argument", () => {
    const before = sampleText("edge/claude-desktop-windows.SYNTHETIC.json");
    const plan = planInit(before, {
      client: sampleClient({ file: "", kind: "claude-desktop" }),
      mode: "wrap",
      launcher: BREW_LAUNCHER,
    });
    const after = JSON.parse(plan.after) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    expect(after.mcpServers.filesystem?.args.slice(3)).toEqual([
      "--",
      "cmd",
      "/c",
      "npx",
      "-y",
      "@modelcontextprotocol/server-filesystem",
      "C:\\Users\\<USER>\\Desktop",
      "C:\\Users\\<USER>\\Documents\\Obsidian\\My Vault",
    ]);
    expect(after.mcpServers.obsidian?.args.slice(3, 5)).toEqual(["--", "C:\\Program Files\\nodejs\\npx.cmd"]);
  });

  test("planInit() selects servers by --server and leaves the others byte-identical", () => {
    const before = sampleText("claude-code.mcp.json");
    const plan = planInit(before, {
      client: sampleClient({ file: "", kind: "claude-code" }),
      mode: "wrap",
      launcher: BREW_LAUNCHER,
      servers: ["playwright"],
    });
    expect(plan.actions.map((action) => action.entry.name)).toEqual(["playwright"]);
    const after = JSON.parse(plan.after) as { mcpServers: Record<string, { command: string }> };
    expect(after.mcpServers.velociraptor?.command).toBe(
      "/Users/<USER>/<ORG>/MCPs/velociraptor-mcp-venv/bin/python",
    );
    expect(after.mcpServers.playwright?.command).toBe(BREW_LAUNCHER.command);
  });

  test("planInit() --undo refuses an entry whose arguments after -- disagree with the stash", () => {
    const client = sampleClient({ file: "", kind: "cursor" });
    const text = JSON.stringify({
      mcpServers: {
        fs: {
          command: "/opt/homebrew/bin/bouncer",
          args: ["run", "--upstream-name", "fs", "--", "npx", "evil-server"],
          "x-bouncer-upstream": { command: "npx", args: ["good-server"] },
        },
      },
    });
    const plan = planInit(text, { client, mode: "undo" });
    expect(plan.changed).toBe(false);
    expect(plan.actions[0]?.action).toBe("refuse");
  });

  test("planInit() --undo keeps edits made to a wrapped entry since wrapping", () => {
    const client = sampleClient({ file: "", kind: "vscode" });
    const before = sampleText("vscode.mcp.json");
    const wrapped = planInit(before, { client, mode: "wrap", launcher: BREW_LAUNCHER }).after;
    const edited = wrapped
      .replace('"start-stdio"', '"start-stdio", "--verbose"')
      .replace('"type": "stdio",', '"type": "stdio",\n\t\t\t"disabled": false,');
    const undo = planInit(edited, { client, mode: "undo" });
    const value = JSON.parse(undo.after) as { servers: Record<string, Record<string, unknown>> };
    expect(value.servers["vscode-playwright-mcp"]).toEqual({
      type: "stdio",
      disabled: false,
      command: "npm",
      args: ["run", "start-stdio", "--verbose"],
      cwd: "${workspaceFolder}/test/mcp",
    });
  });

  test("planInit() tells an added args property from an empty one when undoing", () => {
    const client = sampleClient({ file: "", kind: "zed" });
    for (const before of [
      '{"context_servers": {"a": {"command": "x"}}}\n',
      '{"context_servers": {"a": {"command": "x", "args": []}}}\n',
    ]) {
      const wrapped = planInit(before, { client, mode: "wrap", launcher: BREW_LAUNCHER }).after;
      expect(planInit(wrapped, { client, mode: "undo" }).after).toBe(before);
    }
  });

  test("planInit() stores no stash for an entry whose arguments hold a secret", () => {
    const plan = planInit(sampleText("edge/f11-secrets.SYNTHETIC.mcp.json"), {
      client: sampleClient({ file: "", kind: "claude-code" }),
      mode: "wrap",
      launcher: BREW_LAUNCHER,
    });
    const after = JSON.parse(plan.after) as { mcpServers: Record<string, Record<string, unknown>> };
    expect(after.mcpServers["openai-tools"]?.["x-bouncer-upstream"]).toBeUndefined();
    expect(after.mcpServers.github?.["x-bouncer-upstream"]).toBeDefined();
    expect(plan.warnings.join("\n")).not.toContain("ghp_FAKE");
    expect(plan.warnings).toHaveLength(2);
  });
});

describe("applyTextEdits()", () => {
  test("applyTextEdits() gives what jsonc-parser's applyEdits gives, for any non-overlapping edits", () => {
    const arbitrary = fc
      .tuple(
        fc.string({ maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(4), fc.string({ maxLength: 5 })), { maxLength: 8 }),
      )
      .map(([text, raw]) => {
        // Cut the raw edits down to ranges of the text that do not overlap (an insertion may sit at
        // either end of a replaced range, or beside another insertion), keeping their order.
        const edits: { offset: number; length: number; content: string }[] = [];
        const clash = (a: { offset: number; length: number }, b: { offset: number; length: number }) =>
          a.offset < b.offset + b.length && b.offset < a.offset + a.length;
        for (const [at, length, content] of raw) {
          const offset = at % (text.length + 1);
          const edit = { offset, length: Math.min(length, text.length - offset), content };
          if (
            edits.some(
              (other) =>
                clash(edit, other) ||
                (edit.length === 0 && other.offset < offset && offset < other.offset + other.length) ||
                (other.length === 0 &&
                  edit.offset < other.offset &&
                  other.offset < edit.offset + edit.length),
            )
          )
            continue;
          edits.push(edit);
        }
        return { text, edits };
      });
    fc.assert(
      fc.property(arbitrary, ({ text, edits }) => {
        expect(applyTextEdits(text, edits)).toBe(applyEdits(text, edits));
      }),
      { numRuns: 2000 },
    );
  });

  test("applyTextEdits() refuses overlapping edits, as applyEdits does", () => {
    const edits = [
      { offset: 1, length: 3, content: "x" },
      { offset: 2, length: 1, content: "y" },
    ];
    expect(() => applyTextEdits("abcdef", edits)).toThrow(RangeError);
    expect(() => applyEdits("abcdef", edits)).toThrow();
  });
});
