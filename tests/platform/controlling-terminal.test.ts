import { describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
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

/**
 * A program that starts reading a line on its controlling terminal, then schedules a timer that says
 * READY: the timer can only run while the read is pending if the read does not block the event loop.
 */
const WAIT = `
import { openControllingTerminal } from ${JSON.stringify(join(ROOT, "src/platform/controlling-terminal.ts"))};
const terminal = openControllingTerminal();
const line = terminal.readLine();
setTimeout(() => terminal.write("READY\\n"), 0);
terminal.write(\`got \${await line}\\n\`);
terminal.close();
`;

/**
 * Runs {@link WAIT} under a pseudo-terminal, typing its answer once it says READY (or, should it
 * never say so, after a while, so a blocking read fails the test instead of hanging it).
 * @returns Everything the terminal showed.
 */
function typeWhenReady(): Promise<string> {
  const command = `'${BUN}' -e '${WAIT.replaceAll("'", "'\\''")}'`;
  const child = spawn("script", ["-qec", command, "/dev/null"], { stdio: ["pipe", "pipe", "inherit"] });
  let screen = "";
  let typed = false;
  const type = (): void => {
    if (typed) return;
    typed = true;
    child.stdin.end("yes\n");
  };
  const fallback = setTimeout(type, 10_000);
  child.stdout.on("data", (chunk: Buffer) => {
    screen += chunk.toString("utf8");
    if (screen.includes("READY")) type();
  });
  return new Promise((resolve) => {
    child.on("close", () => {
      clearTimeout(fallback);
      resolve(screen);
    });
  });
}

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

  test.skipIf(!HAS_SCRIPT)(
    "openControllingTerminal() readLine() waits without blocking: timers run while the line is typed",
    async () => {
      const screen = await typeWhenReady();
      expect(screen).toContain("got yes");
      expect(screen.indexOf("READY")).toBeGreaterThan(-1);
      expect(screen.indexOf("READY")).toBeLessThan(screen.indexOf("got yes"));
    },
    20_000,
  );
});
