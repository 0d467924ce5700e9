import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as policy from "../../src/policy/index.ts";

const ROOT = resolve(import.meta.dir, "../..");
const POLICY_DIR = join(ROOT, "src", "policy");
const SOURCES = readdirSync(POLICY_DIR)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => [f, readFileSync(join(POLICY_DIR, f), "utf8")] as const);

describe("src/policy is pure (SPEC §1, §6; STYLE #8)", () => {
  test.each(SOURCES)(
    "%s imports only yaml, valibot, the engine's index and its own folder",
    (_file, text) => {
      const specifiers = [...text.matchAll(/^\s*(?:import|export)[^;]*?from\s+"([^"]+)"/gmu)].map(
        (m) => m[1],
      );
      const bad = specifiers.filter(
        (s) =>
          !(
            s === "yaml" ||
            s === "valibot" ||
            s === "../engine/index.ts" ||
            /^\.\/[a-z-]+\.ts$/u.test(s ?? "")
          ),
      );
      expect(bad).toEqual([]);
    },
  );

  test.each(SOURCES)(
    "%s uses no runtime global (process, Bun, Deno, Buffer, console, Date, fetch, timers)",
    (_file, text) => {
      const code = text
        .replace(/\/\*[\s\S]*?\*\//gu, "")
        .replace(/"(?:[^"\\\n]|\\.)*"/gu, '""')
        .replace(/\/\/.*$/gmu, "");
      expect(
        code.match(/\b(?:process|Bun|Deno|Buffer|console|Date|fetch|setTimeout|setInterval|require)\b/gu) ??
          [],
      ).toEqual([]);
    },
  );

  test("the policy index exports the API the edges use, as named exports", () => {
    for (const name of [
      "checkPolicy",
      "parsePolicy",
      "checkPack",
      "parsePack",
      "checkPolicyFiles",
      "parsePolicyFiles",
      "createPolicy",
      "matchPacks",
      "resolveToolRules",
      "explainToolRules",
      "PolicyError",
      "formatPolicyIssue",
    ]) {
      expect(typeof Reflect.get(policy, name)).toBe("function");
    }
    expect(readFileSync(join(POLICY_DIR, "index.ts"), "utf8")).not.toContain("export *");
  });

  test("the policy module runs under Deno unchanged", () => {
    const deno = join(ROOT, "node_modules", ".bin", "deno");
    const run = Bun.spawnSync([deno, "run", "--allow-env", "tests/fixtures/policy/deno-smoke.ts"], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(run.stderr.toString()).not.toContain("error");
    expect(JSON.parse(run.stdout.toString().trim())).toEqual({
      issue: 'unknown key "alow" in tool "send_email" (did you mean "action"?)',
      onTainted: { value: "ask", source: "pack:fetch" },
      unclassified: { value: "ask", source: "user:u.yaml", layer: "defaults" },
      maxCalls: { value: 2, source: "heuristic" },
    });
    expect(run.exitCode).toBe(0);
  }, 120_000);
});
