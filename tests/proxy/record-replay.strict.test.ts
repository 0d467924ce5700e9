/**
 * A session recorded with `bouncer run --record` in front of the fixture mailbox, then edited by hand
 * as an attacker or a careless editor might: `bouncer replay` reads each line as strictly as the live
 * proxy reads a `tools/call` (SPEC §3.1 "Decide on exactly what is forwarded", §5.9). Arguments that
 * repeat a key or nest too deep are denied as `ambiguous_json`, as live; a repeated event key makes the
 * line malformed (exit 2 with its line number).
 */

import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RecordedMailbox, recordMailbox, replayJson } from "./support/record-mailbox.ts";

const E2E_TIMEOUT = 120_000;
const POLICY = `
send_email:
  exfiltrating: true
  sink_params: [to]
  trusted_destinations: [boss@corp.example]
`;

/** The recorded session with its send's arguments text replaced, written to a new file. */
function edited(run: RecordedMailbox, edit: (line: string) => string): string {
  const lines = run.session
    .split("\n")
    .map((line) => (line.includes('"tool":"send_email"') ? edit(line) : line));
  const file = join(mkdtempSync(join(tmpdir(), "bouncer-edited-")), "session.jsonl");
  writeFileSync(file, lines.join("\n"));
  return file;
}

describe("bouncer replay of an edited recording (strict JSON)", () => {
  test(
    "bouncer replay denies arguments that repeat a key or nest too deep, and refuses a repeated event key",
    async () => {
      const run = await recordMailbox(POLICY, [{ to: "boss@corp.example" }]);
      expect(run.live).toEqual(["forwarded"]);
      const args = '"arguments":{"to":"boss@corp.example","subject":"Invoice","body":"Attached."}';
      expect(run.session).toContain(args);
      const deep = `${"[".repeat(1200)}${"]".repeat(1200)}`;
      const cases: [string, string][] = [
        [`"arguments":{"to":"evil@x.example","to":"boss@corp.example"}`, "repeats an object key"],
        [`"arguments":{"to":"boss@corp.example","pad":${deep}}`, "nests deeper than 1000 levels"],
        [`"arguments":{"to":"boss@corp.example","n":9007199254740993}`, "beyond ±2^53"],
      ];
      for (const [replacement, reason] of cases) {
        const replay = replayJson(
          edited(run, (line) => line.replace(args, replacement)),
          run.policyFile,
        );
        expect(replay.stderr).toBe("");
        expect(replay.rows.map((row) => [row.tool, row.verdict, row.outcome])).toEqual([
          ["read_inbox", "allow", "forwarded"],
          ["send_email", "deny", "blocked"],
        ]);
        expect(replay.rows[1]?.reason).toContain(reason);
      }
      const twice = replayJson(
        edited(run, (line) => line.replace('{"event":"call"', '{"event":"tools","event":"call"')),
        run.policyFile,
      );
      expect(twice.status).toBe(2);
      expect(twice.stderr).toContain('line 4: repeats the key "event"');
    },
    E2E_TIMEOUT,
  );
});
