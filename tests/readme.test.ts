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
});
