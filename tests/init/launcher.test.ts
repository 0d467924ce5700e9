import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import {
  chooseLauncher,
  findExecutable,
  findLauncher,
  isSourceFile,
  sourceCliPath,
  sourceRuntimeFlags,
} from "../../src/init/launcher.ts";
import { launcherProblem } from "../../src/init/launcher-problem.ts";
import { shebangRuntime } from "../../src/init/script-runtime.ts";
import type { ConfigEntry } from "../../src/init/types.ts";
import { parseWrappedArgs } from "../../src/init/wrapped-args.ts";
import { runCli } from "../run-cli.ts";

const root = mkdtempSync(path.join(tmpdir(), "bouncer-launcher-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Creates a file, executable or not. */
function file(relative: string, executable: boolean, text = "#!/bin/sh\n"): string {
  const full = path.join(root, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
  chmodSync(full, executable ? 0o755 : 0o644);
  return full;
}

const shim = file("brew/bin/bouncer", true);
file("other/bin/bouncer", false);
const bun = file("tools/bun", true);
const compiled = file("dist/bouncer-linux-x64", true);
/** Where a compiled Bun executable keeps its modules: no file on disk (`B:\\~BUN\\` on Windows). */
const BUNFS_CLI = "/$bunfs/cli.ts";
// What `npm link` of a checkout puts on PATH: a symbolic link to `src/cli.ts`, run by `env bun`.
const linkedCli = file("linked/src/cli.ts", true, "#!/usr/bin/env bun\nconsole.log(1);\n");
mkdirSync(path.join(root, "npm/bin"), { recursive: true });
symlinkSync(linkedCli, path.join(root, "npm/bin/bouncer"));
const npmBouncer = path.join(root, "npm/bin/bouncer");

describe("findLauncher()", () => {
  test("findLauncher() prefers a bouncer on PATH and writes its absolute path", () => {
    const env = { PATH: [path.join(root, "other/bin"), path.join(root, "brew/bin")].join(":") };
    expect(findLauncher({ env, platform: "linux", execPath: bun })).toEqual({
      command: shim,
      prefixArgs: [],
    });
  });

  test("chooseLauncher() passes over a PATH bouncer that npm link made (a script run by bun) for the running executable", () => {
    const choice = chooseLauncher({
      env: { PATH: path.join(root, "npm/bin") },
      platform: "linux",
      execPath: compiled,
      cliPath: BUNFS_CLI,
    });
    expect(choice).toEqual({
      launcher: { command: compiled, prefixArgs: [] },
      skipped: { path: npmBouncer, runtime: "bun" },
    });
  });

  test("chooseLauncher() goes on along PATH past a runtime script to a real bouncer", () => {
    const env = { PATH: [path.join(root, "npm/bin"), path.join(root, "brew/bin")].join(":") };
    expect(chooseLauncher({ env, platform: "linux", execPath: compiled, cliPath: BUNFS_CLI })).toEqual({
      launcher: { command: shim, prefixArgs: [] },
      skipped: { path: npmBouncer, runtime: "bun" },
    });
  });

  test("package.json declares no bin (npm link or npm i -g would put a runtime script on PATH as bouncer)", () => {
    expect(Object.hasOwn(packageJson, "bin")).toBe(false);
  });

  test("findLauncher() uses the running executable when it is the compiled Bouncer", () => {
    const context = { env: { PATH: "" }, platform: "linux" as const, execPath: compiled, cliPath: BUNFS_CLI };
    expect(findLauncher(context)).toEqual({ command: compiled, prefixArgs: [] });
  });

  test.each([
    ["linux", "/usr/local/bin/bun", BUNFS_CLI],
    ["linux", "/usr/local/bin/node", "/$bunfs/root/src/cli.ts"],
    ["win32", "C:\\tools\\bun.exe", "B:\\~BUN\\cli.ts"],
    ["win32", "C:\\tools\\node.exe", "B:/~BUN/root/cli.ts"],
  ] as const)(
    "findLauncher() on %s writes a compiled Bouncer renamed %s as itself (its CLI %s is inside it)",
    (platform, execPath, cliPath) => {
      expect(findLauncher({ env: {}, platform, execPath, cliPath })).toEqual({
        command: execPath,
        prefixArgs: [],
      });
    },
  );

  test("findLauncher() from source runs the CLI with Bun's flags whatever the runtime is named", () => {
    const renamed = file("tools/bun-canary", true);
    expect(findLauncher({ env: {}, platform: "linux", execPath: renamed, cliPath: linkedCli })).toEqual({
      command: renamed,
      prefixArgs: [...sourceRuntimeFlags("bun", linkedCli, "linux"), linkedCli],
    });
  });

  test("isSourceFile() is true for a file on disk only, never for a module of a compiled executable", () => {
    expect(isSourceFile(sourceCliPath())).toBe(true);
    expect(isSourceFile(path.join(root, "nope.ts"))).toBe(false);
    expect(isSourceFile(root)).toBe(false);
    expect(isSourceFile("/$bunfs/root/bouncer")).toBe(false);
    expect(isSourceFile("B:\\~BUN\\root\\bouncer.exe")).toBe(false);
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
      cliPath: linkedCli,
    });
    expect(launcher.prefixArgs.at(-1)).toBe(linkedCli);
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

describe("shebangRuntime()", () => {
  test.each([
    ["#!/usr/bin/env bun", "bun"],
    ["#!/usr/bin/env -S bun --smol\n", "bun"],
    ["#!/usr/bin/env NODE_OPTIONS=--x node", "node"],
    ["#! /usr/local/bin/node\r\n", "node"],
    ["#!/opt/deno/bin/deno run -A", "deno"],
    ["#!/home/u/.bun/bin/bunx", "bunx"],
    ["#!C:\\Bun\\bun.exe", "bun"],
    ["#!/bin/sh", undefined],
    ["#!/usr/bin/env bash", undefined],
    ["\u007fELF\u0002\u0001", undefined],
    ["// no shebang", undefined],
  ])("shebangRuntime(%j) is %p", (line, runtime) => {
    expect(shebangRuntime(line)).toBe(runtime);
  });
});

describe("findExecutable()", () => {
  test("findExecutable() skips files that are not executable", () => {
    expect(
      findExecutable("bouncer", { env: { PATH: path.join(root, "other/bin") }, platform: "linux" }),
    ).toBeUndefined();
  });

  test("findExecutable() searches only absolute PATH entries, never a folder relative to the working directory", () => {
    // `brew/bin` relative to the working directory holds an executable `bouncer`: not searched.
    const relative = path.relative(process.cwd(), path.join(root, "brew/bin"));
    for (const PATH of [relative, `./${relative}`, `${relative}:/nonexistent`]) {
      expect(findExecutable("bouncer", { env: { PATH }, platform: "linux" })).toBeUndefined();
    }
    expect(
      findExecutable("bouncer", {
        env: { PATH: `${relative}:${path.join(root, "brew/bin")}` },
        platform: "linux",
      }),
    ).toBe(shim);
  });

  test("bouncer init never writes as the launcher a bouncer found through a relative PATH entry", async () => {
    // A project folder with its own `node_modules/.bin/bouncer`, and `node_modules/.bin` on PATH.
    const project = path.join(root, "project");
    const local = file("project/node_modules/.bin/bouncer", true);
    const config = path.join(root, "project-config.json");
    writeFileSync(config, '{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "srv"]}}}\n');
    const env = { PATH: `node_modules/.bin:${process.env.PATH ?? ""}` };
    const run = await runCli(["init", "--config", config, "--dry-run"], { cwd: project, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"--upstream-name", "fs"');
    expect(run.stdout).not.toContain(local);
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
    [
      "a script run by bun (npm link)",
      npmBouncer,
      ["run", "--upstream-name", "fs", "--", "x"],
      "a script run by bun",
    ],
  ])("launcherProblem() for %s", (_, command, args, problem) => {
    const found = launcherProblem(entry(command, args), context);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found?.message).toContain(problem);
  });
});
