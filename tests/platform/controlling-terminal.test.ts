import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { BUN, ROOT } from "../proxy/support/harness.ts";
import { HAS_SCRIPT } from "../proxy/support/terminal.ts";

/** A program that asks on its controlling terminal and prints what it got, on stdout. */
const ASK = `
import { confirmOn, openControllingTerminal } from ${JSON.stringify(join(ROOT, "src/platform/controlling-terminal.ts"))};
const terminal = openControllingTerminal();
if (terminal === undefined) console.log("no terminal");
else {
  console.log(await confirmOn(terminal, "Go? [y/N] ") ? "yes" : "no");
  terminal.close();
  terminal.close();
}
`;

describe("openControllingTerminal()", () => {
  test("openControllingTerminal() finds none in a session without a controlling terminal, whatever stdin holds", () => {
    const run = spawnSync("setsid", ["-w", BUN, "-e", ASK], { encoding: "utf8", input: "y\n" });
    expect(run.stdout).toBe("no terminal\n");
  });

  test.skipIf(!HAS_SCRIPT).each([
    ["yes", "YES\n", "yes"],
    ["no", "n\n", "no"],
    ["an empty answer", "\n", "no"],
  ])("confirmOn() on the controlling terminal takes %s typed there", (_what, typed, expected) => {
    const command = `'${BUN}' -e '${ASK.replaceAll("'", "'\\''")}'`;
    const run = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8", input: typed });
    expect(run.stdout).toContain("Go? [y/N] ");
    expect(run.stdout.trimEnd()).toMatch(new RegExp(`\\s${expected}$`));
  });
});
