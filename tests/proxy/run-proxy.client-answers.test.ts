/**
 * The client's answers to Bouncer's own elicitation, through the real `bouncer run` (src/cli.ts),
 * driven line by line over real stdio in front of the fixture mailbox, with the mailbox's sent file
 * as the witness of what really went out (SPEC §3.1 ids, §3.3 over-long lines, §3.4 asks); and its
 * answer to an upstream's `roots/list` given while the gate is still being built (SPEC §2.4).
 */

import { describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  BUN,
  bouncerCommand,
  cleanedAfterEach,
  initializeRequest,
  type LineSession,
  ROOT,
  startLines,
} from "./support/harness.ts";

/** Hang guard per test (bunfig has no effect on per-test timeouts here). */
const E2E_TIMEOUT = 120_000;
const MAILBOX = join(ROOT, "tests/fixtures/servers/mailbox.ts");

const { sessions, dirs } = cleanedAfterEach(E2E_TIMEOUT);

/** Starts `bouncer run` in front of the mailbox; returns the session and what was really sent. */
async function mailbox(): Promise<{ session: LineSession; sent: () => string[] }> {
  const work = mkdtempSync(join(tmpdir(), "bouncer-answers-"));
  dirs.push(work);
  const policy = join(work, "p.yaml");
  writeFileSync(policy, "send_email:\n  exfiltrating: true\n  sink_params: [to]\n");
  const sentFile = join(work, "sent.jsonl");
  const runArgs = ["--upstream-name", "mail", "--policy", policy, "--human-min-ms", "0", "--", BUN, MAILBOX];
  const { command, args } = bouncerCommand("cli", runArgs);
  const session = startLines(command, args, {
    BOUNCER_HOME: join(work, "home"),
    MAILBOX_SENT_FILE: sentFile,
  });
  sessions.push(session);
  session.send(initializeRequest(0, { elicitation: {} }));
  await session.next((m) => m.id === 0, "initialize answered");
  session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const sent = (): string[] =>
    existsSync(sentFile)
      ? readFileSync(sentFile, "utf8")
          .split("\n")
          .filter((line) => line !== "")
      : [];
  return { session, sent };
}

const sendEmail = (id: number): unknown => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "send_email", arguments: { to: "new@other.example", subject: "s", body: "b" } },
});

describe("bouncer run and the client's answers to its asks", () => {
  test(
    "bouncer run settles an ask answered with a line over 64 MiB as not approved, answers the client's own id only once, and counts no later accept",
    async () => {
      const { session, sent } = await mailbox();
      session.send(sendEmail(1));
      const ask = await session.next((m) => m.method === "elicitation/create", "the ask");
      expect(ask.id).toBe(1);
      const pad = "z".repeat(65 * 1024 * 1024);
      session.send(`{"jsonrpc":"2.0","id":1,"result":{"action":"decline","pad":"${pad}"}}`);
      const answer = (await session.next(
        (m) => m.id === 1 && m.method === undefined,
        "the call's answer",
        90_000,
      )) as {
        result?: { isError?: boolean; content: { text: string }[] };
      };
      expect(answer.result?.isError).toBe(true);
      expect(answer.result?.content[0]?.text).toContain("too large");
      session.send({ jsonrpc: "2.0", id: 1, result: { action: "accept", content: { remember: true } } });
      session.send({ jsonrpc: "2.0", id: 2, method: "ping" });
      await session.next((m) => m.id === 2, "a ping after the late accept");
      const forId1 = session.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(forId1.filter((m) => m.id === 1 && m.method === undefined)).toHaveLength(1);
      expect(sent()).toEqual([]);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run reads an answer carrying both result (accept) and error as no approval, and sends nothing",
    async () => {
      const { session, sent } = await mailbox();
      session.send(sendEmail(7));
      const ask = await session.next((m) => m.method === "elicitation/create", "the ask");
      session.send(
        `{"jsonrpc":"2.0","id":${JSON.stringify(ask.id)},"error":{"code":-1,"message":"User rejected"},"result":{"action":"accept"}}`,
      );
      const answer = (await session.next((m) => m.id === 7, "the call's answer")) as {
        result?: { isError?: boolean; content: { text: string }[] };
      };
      expect(answer.result?.isError).toBe(true);
      expect(answer.result?.content[0]?.text).toContain("both result and error");
      expect(sent()).toEqual([]);
    },
    E2E_TIMEOUT,
  );
});

describe("bouncer run and the client's roots", () => {
  test(
    "bouncer run decides a call with the roots the client gave while the gate was being built, and denies a relative write they take outside",
    async () => {
      const work = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-roots-")));
      dirs.push(work);
      const root = join(work, "root");
      mkdirSync(root);
      const policy = join(work, "p.yaml");
      // Inside under the working directory (the repository), outside under the root.
      writeFileSync(policy, 'write_file:\n  write_params: [path]\n  allowed_path_prefixes: ["."]\n');
      const upstream = join(ROOT, "tests/fixtures/servers/roots-first-upstream.ts");
      const runArgs = ["--upstream-name", "rooted", "--policy", policy, "--", BUN, upstream];
      const { command, args } = bouncerCommand("cli", runArgs);
      const session = startLines(command, args, { BOUNCER_HOME: join(work, "home") });
      sessions.push(session);
      const asked = await session.next((m) => m.method === "roots/list", "the upstream's roots/list");
      // The initialize and the answer in one write: the answer reaches Bouncer before the gate
      // starts loading (it loads once the initialize has been relayed), so the gate gets it late.
      const rootsAnswer = {
        jsonrpc: "2.0",
        id: asked.id,
        result: { roots: [{ uri: pathToFileURL(root).href }] },
      };
      session.send(`${JSON.stringify(initializeRequest(0, { roots: {} }))}\n${JSON.stringify(rootsAnswer)}`);
      await session.next((m) => m.id === 0, "initialize answered");
      session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      session.send({
        jsonrpc: "2.0",
        id: "w1",
        method: "tools/call",
        params: { name: "write_file", arguments: { path: "rel.txt", content: "x" } },
      });
      const answer = (await session.next((m) => m.id === "w1", "the call's answer")) as {
        result?: { isError?: boolean; content: { text: string }[] };
      };
      expect(answer.result?.isError).toBe(true);
      expect(answer.result?.content[0]?.text).toContain("the client gave the upstream");
      expect(readdirSync(root)).toEqual([]);
      expect(existsSync(join(ROOT, "rel.txt"))).toBe(false);
    },
    E2E_TIMEOUT,
  );
});
