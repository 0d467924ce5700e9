import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readAuditLog } from "../../src/audit/audit-reader.ts";
import type { AuditEntry } from "../../src/audit/audit-record.ts";
import { createAuditWriter } from "../../src/audit/audit-writer.ts";
import { isBouncerError } from "../../src/platform/errors.ts";
import { describeFsError } from "../../src/platform/fs-error-text.ts";
import { startAppender } from "./support/appender.ts";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bouncer-audit-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const FIXED = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
const posix = process.platform !== "win32";

/** A decision entry with a sequence number and some padding. */
function entry(seq: number, extra: Partial<AuditEntry> = {}): AuditEntry {
  return {
    event: "decision",
    session: "s1",
    seq,
    server: "mail",
    tool: "send_email",
    args: { to: `user${seq}@corp.example` },
    verdict: "allow",
    contract: "default",
    ...extra,
  };
}

/** Makes a directory where the log should be. */
function directoryAsLog(root: string): string {
  mkdirSync(join(root, "d"));
  return join(root, "d");
}

/** Makes a file where the log's folder should be. */
function logUnderAFile(root: string): string {
  writeFileSync(join(root, "f"), "");
  return join(root, "f", "audit.jsonl");
}

describe("createAuditWriter()", () => {
  test.if(posix)("createAuditWriter() narrows an existing log that others may read to 0600", () => {
    const log = join(dir, "home", "audit.jsonl");
    mkdirSync(join(dir, "home"), { recursive: true });
    writeFileSync(log, "");
    chmodSync(log, 0o644);
    createAuditWriter(log).write(entry(1));
    expect(statSync(log).mode & 0o777).toBe(0o600);
  });

  test.if(posix)("createAuditWriter() creates the log with mode 0600 and its folder with mode 0700", () => {
    const log = join(dir, "home", "audit.jsonl");
    createAuditWriter(log).write(entry(1));
    expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "home")).mode & 0o777).toBe(0o700);
  });

  test("createAuditWriter() writes one JSON line per record in the SPEC field order, stamped with the injected clock", () => {
    const log = join(dir, "audit.jsonl");
    const writer = createAuditWriter(log, { now: () => FIXED, version: "9.9.9" });
    writer.write({
      ...entry(7, { verdict: "deny", contract: "sink_gate" }),
      reason: "no",
      source: "heuristic",
    });
    writer.write({
      event: "outcome",
      session: "s1",
      seq: 7,
      server: "mail",
      tool: "send_email",
      outcome: "declined",
    });
    const lines = readFileSync(log, "utf8").split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    const first = JSON.parse(lines[0] ?? "");
    expect(Object.keys(first)).toEqual([
      "ts",
      "event",
      "session",
      "seq",
      "server",
      "tool",
      "args",
      "verdict",
      "contract",
      "reason",
      "source",
      "bouncer",
    ]);
    expect(first.ts).toBe("2026-01-02T03:04:05.006Z");
    expect(first.bouncer).toBe("9.9.9");
    expect(JSON.parse(lines[1] ?? "")).toEqual({
      ts: "2026-01-02T03:04:05.006Z",
      event: "outcome",
      session: "s1",
      seq: 7,
      server: "mail",
      tool: "send_email",
      outcome: "declined",
      bouncer: "9.9.9",
    });
  });

  test("createAuditWriter() defaults the bouncer field to the package version", () => {
    const log = join(dir, "audit.jsonl");
    const record = createAuditWriter(log).write(entry(1));
    const pkg = JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "package.json"), "utf8"));
    expect(record.bouncer).toBe(pkg.version);
  });

  test("createAuditWriter() redacts args, reason and evidence but not server or tool", () => {
    const log = join(dir, "audit.jsonl");
    const token = `ghp_${"a1B2".repeat(9)}`;
    const long = "y".repeat(3000);
    createAuditWriter(log).write({
      ...entry(1),
      args: { to: "bob@x.example", api_key: "k-123", body: `use ${token} please`, blob: long },
      reason: `Recipient came from output holding ${token}`,
      evidence: [{ server: "mail", tool: "read_inbox", seq: 1, kind: "free_text", excerpt: `key ${token}` }],
    });
    const record = JSON.parse(readFileSync(log, "utf8"));
    expect(record.args.to).toBe("bob@x.example");
    expect(record.args.api_key).toBe("[redacted]");
    expect(record.args.body).toBe("use [redacted] please");
    expect(record.args.blob).toContain(`sha256:${createHash("sha256").update(long).digest("hex")}`);
    expect(record.reason).toBe("Recipient came from output holding [redacted]");
    expect(record.evidence[0].excerpt).toBe("key [redacted]");
    expect(record.server).toBe("mail");
    expect(readFileSync(log, "utf8")).not.toContain(token);
  });

  test("createAuditWriter() hides a secret-named argument's value where the reason or evidence quotes it", () => {
    const log = join(dir, "audit.jsonl");
    const secret = "hunter2-correct-horse";
    const long = `p${"w".repeat(300)}`;
    createAuditWriter(log).write({
      ...entry(1),
      args: { password: secret, auth: { pin: 48151623 }, credentials: [long] },
      reason: `Destination "${secret}" in password is not trusted; "${long.slice(0, 200)}…" in note; pin 48151623`,
      evidence: [{ server: "mail", tool: "read_inbox", seq: 1, kind: "free_text", excerpt: `saw ${secret}` }],
    });
    const text = readFileSync(log, "utf8");
    const record = JSON.parse(text);
    expect(record.reason).toBe(
      'Destination "[redacted]" in password is not trusted; "[redacted]…" in note; pin [redacted]',
    );
    expect(record.evidence[0].excerpt).toBe("saw [redacted]");
    expect(text).not.toContain(secret);
    expect(text).not.toContain("48151623");
  });

  test("createAuditWriter() does not let a secret-named argument blank the names of servers and tools in the record", () => {
    const log = join(dir, "audit.jsonl");
    createAuditWriter(log).write({
      ...entry(1),
      args: { to: "attacker@evil.example", token: "read_inbox" },
      reason:
        'Destination "attacker@evil.example" in to occurs in free text of read_inbox\'s output (call #1)',
      evidence: [
        {
          server: "mail",
          tool: "read_inbox",
          seq: 1,
          kind: "free_text",
          excerpt: "mail attacker@evil.example",
        },
      ],
    });
    const record = JSON.parse(readFileSync(log, "utf8"));
    expect(record.args.token).toBe("[redacted]");
    expect(record.reason).toContain("read_inbox's output");
    expect(record.evidence[0].tool).toBe("read_inbox");
  });

  test("createAuditWriter() appends after existing content without parsing it", () => {
    const log = join(dir, "audit.jsonl");
    writeFileSync(log, "not json at all\n", { mode: 0o600 });
    createAuditWriter(log).write(entry(1));
    const text = readFileSync(log, "utf8");
    expect(text.startsWith("not json at all\n")).toBe(true);
    expect(text.split("\n")).toHaveLength(3);
  });

  test("createAuditWriter() rotates at maxBytes and keeps only `keep` rotated files, newest lines last", () => {
    const log = join(dir, "audit.jsonl");
    const writer = createAuditWriter(log, { maxBytes: 600, keep: 3 });
    for (let seq = 0; seq < 200; seq++) writer.write(entry(seq));
    writer.close();
    const names = readdirSync(dir).sort();
    expect(names).toEqual(["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2", "audit.jsonl.3"]);
    const { records, issues } = readAuditLog(log);
    expect(issues).toEqual([]);
    const seqs = records.map((record) => record.seq ?? -1);
    expect(seqs.at(-1)).toBe(199);
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
    expect(seqs[0]).toBeGreaterThan(0);
    for (const name of names) expect(statSync(join(dir, name)).size).toBeLessThan(600 + 400);
  });

  test("createAuditWriter() keeps 5 rotated files by default", () => {
    const log = join(dir, "audit.jsonl");
    const writer = createAuditWriter(log, { maxBytes: 300 });
    for (let seq = 0; seq < 100; seq++) writer.write(entry(seq));
    expect(
      readdirSync(dir)
        .filter((name) => name !== "audit.jsonl")
        .sort(),
    ).toEqual(["audit.jsonl.1", "audit.jsonl.2", "audit.jsonl.3", "audit.jsonl.4", "audit.jsonl.5"]);
  });

  test("createAuditWriter() does not rotate while another process holds a fresh lock", () => {
    const log = join(dir, "audit.jsonl");
    writeFileSync(`${log}.lock`, "4242 other\n");
    const writer = createAuditWriter(log, { maxBytes: 300 });
    for (let seq = 0; seq < 20; seq++) writer.write(entry(seq));
    expect(readdirSync(dir).sort()).toEqual(["audit.jsonl", "audit.jsonl.lock"]);
    expect(readAuditLog(log).records).toHaveLength(20);
  });

  test("createAuditWriter() takes over a stale lock (older than 10 s) and rotates", () => {
    const log = join(dir, "audit.jsonl");
    const lock = `${log}.lock`;
    writeFileSync(lock, "4242 dead\n");
    const old = (Date.now() - 20_000) / 1000;
    utimesSync(lock, old, old);
    const writer = createAuditWriter(log, { maxBytes: 300 });
    for (let seq = 0; seq < 5; seq++) writer.write(entry(seq));
    expect(existsSync(`${log}.1`)).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  test("createAuditWriter() follows a rotation done by another writer to the new file once the path check is due", () => {
    const log = join(dir, "audit.jsonl");
    let clock = FIXED;
    const a = createAuditWriter(log, { maxBytes: 10_000_000, now: () => clock });
    const b = createAuditWriter(log, { maxBytes: 1 });
    a.write(entry(1));
    b.write(entry(2));
    clock += 99;
    a.write(entry(3)); // within 100 ms of a's last check: lands in the file a has open, now audit.jsonl.1
    clock += 1;
    a.write(entry(4));
    expect(readAuditLog(`${log}.1`).records.map((record) => record.seq)).toEqual([1, 2, 3]);
    expect(readFileSync(log, "utf8")).toContain('"seq":4');
    expect(readFileSync(log, "utf8")).not.toContain('"seq":3');
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual([1, 2, 3, 4]);
  });

  test("createAuditWriter() with checkPathMs 0 follows another writer's rotation on the very next write", () => {
    const log = join(dir, "audit.jsonl");
    const a = createAuditWriter(log, { maxBytes: 10_000_000, now: () => FIXED, checkPathMs: 0 });
    const b = createAuditWriter(log, { maxBytes: 1 });
    a.write(entry(1));
    b.write(entry(2));
    a.write(entry(3));
    expect(readAuditLog(`${log}.1`).records.map((record) => record.seq)).toEqual([1, 2]);
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual([1, 2, 3]);
    expect(readFileSync(log, "utf8")).toContain('"seq":3');
  });

  test("createAuditWriter() checks the path again when the injected clock goes backwards", () => {
    const log = join(dir, "audit.jsonl");
    let clock = FIXED;
    const a = createAuditWriter(log, { maxBytes: 10_000_000, now: () => clock });
    a.write(entry(1));
    renameSync(log, `${log}.1`);
    clock -= 1;
    a.write(entry(2));
    expect(readFileSync(log, "utf8")).toContain('"seq":2');
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual([1, 2]);
  });

  test("createAuditWriter() never writes a line to a deleted log: the next line reopens the path and writes the lines since the last check again", () => {
    const log = join(dir, "audit.jsonl");
    const clock = FIXED;
    const warnings: string[] = [];
    const writer = createAuditWriter(log, {
      now: () => clock,
      warn: (message) => void warnings.push(message),
    });
    writer.write(entry(1));
    rmSync(log);
    writer.write(entry(2)); // before the path check is due, yet not into the deleted file
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual([1, 2]);
    writer.write(entry(3));
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual([1, 2, 3]);
    expect(warnings).toEqual([
      `Audit log "${log}" was removed while open: its last 1 line(s) were written again`,
    ]);
  });

  test("createAuditWriter() writes again the lines since its last path check when other writers rotate its open file out (older lines went with their rotation)", () => {
    const log = join(dir, "audit.jsonl");
    let clock = FIXED;
    const a = createAuditWriter(log, { maxBytes: 10_000_000, now: () => clock });
    a.write(entry(1));
    clock += 100;
    a.write(entry(2)); // a checked the path: its lines since then are 2
    // Other writers rotate the file a has open all the way out (keep 2).
    renameSync(log, `${log}.1`);
    renameSync(`${log}.1`, `${log}.2`);
    rmSync(`${log}.2`);
    a.write(entry(3));
    clock += 100;
    a.write(entry(4));
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual([2, 3, 4]);
  });

  test("createAuditWriter() flush() looks at the path, so after another process rotated the log its lines are in the rotated file and the path is open again", () => {
    const log = join(dir, "audit.jsonl");
    const writer = createAuditWriter(log, { now: () => FIXED });
    writer.write(entry(1));
    renameSync(log, `${log}.1`);
    writer.write(entry(2)); // the path check is not due: lands in the renamed file
    expect(existsSync(log)).toBe(false);
    writer.flush();
    expect(existsSync(log)).toBe(true);
    expect(readAuditLog(`${log}.1`).records.map((record) => record.seq)).toEqual([1, 2]);
    writer.write(entry(3));
    expect(readFileSync(log, "utf8")).toContain('"seq":3');
    writer.close();
  });

  test("createAuditWriter() checks the path once 1 MiB was written since the last check, even with a clock that stands still", () => {
    const log = join(dir, "audit.jsonl");
    const writer = createAuditWriter(log, { maxBytes: 100_000_000, now: () => FIXED });
    // About 20 KB a line: 1 MiB comes after some 50 lines, long before 256.
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, "x".repeat(1000)]));
    const big = (seq: number): AuditEntry => entry(seq, { args: wide });
    writer.write(big(0));
    renameSync(log, `${log}.1`);
    let seq = 1;
    while (!existsSync(log)) writer.write(big(seq++));
    expect(seq).toBeLessThan(100);
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual(
      Array.from({ length: seq }, (_, i) => i),
    );
  });

  test("createAuditWriter() checks the path at least every 256 lines, even with a clock that stands still", () => {
    const log = join(dir, "audit.jsonl");
    const writer = createAuditWriter(log, { maxBytes: 10_000_000, now: () => FIXED });
    writer.write(entry(0));
    renameSync(log, `${log}.1`);
    for (let seq = 1; seq <= 256; seq++) writer.write(entry(seq));
    expect(readAuditLog(`${log}.1`).records).toHaveLength(256);
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual(
      Array.from({ length: 257 }, (_, i) => i),
    );
    expect(readFileSync(log, "utf8")).toContain('"seq":256');
  });

  test("createAuditWriter() does not rotate a file another writer renamed since its last check, and follows the path instead", () => {
    const log = join(dir, "audit.jsonl");
    const a = createAuditWriter(log, { maxBytes: 300, now: () => FIXED });
    a.write(entry(1));
    renameSync(log, `${log}.1`); // another writer rotated; a has not looked at the path since
    a.write(entry(2)); // .1 reaches 300 bytes: a looks at the path, and lets .1 be
    a.write(entry(3));
    expect(existsSync(`${log}.2`)).toBe(false);
    expect(readAuditLog(`${log}.1`).records.map((record) => record.seq)).toEqual([1, 2]);
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual([1, 2, 3]);
  });

  test.each([
    ["the path is a directory", directoryAsLog, () => "it is a folder, not a file (EISDIR)"],
    ["the parent is a file", logUnderAFile, (log: string) => `"${dirname(log)}" is not a folder`],
  ])("createAuditWriter() throws AUDIT_WRITE_FAILED naming the file and why when %s", (_why, make, why) => {
    const log = make(dir);
    const writer = createAuditWriter(log);
    let caught: unknown;
    try {
      writer.write(entry(1));
    } catch (error) {
      caught = error;
    }
    expect(isBouncerError(caught)).toBe(true);
    expect((caught as { code: string }).code).toBe("AUDIT_WRITE_FAILED");
    expect((caught as Error).message).toBe(`Cannot write audit log "${log}": ${why(log)}`);
    expect(() => writer.open()).toThrow(/^Cannot write audit log/);
  });

  test("createAuditWriter() refuses a rotation size of 0, a keep of 0 and a negative checkPathMs", () => {
    expect(() => createAuditWriter(join(dir, "a"), { maxBytes: 0 })).toThrow(RangeError);
    expect(() => createAuditWriter(join(dir, "a"), { keep: 0 })).toThrow(RangeError);
    expect(() => createAuditWriter(join(dir, "a"), { checkPathMs: -1 })).toThrow(RangeError);
  });

  test("createAuditWriter() flush() and close() leave a complete log", () => {
    const log = join(dir, "audit.jsonl");
    const writer = createAuditWriter(log);
    writer.flush();
    writer.write(entry(1));
    writer.flush();
    writer.close();
    writer.write(entry(2));
    writer.close();
    expect(readAuditLog(log).records.map((record) => record.seq)).toEqual([1, 2]);
  });
});

describe("createAuditWriter() across processes", () => {
  test("createAuditWriter() loses no line when two processes append 1,000 lines each with rotation in between", async () => {
    const log = join(dir, "shared", "audit.jsonl");
    const count = 1000;
    // A lock left behind by a crashed Bouncer: both processes race to take it over.
    mkdirSync(join(dir, "shared"));
    writeFileSync(`${log}.lock`, "999999 crashed\n");
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(`${log}.lock`, old, old);
    const children = await Promise.all(
      ["alpha", "beta"].map((session) => startAppender([log, session, String(count), "16384", "200"])),
    );
    for (const child of children) {
      child.stdin.write("go\n");
      child.stdin.end();
    }
    const codes = await Promise.all(children.map((child) => child.exited));
    const stderr = await Promise.all(children.map((child) => new Response(child.stderr).text()));
    expect(stderr).toEqual(["", ""]);
    expect(codes).toEqual([0, 0]);

    const files = readdirSync(join(dir, "shared")).filter((name) => /^audit\.jsonl(\.\d+)?$/.test(name));
    expect(files.length).toBeGreaterThan(5);
    for (const name of files) {
      const text = readFileSync(join(dir, "shared", name), "utf8");
      expect(text.endsWith("\n")).toBe(true);
      for (const line of text.slice(0, -1).split("\n")) expect(() => JSON.parse(line)).not.toThrow();
      if (posix) expect(statSync(join(dir, "shared", name)).mode & 0o777).toBe(0o600);
    }
    const mixed = files.filter((name) => {
      const text = readFileSync(join(dir, "shared", name), "utf8");
      return text.includes('"session":"alpha"') && text.includes('"session":"beta"');
    });
    expect(mixed.length).toBeGreaterThan(0); // the two processes really appended at the same time
    const { records, issues } = readAuditLog(log);
    expect(issues).toEqual([]);
    expect(records).toHaveLength(2 * count);
    for (const session of ["alpha", "beta"]) {
      const seqs = records.filter((record) => record.session === session).map((record) => record.seq ?? -1);
      expect(new Set(seqs).size).toBe(count);
      expect(Math.min(...seqs)).toBe(0);
      expect(Math.max(...seqs)).toBe(count - 1);
    }
    expect(readdirSync(join(dir, "shared")).filter((name) => !/^audit\.jsonl(\.\d+)?$/.test(name))).toEqual(
      [],
    );
  }, 60_000);
});

describe("describeFsError()", () => {
  test("describeFsError() puts plain words before the code of a real file-system error", () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-fs-words-"));
    let caught: unknown;
    try {
      readFileSync(dir);
    } catch (error) {
      caught = error;
    }
    expect(describeFsError(caught)).toBe("it is a folder, not a file (EISDIR)");
  });

  test("describeFsError() keeps Bouncer's own message and other runtime messages (without the path)", () => {
    const own = Object.assign(new Error('"/etc/passwd" is not a folder'), { code: "ENOTDIR" });
    expect(describeFsError(own)).toBe('"/etc/passwd" is not a folder');
    const other = Object.assign(new Error("EBUSY: resource busy or locked, open '/x'"), {
      code: "EBUSY",
      syscall: "open",
    });
    expect(describeFsError(other)).toBe("EBUSY: resource busy or locked");
    expect(describeFsError("plain")).toBe("plain");
  });
});
