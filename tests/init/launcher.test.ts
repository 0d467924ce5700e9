import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  findExecutable,
  findLauncher,
  launcherProblem,
  sourceCliPath,
  sourceRuntimeFlags,
} from "../../src/init/launcher.ts";
import type { ConfigEntry } from "../../src/init/types.ts";
import { parseWrappedArgs } from "../../src/init/wrapped-args.ts";

const root = mkdtempSync(path.join(tmpdir(), "bouncer-launcher-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Creates a file, executable or not. */
function file(relative: string, executable: boolean): string {
  const full = path.join(root, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, "#!/bin/sh\n");
  chmodSync(full, executable ? 0o755 : 0o644);
  return full;
}

const shim = file("brew/bin/bouncer", true);
file("other/bin/bouncer", false);
const bun = file("tools/bun", true);
const compiled = file("dist/bouncer-linux-x64", true);

describe("findLauncher()", () => {
  test("findLauncher() prefers a bouncer on PATH and writes its absolute path", () => {
    const env = { PATH: [path.join(root, "other/bin"), path.join(root, "brew/bin")].join(":") };
    expect(findLauncher({ env, platform: "linux", execPath: bun })).toEqual({
      command: shim,
      prefixArgs: [],
    });
  });

  test("findLauncher() uses the running executable when it is the compiled Bouncer", () => {
    expect(findLauncher({ env: { PATH: "" }, platform: "linux", execPath: compiled })).toEqual({
      command: compiled,
      prefixArgs: [],
    });
  });

  test("findLauncher() from source runs this checkout's src/cli.ts with the absolute runtime path", () => {
    const launcher = findLauncher({
      env: { PATH: path.join(root, "other/bin") },
      platform: "linux",
      execPath: bun,
    });
    expect(launcher).toEqual({
      command: bun,
      prefixArgs: [...sourceRuntimeFlags("bun", sourceCliPath(), "linux"), sourceCliPath()],
    });
    expect(path.isAbsolute(sourceCliPath())).toBe(true);
    expect(sourceCliPath()).toEndWith(`${path.sep}src${path.sep}cli.ts`);
  });

  test("findLauncher() treats bun.exe as a runtime, not as a compiled Bouncer", () => {
    const launcher = findLauncher({
      env: {},
      platform: "linux",
      execPath: "/x/node_modules/bun/bin/bun.exe",
      cliPath: "/c.ts",
    });
    expect(launcher.prefixArgs.at(-1)).toBe("/c.ts");
    expect(launcher.prefixArgs).toContain("--no-env-file");
  });

  test("sourceRuntimeFlags() gives Bun the checkout's bunfig.toml and tsconfig.json and no .env, and Node nothing", () => {
    expect(sourceRuntimeFlags("bun", "/co/src/cli.ts", "linux")).toEqual([
      "--no-env-file",
      "--config=/co/bunfig.toml",
      "--tsconfig-override=/co/tsconfig.json",
    ]);
    expect(sourceRuntimeFlags("node", "/co/src/cli.ts", "linux")).toEqual([]);
  });

  test("the from-source launcher started in a hostile project folder runs none of its bunfig.toml preload and reads none of its .env", async () => {
    const project = mkdtempSync(path.join(tmpdir(), "bouncer-hostile-"));
    writeFileSync(
      path.join(project, "evil.ts"),
      'require("node:fs").writeFileSync(process.env.MARK ?? "/dev/null", "ran");\n',
    );
    writeFileSync(path.join(project, "bunfig.toml"), 'preload = ["./evil.ts"]\n');
    const mark = path.join(project, "preload-ran");
    // A BOUNCER_HOME that is a file: read from .env, it would make `pins list` fail.
    writeFileSync(path.join(project, "not-a-folder"), "");
    writeFileSync(path.join(project, ".env"), `BOUNCER_HOME=${path.join(project, "not-a-folder")}\n`);
    const launcher = findLauncher({ env: {}, platform: process.platform, execPath: process.execPath });
    const { BOUNCER_HOME: _unset, ...env } = process.env;
    const child = Bun.spawn([launcher.command, ...launcher.prefixArgs, "pins", "list"], {
      cwd: project,
      env: { ...env, MARK: mark, HOME: path.join(project, "home") },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stdout).text()).toBe("No pins yet\n");
    expect(existsSync(mark)).toBe(false);
    rmSync(project, { recursive: true, force: true });
  });
});

describe("findExecutable()", () => {
  test("findExecutable() skips files that are not executable", () => {
    expect(
      findExecutable("bouncer", { env: { PATH: path.join(root, "other/bin") }, platform: "linux" }),
    ).toBeUndefined();
  });

  test("findExecutable() checks a path given with a separator", () => {
    expect(findExecutable(shim, { env: {}, platform: "linux" })).toBe(shim);
    expect(findExecutable(path.join(root, "nope"), { env: {}, platform: "linux" })).toBeUndefined();
  });
});

describe("launcherProblem()", () => {
  const entry = (command: string, args: string[]): ConfigEntry => ({
    name: "fs",
    scope: ["mcpServers"],
    label: "fs",
    kind: "wrapped",
    command,
    args,
    env: [],
    wrapped: parseWrappedArgs(args)!,
    span: { start: 0, end: 0 },
  });
  const context = { env: { PATH: path.join(root, "brew/bin") }, platform: "linux" as const };

  test.each([
    ["an existing launcher", shim, ["run", "--upstream-name", "fs", "--", "x"], undefined],
    ["a launcher on PATH", "bouncer", ["run", "--upstream-name", "fs", "--", "x"], undefined],
    [
      "a removed binary",
      path.join(root, "gone/bouncer"),
      ["run", "--upstream-name", "fs", "--", "x"],
      "does not exist",
    ],
    ["a name not on PATH", "bouncer-old", ["run", "--upstream-name", "fs", "--", "x"], "is not on PATH"],
    [
      "a removed checkout",
      bun,
      [path.join(root, "gone/src/cli.ts"), "run", "--upstream-name", "fs", "--", "x"],
      "launcher script",
    ],
  ])("launcherProblem() for %s", (_, command, args, problem) => {
    const found = launcherProblem(entry(command, args), context);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });
});
