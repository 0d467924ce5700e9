import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "citty";
import { MAX_LOG_FILE_BYTES } from "../../src/audit/audit-reader.ts";
import { createAuditWriter } from "../../src/audit/audit-writer.ts";
import auditCommandDefault, { auditCommand, runAudit } from "../../src/audit/command.ts";
import { memoryIo } from "../../src/commands/io.ts";
import { runCli } from "../run-cli.ts";

let dir = "";
let log = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bouncer-audit-cmd-"));
  log = join(dir, "audit.jsonl");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a few records: two rotated files and the log. */
function seed(): void {
  const writer = createAuditWriter(log, { now: () => Date.UTC(2026, 0, 1), version: "0.0.0" });
  const call = { session: "s", server: "mail", tool: "send_email" };
  writer.write({ ...call, event: "decision", seq: 1, verdict: "allow", contract: "default" });
  writer.write({
    ...call,
    event: "decision",
    seq: 2,
    verdict: "deny",
    contract: "sink_gate",
    reason: "tainted",
  });
  writer.write({
    ...call,
    event: "decision",
    seq: 3,
    verdict: "ask",
    contract: "sink_gate",
    reason: "unproven",
  });
  writer.write({ ...call, event: "outcome", seq: 3, outcome: "approved" });
  writer.close();
}

/** Runs the citty command in-process. */
async function run(args: string[], data: Record<string, unknown> = {}) {
  const memory = memoryIo({ cwd: dir });
  const { result } = await runCommand(auditCommand, { rawArgs: args, data: { io: memory.io, ...data } });
  return { code: result, stdout: memory.stdout(), stderr: memory.stderr() };
}

/** Waits until a condition holds or a deadline passes (only a guard: the assertions after it tell). */
async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition() && Date.now() < deadline) await Bun.sleep(5);
}

/**
 * Runs `bouncer audit ARGS` as a real process (an open that blocks cannot hang the tests then),
 * collecting its output as it comes.
 */
function spawnAudit(args: readonly string[]): {
  readonly child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  readonly output: { stdout: string; stderr: string };
  readonly stop: () => Promise<number | null>;
} {
  const cli = join(import.meta.dir, "..", "..", "src", "cli.ts");
  const child = Bun.spawn([process.execPath, cli, "audit", ...args], {
    cwd: dir,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = { stdout: "", stderr: "" };
  const collect = async (stream: ReadableStream<Uint8Array>, key: "stdout" | "stderr"): Promise<void> => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      output[key] += decoder.decode(read.value, { stream: true });
    }
  };
  const collected = Promise.all([collect(child.stdout, "stdout"), collect(child.stderr, "stderr")]);
  return {
    child,
    output,
    stop: async () => {
      child.kill();
      await collected;
      await child.exited;
      return child.exitCode;
    },
  };
}

/** A record's line. */
const recordLine = (seq: number): string => `${JSON.stringify({ ts: "t", event: "decision", seq })}\n`;

describe("auditCommand", () => {
  test("auditCommand is also the default export", () => {
    expect(auditCommandDefault).toBe(auditCommand);
  });

  test("auditCommand prints a table of every record, rotated files included", async () => {
    seed();
    writeFileSync(
      `${log}.1`,
      `${JSON.stringify({ ts: "2025-12-31T00:00:00.000Z", event: "pin", server: "fs", tool: "read_file", outcome: "pinned" })}\n`,
    );
    const { code, stdout, stderr } = await run(["--audit-log", "audit.jsonl"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TIME\s+SERVER\s+TOOL\s+VERDICT\s+CONTRACT\s+REASON$/);
    expect(lines).toHaveLength(6);
    expect(lines[1]).toContain("pin:pinned");
    expect(lines[3]).toContain("deny");
    expect(lines[3]).toContain("tainted");
  });

  test("auditCommand --json prints one record per line", async () => {
    seed();
    const { code, stdout } = await run(["--audit-log", log, "--json"]);
    expect(code).toBe(0);
    const records = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records.map((record) => record.seq)).toEqual([1, 2, 3, 3]);
    expect(records[1]).toMatchObject({ event: "decision", verdict: "deny", bouncer: "0.0.0" });
  });

  test("auditCommand --json and --summary --json escape C1 controls, bidi overrides and separators a record holds (the same text once parsed)", async () => {
    const tool = "run\u009b2J\u009d0;PWNED\u0007\u202egnp.exe\u2028\u{e0041}";
    writeFileSync(
      log,
      `${JSON.stringify({ ts: "2026-01-01T00:00:00.000Z", event: "decision", server: "s", tool, verdict: "allow" })}\n`,
    );
    for (const flags of [["--json"], ["--summary", "--json"]]) {
      const { code, stdout } = await run(["--audit-log", log, ...flags]);
      expect(code).toBe(0);
      expect(stdout).not.toMatch(/[\u007f-\u009f\u202e\u2028\u{e0041}]/u);
      expect(stdout).toContain("\\u009b2J");
      expect(stdout).toContain("\\udb40\\udc41");
      const parsed = JSON.parse(stdout);
      expect(flags.length === 1 ? parsed.tool : Object.keys(parsed.byTool)).toEqual(
        flags.length === 1 ? tool : [`s/${tool}`],
      );
    }
  });

  test("bouncer audit refuses a log file larger than any Bouncer writes (exit 2, named), instead of reading gigabytes or looping", async () => {
    seed();
    truncateSync(log, MAX_LOG_FILE_BYTES + 1); // sparse: no disk used
    const { code, stdout, stderr } = await runCli(["audit", "--audit-log", log, "--tail", "1"], { cwd: dir });
    expect(code).toBe(2); // a named log that cannot be read, as one that does not exist
    expect(stdout).toBe("");
    expect(stderr).toStartWith(
      `bouncer: Cannot read audit log "${log}": it holds ${MAX_LOG_FILE_BYTES + 1} bytes, more than`,
    );
    expect(MAX_LOG_FILE_BYTES).toBe(256 * 1024 * 1024);
  });

  test("auditCommand --tail 2 prints the last two records", async () => {
    seed();
    const { stdout } = await run(["--audit-log", log, "--json", "--tail", "2"]);
    expect(
      stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).event),
    ).toEqual(["decision", "outcome"]);
  });

  test("auditCommand --summary --json prints one JSON document of counts", async () => {
    seed();
    const { code, stdout } = await run(["--audit-log", log, "--summary", "--json"]);
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({
      records: 4,
      decisions: 3,
      byVerdict: { allow: 1, deny: 1, ask: 1 },
      byContract: { sink_gate: 2, default: 1 },
      byServer: { mail: 3 },
      byTool: { "mail/send_email": 3 },
      byOutcome: { approved: 1 },
    });
  });

  test("auditCommand --summary --tail N counts the last N records only", async () => {
    seed();
    const { code, stdout } = await run(["--audit-log", log, "--summary", "--tail", "2", "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ records: 2 });
    expect((await run(["--audit-log", log, "--summary", "--tail", "0", "--json"])).stdout).toContain(
      '"records": 0',
    );
  });

  test("auditCommand --summary prints counts for people", async () => {
    seed();
    const { stdout } = await run(["--audit-log", log, "--summary"]);
    expect(stdout).toContain("4 records");
    expect(stdout).toContain("By contract\n  sink_gate  2\n  default    1\n");
  });

  test("auditCommand reports a bad line on stderr and shows the others", async () => {
    seed();
    appendFileSync(log, "{broken\n");
    const { code, stdout, stderr } = await run(["--audit-log", log, "--json"]);
    expect(code).toBe(0);
    expect(stdout.trimEnd().split("\n")).toHaveLength(4);
    expect(stderr).toBe(`bouncer: Skipped line 5 of audit log "${log}": not JSON\n`);
  });

  test("auditCommand names the first 20 bad lines and counts the rest (a binary file has thousands)", async () => {
    seed();
    appendFileSync(log, "{broken\n".repeat(25));
    const { code, stdout, stderr } = await run(["--audit-log", log, "--json"]);
    expect(code).toBe(0);
    expect(stdout.trimEnd().split("\n")).toHaveLength(4);
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe(`bouncer: Skipped line 5 of audit log "${log}": not JSON`);
    expect(lines[19]).toBe(`bouncer: Skipped line 24 of audit log "${log}": not JSON`);
    expect(lines[20]).toBe("bouncer: Skipped 5 more bad lines of the audit log");
  });

  test("auditCommand refuses a named log that does not exist with AUDIT_NAMED_UNREADABLE (a usage error, exit 2)", async () => {
    await expect(run(["--audit-log", "missing.jsonl"])).rejects.toMatchObject({
      code: "AUDIT_NAMED_UNREADABLE",
      message: `No audit log at "${join(dir, "missing.jsonl")}"`,
    });
  });

  test.each([
    ["a named log that does not exist", 2, (): string[] => ["--audit-log", "missing.jsonl"]],
    [
      "a named log that is a folder",
      2,
      (): string[] => {
        mkdirSync(join(dir, "folder.jsonl"));
        return ["--audit-log", "folder.jsonl"];
      },
    ],
    [
      "the default log when it is a folder (Bouncer's own file)",
      1,
      (): string[] => {
        mkdirSync(join(dir, "home", "audit.jsonl"), { recursive: true });
        return [];
      },
    ],
  ])("bouncer audit with %s exits %d", async (_name, expected, setUp) => {
    const result = await runCli(["audit", ...setUp()], {
      cwd: dir,
      env: { BOUNCER_HOME: join(dir, "home") },
    });
    expect(result.code).toBe(expected);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith("bouncer: ");
  });

  test.each([[[]], [["--json"]], [["--summary"]]])(
    "bouncer audit %p skips a line nested 200,000 levels deep and shows the records around it",
    async (flags) => {
      seed();
      appendFileSync(
        log,
        `{"ts":"t","event":"decision","reason":${"[".repeat(200_000)}${"]".repeat(200_000)}}\n`,
      );
      const writer = createAuditWriter(log, { now: () => Date.UTC(2026, 0, 2), version: "0.0.0" });
      writer.write({ event: "decision", session: "s", server: "mail", tool: "after", verdict: "allow" });
      writer.close();
      const result = await runCli(["audit", "--audit-log", log, ...flags], { cwd: dir });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(
        `bouncer: Skipped line 5 of audit log "${log}": nests deeper than 100 levels\n`,
      );
      expect(result.stderr).not.toContain("Unexpected failure");
      expect(result.stdout).toContain(flags.includes("--summary") ? "5 records" : "after");
    },
  );

  test("auditCommand reads $BOUNCER_HOME/audit.jsonl by default and exits 0 when it is absent", async () => {
    const saved = process.env.BOUNCER_HOME;
    process.env.BOUNCER_HOME = dir;
    try {
      expect((await run([])).code).toBe(0);
      seed();
      const { stdout } = await run(["--json"]);
      expect(stdout.trimEnd().split("\n")).toHaveLength(4);
    } finally {
      if (saved === undefined) delete process.env.BOUNCER_HOME;
      else process.env.BOUNCER_HOME = saved;
    }
  });

  test("auditCommand --summary --json with no log at the default path prints the empty log's zero-count summary, saying no log exists yet", async () => {
    const saved = process.env.BOUNCER_HOME;
    process.env.BOUNCER_HOME = dir;
    try {
      const absent = await run(["--summary", "--json"]);
      writeFileSync(log, "");
      const empty = await run(["--summary", "--json"]);
      expect(absent.code).toBe(0);
      expect(absent.stdout).toBe(empty.stdout);
      expect(JSON.parse(absent.stdout)).toMatchObject({ records: 0, decisions: 0 });
      expect(absent.stderr).toBe(`bouncer: No audit log at "${log}" yet\n`);
      expect(empty.stderr).toBe("");
    } finally {
      if (saved === undefined) delete process.env.BOUNCER_HOME;
      else process.env.BOUNCER_HOME = saved;
    }
  });

  test.each([
    ["--tail", "x"],
    ["--tail", "-1"],
  ])("auditCommand %s %s is a usage error", async (flag, value) => {
    await expect(run(["--audit-log", log, flag, value])).rejects.toMatchObject({ code: "USAGE" });
  });

  test("auditCommand --tail above the limit is a usage error that names the limit", async () => {
    await expect(run(["--audit-log", log, "--tail", "99999999999"])).rejects.toMatchObject({
      code: "USAGE",
      message: 'Cannot run "bouncer audit": "--tail" is at most 999999999, got "99999999999"',
    });
  });

  test("auditCommand --tail 999999999 (the limit) is taken", async () => {
    seed();
    const { code, stdout } = await run(["--audit-log", log, "--json", "--tail", "999999999"]);
    expect(code).toBe(0);
    expect(stdout.trimEnd().split("\n")).toHaveLength(4);
  });

  test("auditCommand --summary --follow is a usage error", async () => {
    await expect(run(["--audit-log", log, "--summary", "--follow"])).rejects.toMatchObject({ code: "USAGE" });
  });

  test("auditCommand --follow on a log that is not there yet says it waits, then prints its records", async () => {
    const missing = join(dir, "later", "audit.jsonl");
    const controller = new AbortController();
    const memory = memoryIo({ cwd: dir });
    const running = runAudit(
      { auditLog: missing, follow: true, json: true, signal: controller.signal, intervalMs: 5 },
      memory.io,
    );
    expect(memory.stderr()).toContain(`No audit log at "${missing}" yet: waiting for it`);
    createAuditWriter(missing).write({ event: "noise", session: "s", server: "mail", reason: "late" });
    const deadline = Date.now() + 10_000;
    while (!memory.stdout().includes("late") && Date.now() < deadline) await Bun.sleep(5);
    controller.abort();
    expect(await running).toBe(0);
    expect(memory.stdout()).toContain("late");
  });

  test("auditCommand --follow of a log that is not there yet prints the table's header with its first record", async () => {
    const controller = new AbortController();
    const memory = memoryIo({ cwd: dir });
    const running = runAudit(
      { auditLog: log, follow: true, signal: controller.signal, intervalMs: 5 },
      memory.io,
    );
    const row = (seq: number): string =>
      `${JSON.stringify({ ts: `t${seq}`, event: "decision", seq, server: "mail", tool: "send" })}\n`;
    writeFileSync(log, row(1));
    await waitFor(() => memory.stdout().includes("t1"));
    appendFileSync(log, row(2));
    await waitFor(() => memory.stdout().includes("t2"));
    controller.abort();
    expect(await running).toBe(0);
    const lines = memory.stdout().trimEnd().split("\n");
    expect(lines.map((text) => text.split(/ +/).slice(0, 3))).toEqual([
      ["TIME", "SERVER", "TOOL"],
      ["t1", "mail", "send"],
      ["t2", "mail", "send"],
    ]);
  });

  test("auditCommand --follow waits for the newline of a line still being written, without reporting it", async () => {
    const second = recordLine(2);
    writeFileSync(log, recordLine(1) + second.slice(0, 12));
    const controller = new AbortController();
    const memory = memoryIo({ cwd: dir });
    const running = runAudit(
      { auditLog: log, follow: true, json: true, signal: controller.signal, intervalMs: 5 },
      memory.io,
    );
    appendFileSync(log, second.slice(12));
    await waitFor(() => memory.stdout().includes('"seq":2'));
    controller.abort();
    expect(await running).toBe(0);
    expect(
      memory
        .stdout()
        .trimEnd()
        .split("\n")
        .map((text) => JSON.parse(text).seq),
    ).toEqual([1, 2]);
    expect(memory.stderr()).toBe("");
  });

  test.skipIf(process.platform === "win32")(
    "auditCommand --follow passes over a FIFO at audit.jsonl.1 after a rotation, saying so, and goes on",
    async () => {
      writeFileSync(log, recordLine(0));
      const follow = spawnAudit(["--follow", "--json", "--audit-log", log]);
      try {
        await waitFor(() => follow.output.stdout.includes('"seq":0'));
        renameSync(log, `${log}.2`);
        expect(spawnSync("mkfifo", [`${log}.1`]).status).toBe(0);
        writeFileSync(log, recordLine(1));
        await waitFor(() => follow.output.stdout.includes('"seq":1'));
      } finally {
        await follow.stop();
      }
      const shown = follow.output.stdout.trimEnd().split("\n");
      expect(shown.map((text) => JSON.parse(text).seq)).toEqual([0, 1]);
      expect(follow.output.stderr).toBe(
        `bouncer: Audit log "${log}.1": skipped: it is not a regular file (a FIFO)\n`,
      );
    },
    20_000,
  );

  test.skipIf(process.platform === "win32")(
    "auditCommand --follow refuses a log that appears as a FIFO at once (exit 1), instead of waiting on it",
    async () => {
      const follow = spawnAudit(["--follow", "--json", "--audit-log", log]);
      let code: number | null = null;
      try {
        await waitFor(() => follow.output.stderr.includes("waiting for it"));
        expect(spawnSync("mkfifo", [log]).status).toBe(0);
        await waitFor(() => follow.child.exitCode !== null);
        code = follow.child.exitCode;
      } finally {
        await follow.stop();
      }
      expect(code).toBe(1);
      expect(follow.output.stderr).toContain(
        `bouncer: Cannot follow audit log "${log}": it is not a regular file (a FIFO)\n`,
      );
    },
    20_000,
  );

  test("auditCommand --follow prints the last records, then new ones, until stopped", async () => {
    seed();
    const controller = new AbortController();
    const memory = memoryIo({ cwd: dir });
    const running = runAudit(
      { auditLog: log, follow: true, json: true, tail: 1, signal: controller.signal, intervalMs: 5 },
      memory.io,
    );
    const writer = createAuditWriter(log);
    writer.write({ event: "noise", session: "s", server: "mail", reason: "hello" });
    const deadline = Date.now() + 10_000;
    while (!memory.stdout().includes("hello") && Date.now() < deadline) await Bun.sleep(5);
    controller.abort();
    expect(await running).toBe(0);
    expect(
      memory
        .stdout()
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).event),
    ).toEqual(["outcome", "noise"]);
  });
});
