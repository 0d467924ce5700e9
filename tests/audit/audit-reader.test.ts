import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  listAuditFiles,
  parseAuditLine,
  parseAuditText,
  readAuditLog,
} from "../../src/audit/audit-reader.ts";
import { isBouncerError } from "../../src/platform/errors.ts";

let dir = "";
let log = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bouncer-reader-"));
  log = join(dir, "audit.jsonl");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** One valid audit line with a sequence number. */
function line(seq: number): string {
  return JSON.stringify({
    ts: "2026-01-01T00:00:00.000Z",
    event: "decision",
    session: "s",
    seq,
    server: "m",
  });
}

describe("listAuditFiles()", () => {
  test("listAuditFiles() lists rotated files oldest first, then the log, ignoring other files", () => {
    for (const name of [
      "audit.jsonl",
      "audit.jsonl.1",
      "audit.jsonl.2",
      "audit.jsonl.12",
      "audit.jsonl.lock",
      "x",
    ]) {
      writeFileSync(join(dir, name), "");
    }
    expect(listAuditFiles(log)).toEqual([`${log}.12`, `${log}.2`, `${log}.1`, log]);
  });

  test("listAuditFiles() returns nothing when the folder does not exist", () => {
    expect(listAuditFiles(join(dir, "nope", "audit.jsonl"))).toEqual([]);
  });
});

describe("parseAuditLine()", () => {
  test.each([
    ["", "empty line"],
    ["{not json", "not JSON"],
    ["[1,2]", "not a JSON object"],
    ['"text"', "not a JSON object"],
    ['{"ts":"2026-01-01T00:00:00.000Z"}', 'missing "event"'],
    ['{"event":"decision"}', 'missing "ts"'],
    ['{"ts":1,"event":"decision"}', '"ts" is a number, not a string'],
    ['{"ts":null,"event":"decision"}', '"ts" is null, not a string'],
    ['{"ts":"t","event":["decision"]}', '"event" is an array, not a string'],
    ['{"ts":{},"event":"decision"}', '"ts" is an object, not a string'],
  ])("parseAuditLine(%p) reports %p", (text, message) => {
    expect(parseAuditLine(text)).toEqual({ ok: false, error: message });
  });

  test("parseAuditLine() reads a CRLF line with its \\r left on, and a lone \\r as an empty line", () => {
    expect(parseAuditLine('{"ts":"t","event":"decision"}\r').ok).toBe(true);
    expect(parseAuditLine("\r")).toEqual({ ok: false, error: "empty line" });
  });

  test("parseAuditLine() reports a record nested deeper than any the writer writes, and reads one as deep as it writes", () => {
    const nested = (depth: number): string => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    expect(parseAuditLine(`{"ts":"t","event":"decision","args":${nested(200_000)}}`)).toEqual({
      ok: false,
      error: "nests deeper than 100 levels",
    });
    expect(parseAuditLine(`{"ts":"t","event":"decision","reason":"${"[".repeat(500)}"}`).ok).toBe(true);
    expect(parseAuditLine(`{"ts":"t","event":"decision","args":${nested(70)}}`).ok).toBe(true);
  });

  test("parseAuditLine() keeps unknown fields of a valid record", () => {
    const parsed = parseAuditLine('{"ts":"t","event":"future_event","extra":1}');
    expect(parsed).toEqual({ ok: true, record: { ts: "t", event: "future_event", extra: 1 } as never });
  });
});

describe("readAuditLog()", () => {
  test("readAuditLog() reads rotated files first and skips a bad line, reporting its file and line number", () => {
    writeFileSync(`${log}.2`, `${line(1)}\n${line(2)}\n`);
    writeFileSync(`${log}.1`, `${line(3)}\n{"ts":"x","event":"decision",\n${line(4)}\n`);
    writeFileSync(log, `${line(5)}\n\n${line(6)}\n`);
    const { records, issues, files } = readAuditLog(log);
    expect(records.map((record) => record.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(issues).toEqual([
      { file: `${log}.1`, line: 2, message: "not JSON" },
      { file: log, line: 2, message: "empty line" },
    ]);
    expect(files).toEqual([`${log}.2`, `${log}.1`, log]);
  });

  test("readAuditLog() skips a line that is not UTF-8 as such, and reads the UTF-8 lines around it", () => {
    const bad = Buffer.from(line(2).replace('"s"', '"ev\u00ffil"'), "latin1");
    writeFileSync(log, Buffer.concat([Buffer.from(`${line(1)}\n`), bad, Buffer.from(`\n${line(3)}\n`)]));
    const { records, issues } = readAuditLog(log);
    expect(records.map((record) => record.seq)).toEqual([1, 3]);
    expect(issues).toEqual([{ file: log, line: 2, message: "not UTF-8 text" }]);
    // UTF-8 beyond ASCII is read as it is.
    writeFileSync(log, `${line(4).replace('"s"', '"évil ✓"')}\n`);
    expect(readAuditLog(log).records.map((record) => record.session)).toEqual(["évil ✓"]);
  });

  test("readAuditLog() reads a file of a million records (no spread of them)", () => {
    writeFileSync(log, `${line(1)}\n`.repeat(1_000_000));
    expect(readAuditLog(log).records).toHaveLength(1_000_000);
  });

  test("readAuditLog() with following leaves the log's line still being written unreported, and reports it otherwise", () => {
    writeFileSync(`${log}.1`, `${line(1)}\n${line(2).slice(0, 20)}`);
    writeFileSync(log, `${line(3)}\n${line(4).slice(0, 20)}`);
    const followed = readAuditLog(log, { following: true });
    expect(followed.records.map((record) => record.seq)).toEqual([1, 3]);
    // A rotated file's torn line is final: reported either way.
    expect(followed.issues).toEqual([{ file: `${log}.1`, line: 2, message: "not JSON" }]);
    expect(followed.end?.lines).toBe(1);
    expect(readAuditLog(log).issues).toEqual([
      { file: `${log}.1`, line: 2, message: "not JSON" },
      { file: log, line: 2, message: "not JSON" },
    ]);
  });

  test("readAuditLog() returns nothing for a log that does not exist", () => {
    expect(readAuditLog(log)).toEqual({ records: [], issues: [], files: [] });
  });

  test("readAuditLog() throws AUDIT_UNREADABLE for a log that cannot be read", () => {
    // A symbolic link to itself: listed, and no read gets through it (ELOOP).
    symlinkSync(`${log}.1`, `${log}.1`);
    let caught: unknown;
    try {
      readAuditLog(log);
    } catch (error) {
      caught = error;
    }
    expect(isBouncerError(caught)).toBe(true);
    expect((caught as { code: string }).code).toBe("AUDIT_UNREADABLE");
    expect((caught as Error).message).toStartWith(`Cannot read audit log "${log}.1": `);
  });

  test.skipIf(process.platform === "win32")(
    "readAuditLog() refuses a FIFO at once instead of waiting on it",
    () => {
      expect(spawnSync("mkfifo", [log]).status).toBe(0);
      expect(() => readAuditLog(log)).toThrow(`Cannot read audit log "${log}": it is not a regular file`);
    },
  );

  test.skipIf(process.platform === "win32")(
    "readAuditLog() skips a rotated file that is a FIFO or a folder, says so, and reads the others",
    () => {
      writeFileSync(`${log}.3`, `${line(1)}\n`);
      mkdirSync(`${log}.2`);
      expect(spawnSync("mkfifo", [`${log}.1`]).status).toBe(0);
      writeFileSync(log, `${line(2)}\n`);
      const read = readAuditLog(log);
      expect(read.records.map((record) => record.seq)).toEqual([1, 2]);
      expect(read.issues).toEqual([
        { file: `${log}.2`, line: 0, message: "skipped: it is a folder, not a file (EISDIR)" },
        { file: `${log}.1`, line: 0, message: "skipped: it is not a regular file (a FIFO)" },
      ]);
      expect(read.files).toEqual([`${log}.3`, log]);
    },
  );
});

describe("parseAuditText()", () => {
  test("parseAuditText() accepts a parsable last line without its newline and CRLF endings", () => {
    const { records, issues } = parseAuditText(`${line(1)}\r\n${line(2)}`, "f");
    expect(records.map((record) => record.seq)).toEqual([1, 2]);
    expect(issues).toEqual([]);
  });

  test("parseAuditText() reports a torn last line", () => {
    const { records, issues } = parseAuditText(`${line(1)}\n${line(2).slice(0, 20)}`, "f");
    expect(records).toHaveLength(1);
    expect(issues).toEqual([{ file: "f", line: 2, message: "not JSON" }]);
  });
});
