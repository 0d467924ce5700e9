/**
 * Records a real session (`bouncer run --record` over real stdio in front of the fixture mailbox
 * server, driven by the SDK's real `Client` answering elicitations as scripted) and replays it with
 * `bouncer replay --json`, for the tests that check replay reproduces the live decisions (SPEC §3.6,
 * §5.9). The proxy runs with `--human-min-ms 0`: the scripted client answers at machine speed.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { BUN, bouncerCommand, connect, deadline, ROOT } from "./harness.ts";

/** The fixture mailbox server. */
export const MAILBOX = join(ROOT, "tests/fixtures/servers/mailbox.ts");

/** One `send_email` of the recorded session and how its ask (if it asks) is answered. */
export interface MailCall {
  readonly to: string;
  /** The client's answer to the elicitation this call puts (absent: `decline`). */
  readonly answer?: ElicitResult;
}

/** What the live session did and what its replay says. */
export interface RecordedMailbox {
  /** The session file's text. */
  readonly session: string;
  /** Per call (in order): forwarded or blocked, as the client saw it. */
  readonly live: readonly ("forwarded" | "blocked")[];
  /** Per call: the first `decision` record's [seq, verdict] in the audit log. */
  readonly audited: readonly (readonly [number, string])[];
  /** Per replayed call: [seq, verdict, outcome]. */
  readonly replayed: readonly (readonly [number, string, string])[];
  /** The replay's stderr. */
  readonly replayStderr: string;
  /** The policy file the session ran and replayed under. */
  readonly policyFile: string;
}

/**
 * Records the calls (a `read_inbox` first, then each `send_email` one after the other) and replays the
 * session under the same policy.
 * @param policy - The policy text (one file).
 * @param calls - The sends and the answers to their asks.
 * @returns The live outcomes, the audited and the replayed verdicts.
 */
export async function recordMailbox(policy: string, calls: readonly MailCall[]): Promise<RecordedMailbox> {
  const work = mkdtempSync(join(tmpdir(), "bouncer-recmail-"));
  const home = join(work, "home");
  const policyFile = join(work, "bouncer.yaml");
  const sessionFile = join(work, "session.jsonl");
  writeFileSync(policyFile, policy);
  const answers: ElicitResult[] = [];
  const runArgs = ["--upstream-name", "mail", "--policy", policyFile, "--record", sessionFile];
  const { command, args } = bouncerCommand("cli", [...runArgs, "--human-min-ms", "0", "--", BUN, MAILBOX]);
  const connected = await connect(command, {
    args,
    env: { BOUNCER_HOME: home, MAILBOX_SENT_FILE: join(work, "sent.jsonl") },
    capabilities: { elicitation: {} },
    setup: (client) => {
      client.setRequestHandler(ElicitRequestSchema, () =>
        Promise.resolve(answers.shift() ?? { action: "decline" }),
      );
    },
  });
  const live: ("forwarded" | "blocked")[] = [];
  try {
    await deadline(connected.client.callTool({ name: "read_inbox", arguments: {} }), 20_000, "read_inbox");
    for (const call of calls) {
      answers.splice(0, answers.length, ...(call.answer === undefined ? [] : [call.answer]));
      const result = await deadline(
        connected.client.callTool({
          name: "send_email",
          arguments: { to: call.to, subject: "Invoice", body: "Attached." },
        }),
        20_000,
        `send_email to ${call.to}`,
      );
      const content = (result.content ?? []) as { type: string; text?: string }[];
      const blocked = result.isError === true && (content[0]?.text ?? "").startsWith("[bouncer blocked]");
      live.push(blocked ? "blocked" : "forwarded");
    }
  } finally {
    await connected.client.close();
  }
  const replay = replayJson(sessionFile, policyFile, { BOUNCER_HOME: home });
  const seen = new Set<number>();
  const audited: [number, string][] = [];
  const auditLog = join(home, "audit.jsonl");
  for (const line of existsSync(auditLog) ? readFileSync(auditLog, "utf8").split("\n") : []) {
    if (line === "") continue;
    const record = JSON.parse(line) as { event: string; seq?: number; verdict?: string };
    if (record.event !== "decision" || record.seq === undefined || seen.has(record.seq)) continue;
    seen.add(record.seq);
    audited.push([record.seq, record.verdict ?? ""]);
  }
  return {
    session: readFileSync(sessionFile, "utf8"),
    live,
    audited,
    replayed: replay.rows.map((row) => [row.seq, row.verdict, row.outcome] as const),
    replayStderr: replay.stderr,
    policyFile,
  };
}

/** One row of `bouncer replay --json`. */
export interface ReplayJsonRow {
  readonly seq: number;
  readonly tool: string;
  readonly verdict: string;
  readonly reason: string | null;
  readonly outcome: string;
}

/**
 * Runs `bouncer replay FILE --policy POLICY --json` as a subprocess.
 * @param sessionFile - The session file.
 * @param policyFile - The policy file.
 * @param env - Environment additions.
 * @returns The exit status, the call rows and stderr.
 */
export function replayJson(
  sessionFile: string,
  policyFile: string,
  env: Record<string, string> = {},
): { readonly status: number | null; readonly rows: readonly ReplayJsonRow[]; readonly stderr: string } {
  const replay = spawnSync(
    BUN,
    [join(ROOT, "src/cli.ts"), "replay", sessionFile, "--policy", policyFile, "--json"],
    {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, ...env },
    },
  );
  const rows = replay.stdout
    .split("\n")
    .filter((line) => line.startsWith('{"seq"'))
    .map((line) => JSON.parse(line) as ReplayJsonRow);
  return { status: replay.status, rows, stderr: replay.stderr };
}
