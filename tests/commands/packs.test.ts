import { describe, expect, test } from "bun:test";
import { memoryIo } from "../../src/commands/io.ts";
import { runPacksList, runPacksShow } from "../../src/commands/packs.ts";
import { BouncerError } from "../../src/platform/errors.ts";
import { builtinPacks, builtinPackTexts } from "../../src/platform/packs.ts";
import { runCli } from "../run-cli.ts";

describe("bouncer packs (subprocess)", () => {
  test("bouncer packs list names every built-in pack", async () => {
    const run = await runCli(["packs", "list"]);
    expect(run.code).toBe(0);
    for (const pack of ["filesystem", "gmail", "slack", "github", "gdrive", "fetch"]) {
      expect(run.stdout).toMatch(new RegExp(`^${pack}\\s`, "m"));
    }
    // A command that is also a serverInfo name is listed once.
    const github = run.stdout.split("\n").find((line) => line.startsWith("github")) ?? "";
    const listed = (github.split(/\s{2,}/).at(-1) ?? "").split(", ");
    expect(listed.filter((name) => name === "github-mcp-server")).toHaveLength(1);
    expect(new Set(listed).size).toBe(listed.length);
  });

  test("bouncer packs show NAME prints the embedded pack file", async () => {
    const run = await runCli(["packs", "show", "gmail"]);
    expect(run.code).toBe(0);
    const text = builtinPackTexts().find(([name]) => name === "gmail")?.[1] ?? "";
    expect(run.stdout.trim()).toBe(text.trim());
  });

  test("bouncer packs show with an unknown name exits 2 and lists the packs", async () => {
    const run = await runCli(["packs", "show", "nope"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Unknown pack "nope": the packs are filesystem');
  });

  test("bouncer packs without a subcommand exits 2", async () => {
    expect((await runCli(["packs"])).code).toBe(2);
  });
});

describe("runPacksList() and runPacksShow()", () => {
  test("runPacksList() --json lists each pack with its match patterns and tool count", () => {
    const out = memoryIo();
    expect(runPacksList({ json: true }, out.io)).toBe(0);
    const list = JSON.parse(out.stdout()) as { name: string; tools: number; match: { commands: string[] } }[];
    expect(list.map((pack) => pack.name)).toEqual(builtinPacks().map((pack) => pack.name));
    expect(list.find((pack) => pack.name === "filesystem")?.match.commands).toContain(
      "@modelcontextprotocol/server-filesystem",
    );
    expect(list.every((pack) => pack.tools > 0)).toBe(true);
  });

  test("runPacksShow() --json prints the pack's tool entries", () => {
    const out = memoryIo();
    expect(runPacksShow("filesystem", { json: true, io: out.io })).toBe(0);
    const pack = JSON.parse(out.stdout()) as { name: string; tools: Record<string, unknown> };
    expect(pack.name).toBe("filesystem");
    expect(Object.keys(pack.tools)).toContain("write_file");
  });

  test("runPacksShow() refuses a prototype name as an unknown pack", () => {
    expect(() => runPacksShow("constructor", { io: memoryIo().io })).toThrow(BouncerError);
  });
});
