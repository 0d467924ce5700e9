import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { main, rootCommand, VERSION } from "../src/cli.ts";
import { memoryIo } from "../src/commands/io.ts";
import { lazyCommand } from "../src/commands/lazy-command.ts";
import { REPO, runCli } from "./run-cli.ts";

/** The commands the root help lists (only commands this build has). */
async function listedCommands(): Promise<string[]> {
  const { stdout } = await runCli(["--help"]);
  const section = stdout.split("COMMANDS")[1] ?? "";
  return section
    .split("\n")
    .map((line) => /^\s+([a-z-]+)\s{2,}/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

describe("bouncer (subprocess)", () => {
  test("bouncer --version with another argument names that argument (exit 2)", async () => {
    const run = await runCli(["--version", "--json"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"bouncer --version": it takes nothing else, got "--json"');
  });

  test("bouncer --version prints the version of package.json", async () => {
    const run = await runCli(["--version"]);
    expect(run).toMatchObject({ code: 0, stdout: `${packageJson.version}\n` });
    expect((await runCli(["-v"])).stdout).toBe(`${packageJson.version}\n`);
  });

  test("bouncer --help lists check, explain, replay and packs and exits 0", async () => {
    const run = await runCli(["--help"]);
    expect(run.code).toBe(0);
    expect(await listedCommands()).toEqual(expect.arrayContaining(["check", "explain", "replay", "packs"]));
    expect(run.stdout).not.toContain("\u001b[");
  });

  test("bouncer --help lists no command that is not built", async () => {
    const listed = await listedCommands();
    for (const unbuilt of ["serve", "approve"]) expect(listed).not.toContain(unbuilt);
  });

  test("bouncer COMMAND --help exits 0 with the command's usage, for every listed command", async () => {
    const commands = [...(await listedCommands()), "packs list", "packs show"];
    const runs = await Promise.all(commands.map((command) => runCli([...command.split(" "), "--help"])));
    runs.forEach((run, index) => {
      const command = commands[index];
      expect({ command, code: run.code }).toEqual({ command, code: 0 });
      expect(run.stdout).toContain(`bouncer ${command}`);
    });
  }, 60_000);

  test("bouncer COMMAND --no-such-flag exits 2 naming the flag, for every listed command", async () => {
    const commands = [...(await listedCommands()), "packs list", "packs show"];
    const runs = await Promise.all(
      commands.map((command) => runCli([...command.split(" "), "--no-such-flag"])),
    );
    runs.forEach((run, index) => {
      const command = commands[index];
      expect({ command, code: run.code }).toEqual({ command, code: 2 });
      expect(run.stderr).toContain("--no-such-flag");
      expect(run.stdout).toBe("");
    });
  }, 60_000);

  test("bouncer COMMAND --FLAG= (an empty value) exits 2 naming the flag, for every string flag of the commands", async () => {
    const argvs = [
      ["check", "--policy="],
      ["explain", "send_email", "--schema="],
      ["explain", "send_email", "--server", ""],
      ["replay", "s.jsonl", "--policy="],
      ["audit", "--audit-log="],
      ["audit", "--tail="],
      ["init", "--config=", "--dry-run"],
      ["init", "--client", "", "--dry-run"],
      ["doctor", "--config="],
    ];
    const runs = await Promise.all(argvs.map((argv) => runCli(argv)));
    runs.forEach((run, index) => {
      const argv = argvs[index]?.join(" ");
      expect({ argv, code: run.code }).toEqual({ argv, code: 2 });
      expect(run.stderr).toContain("needs a value, not an empty one");
      expect(run.stdout).toBe("");
    });
  }, 60_000);

  test("bouncer explain -- WORDS... exits 2 asking for TOOL (the words after -- are the upstream command)", async () => {
    const run = await runCli(["explain", "--", "/tmp/a.jsonl", "/tmp/b.jsonl"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing argument TOOL");
    expect(run.stdout).toBe("");
  });

  test("bouncer explain --help shows the optional upstream command after TOOL, with and without colour", async () => {
    for (const color of [false, true]) {
      const out = memoryIo({ color });
      expect(await main(["explain", "--help"], out.io)).toBe(0);
      const usageLine =
        out
          .stdout()
          .split("\n")
          .find((line) => line.includes("USAGE")) ?? "";
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing the ESC of colour codes
      expect(usageLine.replace(/\u001b\[[0-9;]*m/g, "")).toBe(
        "USAGE bouncer explain [OPTIONS] <TOOL> [-- COMMAND [ARG]...]",
      );
    }
  });

  test("bouncer COMMAND -- WORDS... exits 2 naming the word no positional takes, except run and explain", async () => {
    const words = ["/tmp/a.jsonl", "/tmp/b.jsonl", "/tmp/c.jsonl"];
    const subcommands: Record<string, readonly string[]> = {
      packs: ["packs list", "packs show"],
      pins: ["pins list", "pins accept", "pins forget"],
    };
    const commands = (await listedCommands())
      .filter((command) => command !== "run" && command !== "explain")
      .flatMap((command) => subcommands[command] ?? [command]);
    const runs = await Promise.all(
      commands.map((command) => runCli([...command.split(" "), "--", ...words])),
    );
    runs.forEach((run, index) => {
      const command = commands[index];
      expect({ command, code: run.code }).toEqual({ command, code: 2 });
      expect(run.stderr).toContain("unexpected argument");
      expect(run.stdout).toBe("");
    });
  }, 60_000);

  test("bouncer audit --json writes every record to a pipe whose reader is slow (nothing dropped at exit)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-slow-pipe-"));
    const log = join(dir, "audit.jsonl");
    const record = (seq: number): string =>
      JSON.stringify({
        ts: "2026-12-01T00:00:00.000Z",
        event: "decision",
        session: "s",
        seq,
        server: "mail",
        tool: "t",
        verdict: "allow",
        bouncer: "0",
      });
    writeFileSync(log, `${Array.from({ length: 6000 }, (_, i) => record(i)).join("\n")}\n`);
    const cli = `"${process.execPath}" "${join(REPO, "src", "cli.ts")}" audit --json --audit-log "${log}"`;
    // Longer than any fallback a finished command has for handles it left open (3 s).
    const child = Bun.spawn(["sh", "-c", `${cli} | (sleep 4; wc -l)`], {
      stdout: "pipe",
      env: { ...process.env, BOUNCER_HOME: dir },
    });
    expect((await new Response(child.stdout).text()).trim()).toBe("6000");
    expect(await child.exited).toBe(0);
  }, 60_000);

  test("bouncer audit --follow stops once its reader has gone and a record is written (no following into a closed pipe)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-follow-epipe-"));
    const log = join(dir, "audit.jsonl");
    const record = (seq: number): string =>
      `${JSON.stringify({ ts: "2026-12-01T00:00:00.000Z", event: "noise", session: "s", seq, server: "m", bouncer: "0" })}\n`;
    writeFileSync(log, record(0));
    const child = Bun.spawn(
      [process.execPath, join(REPO, "src", "cli.ts"), "audit", "--follow", "--json", "--audit-log", log],
      {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, BOUNCER_HOME: dir },
      },
    );
    const reader = child.stdout.getReader();
    await reader.read();
    await reader.cancel();
    let exited = false;
    void child.exited.then(() => {
      exited = true;
    });
    for (let i = 1; i < 200 && !exited; i++) {
      appendFileSync(log, record(i));
      await Bun.sleep(50);
    }
    expect(exited).toBe(true);
    expect(await child.exited).toBe(0);
  }, 60_000);

  test("bouncer with an unknown command exits 2, also for names of Object.prototype", async () => {
    const names = ["frobnicate", "constructor", "__proto__", "toString"];
    const runs = await Promise.all(names.map((name) => runCli([name])));
    runs.forEach((run, index) => {
      const name = names[index];
      expect({ name, code: run.code }).toEqual({ name, code: 2 });
      expect(run.stderr).toContain(`Unknown command "${name}"`);
    });
  }, 60_000);

  test("bouncer serve and bouncer approve (specified, not built) exit 2 saying so, --help included", async () => {
    for (const argv of [["serve"], ["approve", "--help"], ["serve", "--help"]]) {
      const out = memoryIo();
      expect(await main(argv, out.io)).toBe(2);
      expect(out.stderr()).toContain(`"bouncer ${argv[0]}"`);
      expect(out.stderr()).toContain(`is not built yet in this version (${VERSION})`);
      // Neither ships with the binary.
      expect(out.stderr()).not.toContain("SPEC");
      expect(out.stderr()).not.toContain("README");
      expect(out.stdout()).toBe("");
    }
    const unknown = memoryIo();
    expect(await main(["frobnicate", "--help"], unknown.io)).toBe(2);
    expect(unknown.stderr()).toContain('Unknown command "frobnicate"');
  });

  test("bouncer without a command exits 2 and shows the usage on stderr", async () => {
    const run = await runCli([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("USAGE");
  });

  test("bouncer replay without its SESSION argument exits 2", async () => {
    const run = await runCli(["replay"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing argument SESSION");
  });

  test("bouncer replay --ask with a value outside deny|allow exits 2", async () => {
    const run = await runCli(["replay", "x.jsonl", "--ask", "maybe"]);
    expect(run.code).toBe(2);
  });
});

describe("main() (in process)", () => {
  test("main() returns the status instead of exiting, and writes to the io it is given", async () => {
    const out = memoryIo();
    expect(await main(["--version"], out.io)).toBe(0);
    expect(out.stdout()).toBe(`${packageJson.version}\n`);
    const bad = memoryIo();
    expect(await main(["check", "--bogus"], bad.io)).toBe(2);
    expect(bad.stderr()).toContain('unknown flag "--bogus"');
  });

  test.each([
    [
      "explain of an invalid policy",
      ["explain", "t", "--policy", "bad"],
      'Cannot load policy "x\\u{1b}[2J-bad.yaml"',
    ],
    [
      "explain of a missing policy",
      ["explain", "t", "--policy", "missing"],
      'Cannot read policy "x\\u{1b}[2J-missing.yaml"',
    ],
    [
      "explain of a missing schema",
      ["explain", "t", "--schema", "missing"],
      'Cannot read schema "x\\u{1b}[2J-missing.yaml"',
    ],
    ["replay of a missing session", ["replay", "missing"], 'Cannot read session "x\\u{1b}[2J-missing.yaml"'],
    ["replay of a bad session", ["replay", "bad"], 'Cannot read session "x\\u{1b}[2J-bad.yaml": line 1'],
    [
      "check of a missing policy",
      ["check", "--policy", "missing"],
      'Cannot read policy "x\\u{1b}[2J-missing.yaml"',
    ],
    ["audit of a missing log", ["audit", "--audit-log", "missing"], 'No audit log at "'],
    ["audit of a bad line", ["audit", "--audit-log", "bad"], 'Skipped line 1 of audit log "'],
  ])(
    "main() escapes the control characters of a file name in its error message: %s",
    async (_name, args, expected) => {
      const dir = mkdtempSync(join(tmpdir(), "bouncer-cli-"));
      const name = (kind: string): string => `x\u001b[2J-${kind}.yaml`;
      writeFileSync(join(dir, name("bad")), "alow: 1\n");
      const out = memoryIo({ cwd: dir });
      try {
        await main(
          args.map((arg) => (arg === "bad" || arg === "missing" ? name(arg) : arg)),
          out.io,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      expect(out.stderr()).toContain(expected);
      expect(out.stderr()).toContain("x\\u{1b}[2J-");
      expect(out.stderr()).not.toContain("\u001b");
    },
  );

  test("bouncer run --help shows the server command on its USAGE line, with and without colour", async () => {
    for (const color of [false, true]) {
      const out = memoryIo({ color });
      expect(await main(["run", "--help"], out.io)).toBe(0);
      const usageLine =
        out
          .stdout()
          .split("\n")
          .find((line) => line.includes("USAGE")) ?? "";
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing the ESC of colour codes
      expect(usageLine.replace(/\u001b\[[0-9;]*m/g, "")).toBe(
        "USAGE bouncer run [OPTIONS] -- COMMAND [ARG]...",
      );
    }
    const check = memoryIo();
    await main(["check", "--help"], check.io);
    expect(check.stdout()).not.toContain("-- COMMAND");
  });

  test("main() reports a command whose module is missing as unavailable (exit 1) without breaking others", async () => {
    const subCommands = rootCommand.subCommands as Record<string, unknown>;
    const saved = subCommands.check;
    subCommands.check = lazyCommand(
      "check",
      () => import("../src/commands/no-such-command.ts" as string),
      "checkCommand",
    );
    try {
      const out = memoryIo();
      expect(await main(["check"], out.io)).toBe(1);
      expect(out.stderr()).toContain('Command "check" is not available in this build');
      expect(await main(["packs", "list"], memoryIo().io)).toBe(0);
    } finally {
      subCommands.check = saved;
    }
  });
});
