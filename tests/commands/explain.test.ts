import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { definitionFrom, runExplain } from "../../src/commands/explain.ts";
import { memoryIo } from "../../src/commands/io.ts";
import { BouncerError } from "../../src/platform/errors.ts";
import { REPO, runCli } from "../run-cli.ts";

const POLICY = "tests/fixtures/policies/worked-example.yaml";

interface ExplainJson {
  packs: { name: string; by: string }[];
  rules: { key: string; value: unknown; source: string }[];
  destinations?: {
    rule: string;
    declared?: string[];
    sink_shaped?: string[];
    why?: string;
    unlisted_arguments?: boolean;
  };
}

async function explain(options: {
  tool: string;
  server?: string;
  schema?: string;
  policies?: string[];
}): Promise<ExplainJson> {
  const out = memoryIo({ cwd: REPO });
  expect(await runExplain({ policies: [POLICY], ...options, json: true }, out.io)).toBe(0);
  return JSON.parse(out.stdout()) as ExplainJson;
}

describe("bouncer explain (subprocess)", () => {
  test("bouncer explain prints each effective rule with its layer and the pack that matched", async () => {
    const run = await runCli(["explain", "send_email", "--server", "gmail", "--policy", POLICY]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /exfiltrating: true\s+\(user:tests\/fixtures\/policies\/worked-example\.yaml\)/,
    );
    expect(run.stdout).toMatch(/sink_params: cc\s+\(pack:gmail\)/);
    expect(run.stdout).toContain("Packs:\n  gmail");
  });

  test("bouncer explain TOOL --server NAME -- COMMAND matches packs by the command line, as bouncer run does", async () => {
    const gmail = ["bun", "server.ts", "@gongrzhe/server-gmail-autoauth-mcp"];
    const run = await runCli(["explain", "create_filter", "--server", "mail", "--json", "--", ...gmail]);
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout) as ExplainJson & { matched_on: unknown; packs_note?: string };
    expect(document.packs.map((pack) => [pack.name, pack.by])).toEqual([["gmail", "command"]]);
    expect(document.matched_on).toEqual({ upstream_name: "mail", command: gmail });
    expect(document.packs_note).toContain("No --server-info-name given");
    const named = await runCli(["explain", "create_filter", "--server", "github", "--", ...gmail]);
    expect(named.stdout).toContain("Packs:\n  gmail  (command @gongrzhe/server-gmail-autoauth-mcp");
    expect(named.stdout).not.toContain("github  (server name");
  });

  test("bouncer explain exits 2 on an empty TOOL, which names no tool", async () => {
    const run = await runCli(["explain", ""]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain('Cannot run "bouncer explain": TOOL is empty');
  });

  test("bouncer explain exits 2 on an invalid policy, naming line and column", async () => {
    const run = await runCli(["explain", "send_email", "--policy", "tests/fixtures/policies/bad-keys.yaml"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("line 3, column 3");
  });
});

describe("runExplain()", () => {
  test("runExplain() --json names where taint_min_length and heuristics came from, the part of a file too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-explain-sources-"));
    const file = join(dir, "p.yaml");
    writeFileSync(file, "defaults: { taint_min_length: 9 }\nsend: { exfiltrating: true }\n");
    const out = memoryIo({ cwd: REPO });
    expect(await runExplain({ tool: "send", policies: [file], json: true }, out.io)).toBe(0);
    expect(JSON.parse(out.stdout())).toMatchObject({
      taint_min_length: 9,
      taint_min_length_source: `user:${file}`,
      taint_min_length_layer: "defaults",
      heuristics: true,
      heuristics_source: "default",
    });
    expect(JSON.parse(out.stdout())).not.toHaveProperty("heuristics_layer");
  });

  test("runExplain() --schema says in plain words why the file cannot be read or parsed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-explain-schema-"));
    writeFileSync(join(dir, "bad.json"), '{"inputSchema":');
    const run = (schema: string) =>
      runExplain({ tool: "t", schema, policies: [] }, memoryIo({ cwd: dir }).io);
    await expect(run("missing.json")).rejects.toThrow(/^Cannot read schema "missing\.json": no such file$/);
    await expect(run(".")).rejects.toThrow('Cannot read schema ".": it is a folder, not a file (EISDIR)');
    await expect(run("bad.json")).rejects.toThrow(
      /^Cannot read schema "bad\.json": invalid JSON: (?!JSON Parse error)\S/,
    );
  });

  test("runExplain() says when no policy file or pack names the tool (a misspelt name), and not otherwise", async () => {
    const named = memoryIo({ cwd: REPO });
    await runExplain({ policies: [POLICY], tool: "send_emial" }, named.io);
    expect(named.stdout()).toContain("No top-level rule names send_emial: every rule above is a default");
    const known = memoryIo({ cwd: REPO });
    await runExplain({ policies: [POLICY], tool: "send_email" }, known.io);
    expect(known.stdout()).not.toContain("names send_email: every rule above is a default");
  });

  test("runExplain() --server alone says plainly that packs were looked for by the server name only", async () => {
    const out = memoryIo({ cwd: REPO });
    await runExplain({ tool: "create_filter", server: "mail", policies: [] }, out.io);
    expect(out.stdout()).toContain(
      "Packs: none matched\nPacks were looked for by the server name only: bouncer run also matches them by the upstream's command line and serverInfo.name",
    );
    const json = (await explain({ tool: "create_issue", server: "github" })) as ExplainJson & {
      matched_on: unknown;
      packs_note?: string;
    };
    expect(json.packs.map((pack) => [pack.name, pack.by])).toEqual([["github", "upstream_name"]]);
    expect(json.matched_on).toEqual({ upstream_name: "github" });
    expect(json.packs_note).toStartWith("Packs were looked for by the server name only");
  });

  test("runExplain() with the command line and serverInfo.name matches as run does and adds no note", async () => {
    const out = memoryIo({ cwd: REPO });
    const command = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"];
    const options = {
      tool: "write_file",
      server: "github",
      command,
      serverInfoName: "secure-filesystem-server",
    };
    await runExplain({ ...options, policies: [], json: true }, out.io);
    const document = JSON.parse(out.stdout()) as ExplainJson & { packs_note?: string };
    expect(document.packs.map((pack) => pack.name)).toEqual(["filesystem"]);
    expect(document.packs_note).toBeUndefined();
    // The command line's directories, as run confines writes to them.
    expect(document.rules).toContainEqual({
      key: "allowed_path_prefixes",
      value: ["/data"],
      source: "pack:filesystem",
    });
  });

  test("runExplain() --server-info-name without --server matches packs by serverInfo.name, not by a name", async () => {
    const out = memoryIo({ cwd: REPO });
    await runExplain(
      { tool: "write_file", serverInfoName: "secure-filesystem-server", policies: [] },
      out.io,
    );
    expect(out.stdout()).toContain("No --server given: servers.<name> entries are not applied");
    expect(out.stdout()).toContain("filesystem  (serverInfo.name secure-filesystem-server");
    expect(out.stdout()).toContain("No upstream command given (after --)");
  });

  test("runExplain() without --server applies no pack", async () => {
    const result = await explain({ tool: "send_email" });
    expect(result.packs).toEqual([]);
    expect(result.rules.every((row) => !row.source.startsWith("pack:"))).toBe(true);
  });

  test("runExplain() shows a pack's $COMMAND_LINE_DIRS confinement instead of none (no command line here)", async () => {
    const result = await explain({ tool: "write_file", server: "fs" });
    expect(result.rules).toContainEqual({
      key: "allowed_path_prefixes",
      value: ["$COMMAND_LINE_DIRS"],
      source: "pack:filesystem",
    });
    const out = memoryIo({ cwd: REPO });
    await runExplain({ tool: "write_file", server: "fs", policies: [POLICY] }, out.io);
    expect(out.stdout()).toContain("$COMMAND_LINE_DIRS: the directories on the server's command line");
  });

  test("runExplain() shows allowed_path_prefixes: [] with its layer and warns that it overrides the pack's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-explain-empty-"));
    writeFileSync(join(dir, "p.yaml"), "write_file: { allowed_path_prefixes: [] }\n");
    const out = memoryIo({ cwd: dir });
    expect(await runExplain({ tool: "write_file", server: "fs", policies: ["p.yaml"] }, out.io)).toBe(0);
    expect(out.stdout()).toMatch(/allowed_path_prefixes: \[\]\s+\(user:p\.yaml\)/);
    expect(out.stdout()).toContain(
      "Warning: write_file: allowed_path_prefixes: [] (user:p.yaml) confines nothing: it overrides the pack's allowed_path_prefixes [$COMMAND_LINE_DIRS] (pack:filesystem), so the tool's writes are not confined",
    );
    const json = memoryIo({ cwd: dir });
    await runExplain({ tool: "write_file", server: "fs", policies: ["p.yaml"], json: true }, json.io);
    const document = JSON.parse(json.stdout()) as ExplainJson & { warnings: { code: string }[] };
    expect(document.rules).toContainEqual({ key: "allowed_path_prefixes", value: [], source: "user:p.yaml" });
    expect(document.warnings.map((warning) => warning.code)).toEqual(["empty_prefixes"]);
  });

  test("runExplain() warns that a user's arg_patterns drop the pack's, naming them, and --json lists what was overridden", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-explain-patterns-"));
    writeFileSync(
      join(dir, "p.yaml"),
      'manage_drive_access: { arg_patterns: { action: "share|unshare" } }\n',
    );
    const options = { tool: "manage_drive_access", server: "gdrive", policies: ["p.yaml"] };
    const out = memoryIo({ cwd: dir });
    expect(await runExplain(options, out.io)).toBe(0);
    expect(out.stdout()).toMatch(
      /arg_patterns: \{action: share\|unshare\}\s+\(user:p\.yaml; overrides pack:gdrive\)/u,
    );
    expect(out.stdout()).toContain(
      'Warning: manage_drive_access: arg_patterns (user:p.yaml) overrides the pack\'s arg_patterns (pack:gdrive): merged key by key, your patterns replace the pack\'s, so share_type: "user|group|domain", recipients[].share_type: "user|group|domain" no longer apply',
    );
    const json = memoryIo({ cwd: dir });
    await runExplain({ ...options, json: true }, json.io);
    const document = JSON.parse(json.stdout()) as ExplainJson & {
      warnings: { code: string; overrides?: { source: string; dropped?: string[] } }[];
    };
    expect(document.rules).toContainEqual({
      key: "arg_patterns",
      value: { action: "share|unshare" },
      source: "user:p.yaml",
    });
    expect(document.warnings).toMatchObject([
      {
        code: "arg_patterns_overridden",
        overrides: { source: "pack:gdrive", dropped: ["share_type", "recipients[].share_type"] },
      },
    ]);
  });

  test("runExplain() warns of prefixes on a tool no layer gives write_params", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-explain-nowp-"));
    writeFileSync(join(dir, "p.yaml"), 'save_note: { allowed_path_prefixes: ["./notes"] }\n');
    const out = memoryIo({ cwd: dir });
    await runExplain({ tool: "save_note", policies: ["p.yaml"] }, out.io);
    expect(out.stdout()).toContain(
      "Warning: save_note: allowed_path_prefixes [./notes] (user:p.yaml) confines nothing: no layer names a path argument of save_note in write_params",
    );
  });

  test("runExplain() gives a destructive tool the heuristic budget", async () => {
    const result = await explain({ tool: "delete_item" });
    expect(result.rules).toContainEqual({ key: "max_calls", value: 2, source: "heuristic" });
  });

  test("runExplain() --schema feeds the heuristics: a sink-shaped argument makes the tool exfiltrating", async () => {
    const result = await explain({
      tool: "post_message",
      schema: "tests/fixtures/schemas/post-message.json",
    });
    expect(result.rules).toContainEqual({ key: "exfiltrating", value: true, source: "heuristic" });
  });
  test("runExplain() --schema names the destination arguments the sink gate reads (heuristic sink)", async () => {
    const schema = "tests/fixtures/schemas/post-message.json";
    const result = await explain({ tool: "post_message", schema });
    expect(result.destinations).toEqual({
      rule: "named",
      declared: [],
      sink_shaped: ["channel_id"],
      unlisted_arguments: true,
    });
    const run = await runCli(["explain", "post_message", "--schema", schema]);
    expect(run.stdout).toContain(
      "Destinations (sink gate): channel_id (sink-shaped name), any argument (or nested key) not in the schema, and nested values under sink-shaped keys",
    );
    expect(run.stdout).not.toContain("No --schema given");
    const bare = await runCli(["explain", "post_message"]);
    expect(bare.stdout).toContain("No --schema given: what the schema heuristics add");
  });

  test("runExplain() says every argument is a destination when no declared sink is in the schema", async () => {
    const dir = mkdtempSync(join(tmpdir(), "explain-dest-"));
    const policy = join(dir, "p.yaml");
    writeFileSync(policy, "post_message: { exfiltrating: true, sink_params: [recipient] }\n");
    const schema = "tests/fixtures/schemas/post-message.json";
    const result = await explain({ tool: "post_message", schema, policies: [policy] });
    expect(result.destinations).toEqual({ rule: "every", why: "declared_not_in_schema" });
    expect((await explain({ tool: "post_message", policies: [policy] })).destinations).toEqual({
      rule: "schema_needed",
      declared: ["recipient"],
    });
  });

  test("runExplain() says every argument is a destination because heuristics are off, when they are", async () => {
    const dir = mkdtempSync(join(tmpdir(), "explain-dest-"));
    const policy = join(dir, "p.yaml");
    writeFileSync(policy, "defaults: { heuristics: false }\npost_message: { exfiltrating: true }\n");
    const schema = "tests/fixtures/schemas/post-message.json";
    expect((await explain({ tool: "post_message", schema, policies: [policy] })).destinations).toEqual({
      rule: "every",
      why: "heuristics_off",
    });
  });

  test.skipIf(process.platform === "win32")("runExplain() refuses a FIFO as --schema at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "explain-fifo-"));
    const fifo = join(dir, "schema.json");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    await expect(
      runExplain({ tool: "t", schema: fifo, policies: [] }, memoryIo({ cwd: dir }).io),
    ).rejects.toThrow("it is not a regular file");
  });

  test("runExplain() gives no destinations for a tool that is not exfiltrating", async () => {
    expect((await explain({ tool: "read_file" })).destinations).toBeUndefined();
  });
});

describe("definitionFrom()", () => {
  test.each<[string, unknown]>([
    ["a tools/list result", { tools: [{ name: "t", inputSchema: { type: "object" } }] }],
    ["a tool definition", { name: "t", inputSchema: { type: "object" } }],
    ["a bare input schema", { type: "object" }],
    [
      "a JSON-RPC response holding a tools/list result",
      { jsonrpc: "2.0", id: 1, result: { tools: [{ name: "t", inputSchema: { type: "object" } }] } },
    ],
  ])("definitionFrom() reads %s", (_name, content) => {
    expect(definitionFrom(content as never, "t")).toMatchObject({
      name: "t",
      inputSchema: { type: "object" },
    });
  });

  test.each<[string, unknown]>([
    ["a list without the tool", { tools: [{ name: "other" }] }],
    ["a list", [1]],
    ["a non-object inputSchema", { inputSchema: "x" }],
    ["a definition of another tool", { name: "other_tool", inputSchema: { type: "object" } }],
  ])("definitionFrom() rejects %s with SCHEMA_INVALID", (_name, content) => {
    expect(() => definitionFrom(content as never, "t")).toThrow(BouncerError);
  });
});
