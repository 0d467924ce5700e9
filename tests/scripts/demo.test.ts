/**
 * `npm run demo` (scripts/demo.ts) prints the worked example's verdicts through the real `bouncer run`
 * and exits 0 only when each is the expected one (issue 3: "`npm run demo` prints the verdicts").
 */

import { expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

test("scripts/demo.ts forwards the trusted address, blocks the planted one and asks about the sender", async () => {
  const child = spawn(process.execPath, [join(ROOT, "scripts/demo.ts")], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.resume();
  const code = await new Promise<number | null>((resolveExit) => child.on("exit", resolveExit));
  expect(stdout).toContain("2. send_email to boss@corp.example");
  expect(stdout).toContain("→ forwarded without asking");
  expect(stdout).toMatch(/3\. send_email to attacker@evil\.example[^\n]*\n\s+→ blocked: /);
  expect(stdout).toContain("[bouncer] Approval needed");
  expect(stdout).toContain("→ forwarded after the person approved");
  expect(stdout).toContain("nothing went to attacker@evil.example");
  expect(code).toBe(0);
}, 90_000);
