/**
 * SessionAudit's session file when a write to it fails (a full disk): the recording stops there, so
 * the file is this run's session up to the failure and never has a gap (SPEC §3.6, §5.9). A real
 * session file in a temp folder; the write is the real one, failing as a full disk does for the
 * events the test chooses.
 */

import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAuditWriter, createSessionRecorder } from "../../src/audit/index.ts";
import { SessionAudit } from "../../src/proxy/session-audit.ts";

describe("SessionAudit", () => {
  test("recordCall() stops recording at the first failed write, says so once, and writes nothing after it", () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-sa-"));
    const file = join(dir, "session.jsonl");
    let writes = 0;
    // The third write finds the disk full after 10 bytes; later ones would have room again.
    const recorder = createSessionRecorder(file, {
      run: "r",
      write: (fd, bytes) => {
        writes += 1;
        if (writes === 3) return writeSync(fd, bytes.subarray(0, 10));
        return writeSync(fd, bytes);
      },
    });
    const logs: string[] = [];
    const audit = new SessionAudit({
      session: "s",
      server: "mail",
      writer: createAuditWriter(join(dir, "audit.jsonl")),
      recorder,
      mode: "enforce",
      log: (message) => void logs.push(message),
    });
    for (const seq of [1, 2, 3, 4, 5]) audit.recordCall({ tool: "read_inbox", arguments: {}, seq });
    recorder.close();
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines.slice(0, 2).map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual([1, 2]);
    expect(lines.slice(2)).toEqual(['{"event":"']);
    expect(audit.recording).toBe(false);
    expect(logs).toEqual([
      `Cannot write session file "${file}": short write of 10 of 86 bytes: recording stopped, the file holds this run's events up to the one that failed, none after it`,
    ]);
  });
});
