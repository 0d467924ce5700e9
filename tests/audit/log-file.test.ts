import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAuditLog } from "../../src/audit/audit-reader.ts";
import { openLogFile } from "../../src/audit/log-file.ts";

let dir = "";
let file = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bouncer-log-file-"));
  file = join(dir, "audit.jsonl");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A record line of the audit log. */
function line(reason: string): string {
  return `${JSON.stringify({ ts: "2026-01-01T00:00:00.000Z", event: "noise", session: "s", server: "m", reason })}\n`;
}

/**
 * A write that behaves like a full disk for its `short`-th call (it writes the first 10 bytes) and
 * the `full`-th (nothing written: ENOSPC), and writes whole otherwise.
 */
function fullDisk(plan: { readonly short: number; readonly full?: number }) {
  let calls = 0;
  return (fd: number, bytes: Uint8Array): number => {
    calls += 1;
    if (calls === plan.short) return writeSync(fd, bytes.subarray(0, 10));
    if (calls === plan.full)
      throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    return writeSync(fd, bytes);
  };
}

test("openLogFile() starts the line after a short write with a newline, so the next record is read", () => {
  const log = openLogFile(file, { checkPathMs: 0, write: fullDisk({ short: 2 }) });
  log.append(line("first"), 1);
  expect(() => log.append(line("cut short"), 2)).toThrow("short write of 10");
  log.append(line("after space was freed"), 3);
  log.close();
  const { records, issues } = readAuditLog(file);
  expect(records.map((record) => record.reason)).toEqual(["first", "after space was freed"]);
  expect(issues).toEqual([{ file, line: 2, message: "not JSON" }]);
});

test("openLogFile() keeps the newline due after a short write across a write that fails whole", () => {
  const log = openLogFile(file, { checkPathMs: 0, write: fullDisk({ short: 1, full: 2 }) });
  expect(() => log.append(line("cut short"), 1)).toThrow("short write");
  expect(() => log.append(line("disk still full"), 2)).toThrow("ENOSPC");
  log.append(line("after space was freed"), 3);
  log.append(line("and the next"), 4);
  log.close();
  expect(readAuditLog(file).records.map((record) => record.reason)).toEqual([
    "after space was freed",
    "and the next",
  ]);
  expect(readFileSync(file, "utf8").split("\n").length).toBe(4);
});
