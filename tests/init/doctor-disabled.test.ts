import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { clientInfo } from "../../src/init/client-table.ts";
import { disabledEntries } from "../../src/init/doctor-disabled.ts";
import { readConfig } from "../../src/init/plan.ts";
import { runBouncer, tempDir } from "./run-helpers.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A server that leaves a mark when started, then never answers. */
function marking(marker: string): { command: string; args: string[] } {
  return { command: "sh", args: ["-c", 'touch "$0"; exec sleep 1014', marker] };
}

/** One row: what it shows, the client, the config text (entries `a` and `b`), what reads `a` off. */
type Row = readonly [string, Parameters<typeof clientInfo>[0], string, string | undefined];

describe("disabledEntries", () => {
  test.each<Row>([
    [
      'JSON "disabled": true',
      "cline",
      '{"mcpServers": {"a": {"command": "x", "disabled": true}, "b": {"command": "x"}}}',
      '"disabled": true',
    ],
    [
      'JSON "enabled": false',
      "zed",
      '{"context_servers": {"a": {"command": "x", "enabled": false}, "b": {"command": "x"}}}',
      '"enabled": false',
    ],
    [
      "TOML enabled = false",
      "codex",
      '[mcp_servers.a]\ncommand = "x"\nenabled = false\n[mcp_servers.b]\ncommand = "x"\n',
      "enabled = false",
    ],
    [
      'a ~/.claude.json project\'s "disabled": true',
      "claude-code",
      '{"projects": {"/p": {"mcpServers": {"a": {"command": "x", "disabled": true}}}}, "mcpServers": {"b": {"command": "x"}}}',
      '"disabled": true',
    ],
    [
      'a string "true", not a boolean, as on',
      "cline",
      '{"mcpServers": {"a": {"command": "x", "disabled": "true"}, "b": {"command": "x"}}}',
      undefined,
    ],
  ])("disabledEntries reads %s", (_, kind, text, expected) => {
    const client = clientInfo(kind);
    const config = readConfig(text, client);
    const read = disabledEntries(config);
    const a = config.entries.find((entry) => entry.name === "a");
    const b = config.entries.find((entry) => entry.name === "b");
    expect(a === undefined ? "none" : read(a)).toBe(expected);
    expect(b === undefined ? "none" : read(b)).toBeUndefined();
  });

  test("disabledEntries reads the document readConfig parsed, not the text again", () => {
    const client = clientInfo("cline");
    const config = readConfig('{"mcpServers": {"a": {"command": "x"}}}', client);
    const value = JSON.parse('{"mcpServers": {"a": {"command": "x", "disabled": true}}}') as unknown;
    const [a] = config.entries;
    expect(a === undefined ? "none" : disabledEntries({ ...config, value })(a)).toBe('"disabled": true');
  });
});

describe("doctorCommand", () => {
  test.each([
    [".mcp.json", (server: object) => ({ mcpServers: { off: { ...server, disabled: true } } })],
    [".zed/settings.json", (server: object) => ({ context_servers: { off: { ...server, enabled: false } } })],
  ])(
    "doctorCommand lists a server %s turns off as disabled and does not start it",
    async (relative, shape) => {
      const dir = tempDir("bouncer-doctor-");
      dirs.push(dir);
      const marker = path.join(dir, "started");
      const file = path.join(dir, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(shape(marking(marker))));
      const result = await runBouncer("doctor", ["--config", file, "--json"], {
        cwd: dir,
        doctor: { timeoutMs: 1000 },
      });
      const report = JSON.parse(result.stdout) as { servers: Record<string, unknown>[] };
      expect(report.servers).toMatchObject([{ server: "off", status: "disabled" }]);
      expect(result.code).toBe(0);
      expect(existsSync(marker)).toBe(false);
    },
  );

  test("doctorCommand shows a Codex server with enabled = false as disabled in the table", async () => {
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const marker = path.join(dir, "started");
    const file = path.join(dir, ".codex", "config.toml");
    mkdirSync(path.dirname(file));
    writeFileSync(
      file,
      `[mcp_servers.off]\ncommand = "sh"\nargs = ["-c", 'touch "$0"; exec sleep 1014', "${marker}"]\nenabled = false\n`,
    );
    const result = await runBouncer("doctor", ["--config", file], { cwd: dir, doctor: { timeoutMs: 1000 } });
    expect(result.stdout.split("\n")[1]).toMatch(/^off +Codex +no +disabled +- +- +- +- +- +-$/);
    expect(result.stdout).toContain("off (");
    expect(result.stdout).toContain("): disabled: its client does not start it (enabled = false)\n");
    expect(result.stderr).not.toContain("starting");
    expect(existsSync(marker)).toBe(false);
  });
});
