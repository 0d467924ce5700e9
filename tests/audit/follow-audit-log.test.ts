import { afterEach, beforeEach, expect, test } from "bun:test";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AuditIssue, type LogPosition, readAuditLog } from "../../src/audit/audit-reader.ts";
import type { AuditRecord } from "../../src/audit/audit-record.ts";
import { createAuditWriter } from "../../src/audit/audit-writer.ts";
import { followAuditLog } from "../../src/audit/follow-audit-log.ts";
import { startAppender } from "./support/appender.ts";

let dir = "";
let log = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bouncer-follow-"));
  log = join(dir, "audit.jsonl");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Waits until a condition holds; the deadline only guards against a hang. */
async function until(condition: () => boolean, guardMs = 10_000): Promise<void> {
  const deadline = Date.now() + guardMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not reached before the hang guard");
    await Bun.sleep(5);
  }
}

/** Starts following the log, collecting what arrives. */
function follow(
  options: {
    readonly fromStart?: boolean;
    readonly after?: LogPosition;
    readonly intervalMs?: number;
    readonly lingerMs?: number;
    readonly now?: () => number;
  } = {},
): {
  readonly records: AuditRecord[];
  readonly issues: AuditIssue[];
  readonly stop: () => Promise<void>;
} {
  const records: AuditRecord[] = [];
  const issues: AuditIssue[] = [];
  const controller = new AbortController();
  const done = followAuditLog(log, {
    signal: controller.signal,
    onRecord: (record) => records.push(record),
    onIssue: (issue) => issues.push(issue),
    intervalMs: 5,
    ...options,
  });
  return {
    records,
    issues,
    stop: async (): Promise<void> => {
      controller.abort();
      await done;
    },
  };
}

const entry = (seq: number) => ({ event: "decision", session: "s", seq, server: "m", tool: "t" }) as const;

test("followAuditLog() delivers only records appended after it started", async () => {
  const writer = createAuditWriter(log);
  writer.write(entry(0));
  const followed = follow();
  await Bun.sleep(20);
  writer.write(entry(1));
  writer.write(entry(2));
  await until(() => followed.records.length === 2);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([1, 2]);
});

/** A record's line. */
const lineOf = (seq: number): string =>
  `${JSON.stringify({ ts: "2026-01-01T00:00:00.000Z", ...entry(seq) })}\n`;

test("followAuditLog() reports an appended line that is not UTF-8 as such, and delivers the next one", async () => {
  writeFileSync(log, "");
  const followed = follow({ fromStart: true });
  const head = Buffer.from('{"ts":"2026-01-01T00:00:00.000Z","event":"decision","seq":1,"server":"ev');
  appendFileSync(log, Buffer.concat([head, Buffer.from([0xff]), Buffer.from('il"}\n')]));
  appendFileSync(log, lineOf(2));
  await until(() => followed.records.length === 1 && followed.issues.length === 1);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([2]);
  expect(followed.issues).toEqual([{ file: log, line: 1, message: "not UTF-8 text" }]);
});

test("followAuditLog() after a read goes on exactly where the read ended: nothing written meanwhile is missed", async () => {
  writeFileSync(log, lineOf(1) + lineOf(2));
  const read = readAuditLog(log);
  appendFileSync(log, lineOf(3));
  const followed = follow({ ...(read.end === undefined ? {} : { after: read.end }) });
  appendFileSync(log, lineOf(4));
  await until(() => followed.records.length === 2);
  await Bun.sleep(20);
  await followed.stop();
  expect(read.records.map((record) => record.seq)).toEqual([1, 2]);
  expect(followed.records.map((record) => record.seq)).toEqual([3, 4]);
  expect(followed.issues).toEqual([]);
});

test("followAuditLog() after a read finds the rest in the rotated file when the log rotated in between", async () => {
  writeFileSync(log, lineOf(1));
  const read = readAuditLog(log);
  appendFileSync(log, lineOf(2));
  renameSync(log, `${log}.1`);
  writeFileSync(log, lineOf(3));
  const followed = follow({ ...(read.end === undefined ? {} : { after: read.end }) });
  await until(() => followed.records.length === 2);
  await Bun.sleep(20);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([2, 3]);
});

test("followAuditLog() after a read that ended inside a line being written delivers that line whole", async () => {
  const second = lineOf(2);
  writeFileSync(log, lineOf(1) + second.slice(0, 10));
  const read = readAuditLog(log);
  appendFileSync(log, second.slice(10));
  const followed = follow({ ...(read.end === undefined ? {} : { after: read.end }) });
  await until(() => followed.records.length === 1);
  await Bun.sleep(20);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([2]);
  expect(followed.issues).toEqual([]);
});

test("followAuditLog() after a read that showed a whole last record without its newline does not show it again", async () => {
  writeFileSync(log, lineOf(1) + lineOf(2).trimEnd());
  const read = readAuditLog(log);
  const followed = follow({ ...(read.end === undefined ? {} : { after: read.end }) });
  appendFileSync(log, `\n${lineOf(3)}`);
  await until(() => followed.records.length >= 1);
  await Bun.sleep(30);
  await followed.stop();
  expect(read.records.map((record) => record.seq)).toEqual([1, 2]);
  expect(followed.records.map((record) => record.seq)).toEqual([3]);
  // The newline that ends record 2 is not a line of its own (no "empty line" issue).
  expect(followed.issues).toEqual([]);
});

test("followAuditLog() numbers lines on after a whole last record without its newline", async () => {
  writeFileSync(log, lineOf(1) + lineOf(2).trimEnd());
  const read = readAuditLog(log);
  const followed = follow({ ...(read.end === undefined ? {} : { after: read.end }) });
  appendFileSync(log, `\n${lineOf(3)}not json\n`);
  await until(() => followed.issues.length >= 1);
  await followed.stop();
  expect(followed.issues.map((issue) => issue.line)).toEqual([4]);
});

test("followAuditLog() notices a log truncated and written again past the old position between polls", async () => {
  writeFileSync(log, lineOf(1) + lineOf(2));
  const followed = follow({ intervalMs: 300 });
  await Bun.sleep(50);
  // Before the next poll: truncated and rewritten with longer lines, past the old end.
  writeFileSync(log, lineOf(10) + lineOf(11) + lineOf(12));
  await until(() => followed.records.length === 3);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([10, 11, 12]);
  expect(followed.issues.map((issue) => issue.message)).toEqual([
    "the log was truncated: reading it again from its start (records written just before may be missing here: see the rotated copy, e.g. with bouncer audit)",
  ]);
});

test("followAuditLog() notices a log emptied in place and refilled to the same length within one poll (copytruncate)", async () => {
  writeFileSync(log, lineOf(1) + lineOf(2));
  // The first poll has run when follow() returns; the next one is 300 ms away.
  const followed = follow({ intervalMs: 300 });
  truncateSync(log, 0);
  appendFileSync(log, lineOf(3) + lineOf(4));
  await until(() => followed.records.length === 2);
  appendFileSync(log, lineOf(5));
  await until(() => followed.records.length === 3);
  await followed.stop();
  expect(lineOf(3).length + lineOf(4).length).toBe(lineOf(1).length + lineOf(2).length);
  expect(followed.records.map((record) => record.seq)).toEqual([3, 4, 5]);
  expect(followed.issues.map((issue) => issue.message)).toEqual([
    "the log was truncated: reading it again from its start (records written just before may be missing here: see the rotated copy, e.g. with bouncer audit)",
  ]);
});

test("followAuditLog() after a read notices a log emptied and refilled to the same length before it started", async () => {
  writeFileSync(log, lineOf(1) + lineOf(2));
  const read = readAuditLog(log);
  truncateSync(log, 0);
  appendFileSync(log, lineOf(3) + lineOf(4));
  const followed = follow({ ...(read.end === undefined ? {} : { after: read.end }) });
  await until(() => followed.records.length === 2);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([3, 4]);
  expect(followed.issues.map((issue) => issue.message)).toEqual([
    "the log was truncated: reading it again from its start (records written just before may be missing here: see the rotated copy, e.g. with bouncer audit)",
  ]);
});

test("followAuditLog() reads a log truncated in place again from its start, and says so", async () => {
  writeFileSync(log, lineOf(1) + lineOf(2));
  const followed = follow();
  await Bun.sleep(20);
  truncateSync(log, 0);
  appendFileSync(log, lineOf(3));
  await until(() => followed.records.length === 1);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([3]);
  expect(followed.issues.map((issue) => issue.message)).toEqual([
    "the log was truncated: reading it again from its start (records written just before may be missing here: see the rotated copy, e.g. with bouncer audit)",
  ]);
});

test("followAuditLog() follows the log across rotations without losing or repeating a record", async () => {
  const followed = follow();
  const writer = createAuditWriter(log, { maxBytes: 400, keep: 50 });
  for (let seq = 0; seq < 60; seq++) {
    writer.write(entry(seq));
    if (seq % 7 === 0) await Bun.sleep(10);
  }
  await until(() => followed.records.length >= 60);
  await Bun.sleep(30);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  expect(followed.issues).toEqual([]);
});

test("followAuditLog() waits for a log that does not exist yet and reports a bad line", async () => {
  const followed = follow();
  await Bun.sleep(20);
  writeFileSync(log, `${JSON.stringify({ ts: "t", event: "noise" })}\n`);
  appendFileSync(log, "garbage\n");
  await until(() => followed.records.length === 1 && followed.issues.length === 1);
  await followed.stop();
  expect(followed.issues).toEqual([{ file: log, line: 2, message: "not JSON" }]);
});

test("followAuditLog() keeps a half-written line until its newline arrives", async () => {
  writeFileSync(log, "");
  const followed = follow({ fromStart: true });
  const text = JSON.stringify({ ts: "t", event: "noise", reason: "é" });
  const bytes = Buffer.from(text);
  appendFileSync(log, bytes.subarray(0, bytes.length - 5));
  await Bun.sleep(30);
  expect(followed.records).toEqual([]);
  appendFileSync(log, Buffer.concat([bytes.subarray(bytes.length - 5), Buffer.from("\n")]));
  await until(() => followed.records.length === 1);
  await followed.stop();
  expect(followed.records[0]?.reason).toBe("é");
  expect(followed.issues).toEqual([]);
});

const line = (seq: number): string => `${JSON.stringify({ ts: "t", event: "decision", seq })}\n`;

test("followAuditLog() still delivers a line appended to the renamed file after a rotation (a writer that has not looked at the path yet)", async () => {
  writeFileSync(log, line(0));
  let clock = 0;
  const followed = follow({ fromStart: true, lingerMs: 1000, now: () => clock });
  await until(() => followed.records.length === 1);
  renameSync(log, `${log}.1`);
  writeFileSync(log, line(1));
  await until(() => followed.records.length === 2);
  clock = 999;
  appendFileSync(`${log}.1`, line(2));
  await until(() => followed.records.length === 3);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([0, 1, 2]);
  expect(followed.issues).toEqual([]);
});

test("followAuditLog() stops reading a renamed file after lingerMs and reports its unterminated last line then", async () => {
  writeFileSync(log, line(0));
  let clock = 0;
  const followed = follow({ fromStart: true, lingerMs: 1000, now: () => clock });
  await until(() => followed.records.length === 1);
  renameSync(log, `${log}.1`);
  appendFileSync(`${log}.1`, '{"ts":"t","event":"deci');
  writeFileSync(log, line(1));
  await until(() => followed.records.length === 2);
  await Bun.sleep(30);
  expect(followed.issues).toEqual([]);
  clock = 1000;
  await until(() => followed.issues.length === 1);
  appendFileSync(`${log}.1`, line(2));
  appendFileSync(log, line(3));
  await until(() => followed.records.length === 3);
  await Bun.sleep(30);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([0, 1, 3]);
  expect(followed.issues).toEqual([{ file: log, line: 2, message: "unterminated last line" }]);
});

test("followAuditLog() says once that the log was replaced by another file (nothing missed), and reads the new one from its start", async () => {
  writeFileSync(log, line(0));
  const followed = follow({ fromStart: true });
  await until(() => followed.records.length === 1);
  // Replaced in one step (no moment without a log), as by a rename over it.
  writeFileSync(`${dir}/other.jsonl`, line(1) + line(2));
  renameSync(`${dir}/other.jsonl`, log);
  await until(() => followed.records.length === 3);
  appendFileSync(log, line(3));
  await until(() => followed.records.length === 4);
  await Bun.sleep(30);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([0, 1, 2, 3]);
  expect(followed.issues).toEqual([
    { file: log, line: 0, message: "the log was replaced by another file: reading it from its start" },
  ]);
});

test("followAuditLog() says once that the log was deleted (nothing missed), and reads a new log from its start", async () => {
  writeFileSync(log, line(0));
  const followed = follow({ fromStart: true });
  await until(() => followed.records.length === 1);
  unlinkSync(log);
  await until(() => followed.issues.length === 1);
  writeFileSync(log, line(1));
  await until(() => followed.records.length === 2);
  await Bun.sleep(30);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([0, 1]);
  expect(followed.issues).toEqual([
    {
      file: log,
      line: 0,
      message: "the log was deleted: reading the new log from its start once it is there",
    },
  ]);
});

test.each([
  ["with an older rotated file beside it", true],
  ["with no rotated file", false],
])(
  "followAuditLog() does not say records may be missing when a log read to its end is deleted and made again within one poll, %s",
  async (_name, rotated) => {
    if (rotated) writeFileSync(`${log}.1`, line(0));
    writeFileSync(log, line(1));
    const followed = follow({ fromStart: true, intervalMs: 300 });
    expect(followed.records.map((record) => record.seq)).toEqual([1]);
    unlinkSync(log);
    writeFileSync(log, line(2));
    await until(() => followed.records.length === 2);
    appendFileSync(log, line(3));
    await until(() => followed.records.length === 3);
    await followed.stop();
    expect(followed.records.map((record) => record.seq)).toEqual([1, 2, 3]);
    expect(followed.issues).toEqual([
      { file: log, line: 0, message: "the log was replaced by another file: reading it from its start" },
    ]);
  },
);

test("followAuditLog() says records may be missing when the log was rotated out of reach within one poll", async () => {
  writeFileSync(log, line(0));
  const followed = follow({ fromStart: true, intervalMs: 300 });
  expect(followed.records.map((record) => record.seq)).toEqual([0]);
  // Rotated twice (keep 1) before the next poll: the followed file went to log.1 and out of reach,
  // and log.1 is now a newer file (record 2) that following the new log does not read.
  renameSync(log, `${log}.1`);
  unlinkSync(`${log}.1`);
  writeFileSync(`${log}.1`, line(2));
  writeFileSync(log, line(3));
  await until(() => followed.records.length === 2);
  await Bun.sleep(30);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([0, 3]);
  expect(followed.issues).toEqual([
    { file: log, line: 0, message: "records may be missing: the log rotated faster than it was read" },
  ]);
});

test("followAuditLog() still delivers a line appended to a rotated file it read past (a writer that has not looked at the path yet)", async () => {
  writeFileSync(log, line(0));
  let clock = 0;
  const followed = follow({ fromStart: true, lingerMs: 1000, now: () => clock, intervalMs: 300 });
  await until(() => followed.records.length === 1);
  // Two rotations before the next poll: the followed file is log.2, log.1 came and went as the log.
  renameSync(log, `${log}.2`);
  writeFileSync(`${log}.1`, line(1));
  writeFileSync(log, line(2));
  await until(() => followed.records.length === 3);
  clock = 999;
  appendFileSync(`${log}.1`, line(3));
  appendFileSync(log, line(4));
  await until(() => followed.records.length >= 4 && followed.records.some((record) => record.seq === 4));
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([0, 1, 2, 3, 4]);
  expect(followed.issues).toEqual([]);
});

test("followAuditLog() passes over the gap a rotation under way leaves among the rotated files", async () => {
  writeFileSync(log, line(0));
  const followed = follow({ fromStart: true, intervalMs: 300 });
  await until(() => followed.records.length === 1);
  // Halfway through a rotation: log.2 moved to log.3 and log.1 not yet to log.2.
  renameSync(log, `${log}.3`);
  writeFileSync(`${log}.1`, line(1));
  writeFileSync(log, line(2));
  await until(() => followed.records.length + followed.issues.length >= 3);
  await Bun.sleep(30);
  await followed.stop();
  expect(followed.records.map((record) => record.seq)).toEqual([0, 1, 2]);
  expect(followed.issues).toEqual([]);
});

test("followAuditLog() refuses a log that became a folder with AUDIT_UNREADABLE, in words", async () => {
  writeFileSync(log, line(0));
  const controller = new AbortController();
  const records: AuditRecord[] = [];
  const done = followAuditLog(log, {
    signal: controller.signal,
    onRecord: (record) => records.push(record),
    fromStart: true,
    intervalMs: 5,
  });
  await until(() => records.length === 1);
  renameSync(log, `${log}.1`);
  mkdirSync(log);
  try {
    await expect(done).rejects.toMatchObject({
      code: "AUDIT_UNREADABLE",
      message: `Cannot follow audit log "${log}": it is a folder, not a file (EISDIR)`,
    });
  } finally {
    controller.abort();
  }
});

test("followAuditLog() delivers every record once while two processes append fast and rotate every few hundred records", async () => {
  writeFileSync(log, "");
  const read = readAuditLog(log);
  const records: AuditRecord[] = [];
  const issues: AuditIssue[] = [];
  const controller = new AbortController();
  // As `bouncer audit --follow` runs it (after its first read), polling often and printing to a slow
  // terminal (1 ms every 20 records): writers rotate while the rotated files are being read.
  const done = followAuditLog(log, {
    signal: controller.signal,
    ...(read.end === undefined ? {} : { after: read.end }),
    onRecord: (record) => {
      if (records.push(record) % 20 === 0) Bun.sleepSync(1);
    },
    onIssue: (issue) => issues.push(issue),
    intervalMs: 20,
  });
  const children = await Promise.all(
    ["A", "B"].map((session) => startAppender([log, session, "3000", "100000", "200"])),
  );
  for (const child of children) {
    child.stdin.write("go\n");
    child.stdin.end();
  }
  expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0]);
  // Written after both appenders are done: once it is delivered, so is everything before it.
  appendFileSync(log, `${JSON.stringify({ ts: "t", event: "noise", session: "end" })}\n`);
  await until(() => records.some((record) => record.session === "end"), 60_000);
  controller.abort();
  await done;
  expect(readAuditLog(log).records).toHaveLength(6001);
  const seen = records.map((record) => `${record.session}:${record.seq}`);
  expect(new Set(seen).size).toBe(seen.length);
  expect({ delivered: seen.length, issues }).toEqual({ delivered: 6001, issues: [] });
}, 90_000);
