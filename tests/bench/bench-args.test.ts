/**
 * The bench commands answer `--help` with their usage (exit 0) and a bad flag with the problem and
 * the usage (exit 2), never a stack trace. Runs the real scripts.
 */

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { REPO, runScript } from "../run-cli.ts";

/** Runs a bench script with flags. */
function bench(script: string, flags: readonly string[]) {
  return runScript(join(REPO, "scripts/bench", script), flags);
}

describe("bench flags", () => {
  test.each(["security.ts", "perf.ts"])("%s --help prints the usage and exits 0", async (script) => {
    const run = await bench(script, ["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toStartWith("Usage: npm run bench:");
  });

  test.each(["security.ts", "perf.ts"])(
    "%s with an unknown flag names it, prints the usage and exits 2",
    async (script) => {
      const run = await bench(script, ["--bogus"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("'--bogus'");
      expect(run.stderr).toContain("Usage: npm run bench:");
      expect(run.stderr).not.toContain("    at ");
    },
  );
});
