import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The README's worked-example policy: the first ```yaml block. */
function readmePolicy(): string {
  const match = /```yaml\n([\s\S]*?)```/.exec(README);
  if (match?.[1] === undefined) throw new Error("README.md has no yaml block");
  return match[1];
}

async function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, join(ROOT, "src/cli.ts"), ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

describe("README.md (STYLE #21: the README's examples are checked)", () => {
  const dir = mkdtempSync(join(tmpdir(), "bouncer-readme-"));
  const policy = join(dir, "bouncer.yaml");
  writeFileSync(policy, readmePolicy());

  test("README's worked-example policy passes bouncer check", async () => {
    const run = await cli(["check", "--policy", policy]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  });

  test("README's worked-example table holds: replay gives allow, allow, deny, ask, ask under its policy", async () => {
    const run = await cli([
      "replay",
      "tests/fixtures/sessions/worked-example.jsonl",
      "--policy",
      policy,
      "--json",
    ]);
    expect(run.code).toBe(0);
    const rows = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { verdict?: string; tool?: string });
    const verdicts = rows.filter((row) => row.verdict !== undefined).map((row) => row.verdict);
    expect(verdicts).toEqual(["allow", "allow", "deny", "ask", "ask"]);
    expect(README).toContain('| `send_email(to="bob@partner.example")` | ask |');
  });

  test("README's synopsis names every command with flags its --help lists, and every --help flag", async () => {
    const block = /Synopsis[^\n]*\n\n```\n([\s\S]*?)```/.exec(README)?.[1];
    expect(block).toBeDefined();
    // Continuation lines (indented) belong to the command above them.
    const entries = (block ?? "").split(/\n(?=bouncer )/).map((entry) => entry.replace(/\s+/g, " ").trim());
    const commands = entries.map((entry) => /^bouncer ((?:packs|pins) \w+|\w+)/.exec(entry)?.[1]);
    expect(commands).toEqual([
      "run",
      "init",
      "doctor",
      "check",
      "explain",
      "replay",
      "packs list",
      "packs show",
      "audit",
      "pins list",
      "pins accept",
      "pins forget",
    ]);
    for (const [index, entry] of entries.entries()) {
      const command = commands[index] ?? "";
      const help = await cli([...command.split(" "), "--help"]);
      expect(help.code).toBe(0);
      const listed = new Set([...help.stdout.matchAll(/^\s+(--[\w-]+)/gm)].map((match) => match[1]));
      const named = new Set([...entry.matchAll(/(--[a-z][\w-]*)/g)].map((match) => match[1]));
      for (const flag of named)
        expect({ command, flag, listed: listed.has(flag) }).toEqual({ command, flag, listed: true });
      // `run` shows its common flags and points to the full list below it; the others show all.
      if (command === "run") continue;
      for (const flag of listed) {
        if (flag === "--help" || flag === "--version") continue;
        expect({ command, flag, named: named.has(flag) }).toEqual({ command, flag, named: true });
      }
    }
  });
});
