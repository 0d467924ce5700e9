/**
 * `bun scripts/build.ts` flags: `--help` lists them and builds nothing; an unknown flag says where they
 * are listed. Only flag parsing runs here (no target is compiled).
 */

import { expect, test } from "bun:test";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

/** Runs the build script with the given flags. */
async function build(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, join(ROOT, "scripts/build.ts"), ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

test.each([["--help"], ["-h"]])("scripts/build.ts %s prints every flag and exits 0", async (flag) => {
  const run = await build([flag]);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  for (const name of [
    "--target NAME",
    "--out DIR",
    "--entry FILE",
    "--repo OWNER/NAME",
    "--bytecode",
    "--no-bytecode",
    "--no-measure",
    "--compare-bytecode",
    "--runs N",
    "linux-x64-musl",
  ]) {
    expect(run.stdout).toContain(name);
  }
});

test("scripts/build.ts with an unknown flag exits 2 (a usage error) and points at --help", async () => {
  const run = await build(["--bogus"]);
  expect(run.code).toBe(2);
  expect(run.stderr).toStartWith("build: Unknown option '--bogus'");
  expect(run.stderr).toEndWith(' (run "npm run build -- --help" for the flags)\n');
});

test("scripts/build.ts with an unknown target exits 2 and names the known ones", async () => {
  const run = await build(["--target", "nosuch"]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('Cannot select build target "nosuch": known targets are linux-x64');
  expect(run.stderr).toEndWith(' (run "npm run build -- --help" for the flags)\n');
});
