import { afterAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO, runCli } from "../run-cli.ts";

const root = mkdtempSync(path.join(tmpdir(), "bouncer-config-lock-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("bouncer init --yes takes over at once the lock a killed run left, and writes", async () => {
  const file = path.join(root, "c.json");
  writeFileSync(file, '{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "srv"]}}}\n');
  const lock = `${file}.bouncer-lock`;
  const killed = spawnSync(process.execPath, [path.join(REPO, "tests", "fixtures", "lock-and-die.ts"), lock]);
  expect(killed.signal).toBe("SIGKILL");
  expect(existsSync(lock)).toBe(true);
  const run = await runCli(["init", "--config", file, "--yes"], { cwd: root });
  expect(run.stderr).not.toContain("Waiting for another bouncer init");
  expect(run.stderr).toContain(`Wrote "${file}"`);
  expect(run.code).toBe(0);
  expect(readFileSync(file, "utf8")).toContain('"--upstream-name", "fs"');
  expect(existsSync(lock)).toBe(false);
});
