import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JsonObject, ToolDefinition } from "../../src/engine/index.ts";
import { builtinPacks, builtinPackTexts } from "../../src/platform/packs.ts";
import { createPolicy, matchPacks, type Pack, resolveToolRules } from "../../src/policy/index.ts";

const ROOT = resolve(import.meta.dir, "../..");
const FS_BIN = join(ROOT, "node_modules", ".bin", "mcp-server-filesystem");
const FS_PACKAGE = JSON.parse(
  readFileSync(join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/package.json"), "utf8"),
) as { version: string };

function pack(name: string): Pack {
  const found = builtinPacks().find((p) => p.name === name);
  if (!found) throw new Error(`no pack ${name}`);
  return found;
}

/** Every argument path a tool entry names (sink_params, write_params, arg_patterns keys). */
function namedPaths(p: Pack, tool: string): string[] {
  const entry = p.tools.get(tool);
  return [...(entry?.sinkParams ?? []), ...(entry?.writeParams ?? []), ...(entry?.argPatterns?.keys() ?? [])];
}

describe("builtinPacks() (SPEC §4.3, §6 embedded packs)", () => {
  test("builtinPacks() embeds every packs/*.yaml file, each valid", () => {
    const files = readdirSync(join(ROOT, "packs"))
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => f.slice(0, -5))
      .sort();
    expect(
      builtinPacks()
        .map((p) => p.name)
        .sort(),
    ).toEqual(files);
    expect(
      builtinPackTexts()
        .map(([name]) => name)
        .sort(),
    ).toEqual(files);
  });

  test("builtinPacks() inlines the pack texts when bundled, so a compiled binary needs no packs/ folder", async () => {
    const built = await Bun.build({ entrypoints: [join(ROOT, "src/platform/packs.ts")], target: "bun" });
    expect(built.success).toBe(true);
    const bundle = await built.outputs[0]!.text();
    for (const [name, text] of builtinPackTexts()) {
      const line = text.split("\n").find((l) => l.startsWith("  commands:")) ?? `missing commands in ${name}`;
      expect({ name, inlined: bundle.includes(line) }).toEqual({ name, inlined: true });
    }
    expect(bundle).not.toMatch(/readFile|import\("[^"]*\.yaml"\)/u);
  });

  test.each(["filesystem", "gmail", "slack", "github", "gdrive", "fetch"])(
    "the %s pack says in its header which server and version it was checked against",
    (name) => {
      const header = pack(name).header;
      expect(header).toMatch(/^Pack: /u);
      expect(header).toContain("Checked against:");
    },
  );

  test("the filesystem pack's header names the installed server version", () => {
    expect(pack("filesystem").header).toContain(FS_PACKAGE.version);
  });

  test.each([
    ["gmail", "send_email", ["to", "cc", "bcc"]],
    ["gmail", "draft_email", ["to", "cc", "bcc"]],
    ["gmail", "create_filter", ["action.forward"]],
    ["slack", "slack_post_message", ["channel_id"]],
    ["slack", "conversations_add_message", ["channel_id"]],
    ["github", "push_files", ["owner", "repo"]],
    ["github", "create_pull_request", ["owner", "repo"]],
    ["github", "fork_repository", ["organization"]],
    ["gdrive", "share_drive_file", ["share_with"]],
    ["fetch", "fetch", ["url"]],
  ] as const)("the %s pack makes %s exfiltrating with sinks %p", (name, tool, sinks) => {
    const entry = pack(name).tools.get(tool);
    expect(entry?.exfiltrating).toBe(true);
    expect(entry?.sinkParams).toEqual([...sinks]);
  });

  test.each(["fetch", "puppeteer_navigate", "browser_navigate"])(
    "the fetch pack asks on a tainted URL for %s",
    (tool) => {
      expect(pack("fetch").tools.get(tool)?.onTainted).toBe("ask");
    },
  );

  test("the filesystem pack states exfiltrating: false for move_file, whose destination is a path", () => {
    expect(pack("filesystem").tools.get("move_file")).toMatchObject({
      exfiltrating: false,
      writeParams: ["source", "destination"],
    });
  });
});

describe("the filesystem pack against the real @modelcontextprotocol/server-filesystem (SPEC §4.3)", () => {
  let dir = "";
  let tools: ToolDefinition[] = [];
  let serverName = "";

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "bouncer-fs-pack-"));
    const client = new Client({ name: "bouncer-pack-test", version: "0.0.0" });
    const transport = new StdioClientTransport({ command: FS_BIN, args: [dir], stderr: "ignore" });
    await client.connect(transport);
    serverName = client.getServerVersion()?.name ?? "";
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...(page.tools as unknown as ToolDefinition[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    await client.close();
  }, 30_000);

  afterAll(() => {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
    tools = [];
  });

  function properties(tool: ToolDefinition): JsonObject {
    const props = tool.inputSchema?.properties;
    return typeof props === "object" && props !== null && !Array.isArray(props) ? props : {};
  }

  test("every tool the filesystem pack names exists in the real tools/list", () => {
    const listed = new Set(tools.map((t) => t.name));
    const named = [...pack("filesystem").tools.keys()];
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !listed.has(name))).toEqual([]);
  });

  test("every argument the filesystem pack names exists in the real tool's input schema", () => {
    const missing: string[] = [];
    for (const name of pack("filesystem").tools.keys()) {
      const tool = tools.find((t) => t.name === name);
      for (const path of namedPaths(pack("filesystem"), name)) {
        const first = path.split(".")[0]?.replace(/\[\]/gu, "") ?? "";
        if (!tool || !Object.hasOwn(properties(tool), first)) missing.push(`${name}.${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("the filesystem pack covers every tool of the real server and confines every writing one", () => {
    const fs = pack("filesystem");
    expect(tools.map((t) => t.name).filter((name) => !fs.tools.has(name))).toEqual([]);
    const writing = tools.filter((t) => t.annotations?.readOnlyHint === false).map((t) => t.name);
    expect(writing.length).toBeGreaterThan(0);
    for (const name of writing) {
      expect(fs.tools.get(name)?.writeParams?.length ?? 0).toBeGreaterThan(0);
      expect(fs.tools.get(name)?.allowedPathPrefixes).toEqual(["$COMMAND_LINE_DIRS"]);
    }
  });

  test("the filesystem pack matches the real server by serverInfo.name and by its command line", () => {
    expect(
      matchPacks(builtinPacks(), { serverInfoName: serverName, upstreamName: "x" }).map((m) => m.pack.name),
    ).toEqual(["filesystem"]);
    expect(
      matchPacks(builtinPacks(), { command: [FS_BIN, dir], upstreamName: "x" }).map((m) => m.pack.name),
    ).toEqual(["filesystem"]);
  });

  test("resolveToolRules() confines the real write_file to the server's directory, with no heuristic budget", () => {
    const command = [FS_BIN, dir];
    const policy = createPolicy([], builtinPacks());
    const packs = matchPacks(policy.packs, { command, upstreamName: "fs" });
    const writeFile = tools.find((t) => t.name === "write_file");
    expect(writeFile?.annotations?.destructiveHint).toBe(true);
    const rules = resolveToolRules(policy, {
      server: "fs",
      tool: "write_file",
      packs,
      command,
      ...(writeFile ? { definition: writeFile } : {}),
    });
    expect(rules.allowedPathPrefixes).toEqual({ value: [dir], source: "pack:filesystem" });
    expect(rules.writeParams).toEqual({ value: ["path"], source: "pack:filesystem" });
    expect(rules.exfiltrating).toEqual({ value: false, source: "pack:filesystem" });
    expect(rules.maxCalls).toBeUndefined();
  });
});
