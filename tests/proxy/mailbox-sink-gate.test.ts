/**
 * The sink gate through the REAL proxy (issue 3, "Must show"): the SDK's real `Client` over real stdio,
 * `bun src/cli.ts run`, and the fixture mailbox server. Every assertion about what went out reads the
 * mailbox's sent file — what the upstream really did — not only what the client was told.
 *
 * The proxy runs with `--human-min-ms 0` here: the scripted client answers at machine speed, and this
 * file tests the gate, the ask and its memory, not the automatic-answer check (tests/proxy/asker.test.ts
 * covers that with an injected clock; `npm run demo` answers after a person's reading time with the
 * default check on).
 */

import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { BUN, bouncerCommand, type Connected, connect, deadline, ROOT } from "./support/harness.ts";

const MAILBOX = join(ROOT, "tests/fixtures/servers/mailbox.ts");
const POLICY = `
send_email:
  exfiltrating: true
  sink_params: [to]
  trusted_destinations: [boss@corp.example]
`;

/** How the scripted person answers one elicitation. */
type Answer = (signal: AbortSignal) => Promise<ElicitResult>;

interface Mailbox {
  readonly client: Client;
  /** The messages of the elicitations the client received, in order. */
  readonly asked: string[];
  /** Answers for the next elicitations, in order (none left: decline). */
  readonly answers: Answer[];
  /** Where every mail that really went out is, one per line. */
  sent(): string[];
  /** Calls send_email. */
  send(to: string, options?: { signal?: AbortSignal }): Promise<{ blocked: boolean; text: string }>;
}

const open: Connected[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const connected of open.splice(0)) await connected.client.close().catch(() => {});
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function mailbox(options: { elicitation?: boolean } = {}): Promise<Mailbox> {
  const work = mkdtempSync(join(tmpdir(), "bouncer-mailbox-"));
  dirs.push(work);
  const policy = join(work, "bouncer.yaml");
  const sentFile = join(work, "sent.jsonl");
  writeFileSync(policy, POLICY);
  const asked: string[] = [];
  const answers: Answer[] = [];
  const runArgs = ["--upstream-name", "mail", "--policy", policy, "--human-min-ms", "0", "--", BUN, MAILBOX];
  const { command, args } = bouncerCommand("cli", runArgs);
  const connected = await connect(command, {
    args,
    env: { BOUNCER_HOME: join(work, "home"), MAILBOX_SENT_FILE: sentFile },
    capabilities: options.elicitation === false ? {} : { elicitation: {} },
    setup: (client) => {
      if (options.elicitation === false) return;
      client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
        asked.push(String(request.params.message));
        const next = answers.shift();
        return next === undefined ? Promise.resolve({ action: "decline" }) : next(extra.signal);
      });
    },
  });
  open.push(connected);
  const { client } = connected;
  await deadline(client.callTool({ name: "read_inbox", arguments: {} }), 20_000, "read_inbox");
  return {
    client,
    asked,
    answers,
    sent: () =>
      existsSync(sentFile)
        ? readFileSync(sentFile, "utf8")
            .split("\n")
            .filter((line) => line !== "")
            .map((line) => (JSON.parse(line) as { to: string }).to)
        : [],
    async send(to, sendOptions = {}) {
      const result = await deadline(
        client.callTool(
          { name: "send_email", arguments: { to, subject: "Invoice", body: "Attached." } },
          undefined,
          sendOptions.signal === undefined ? {} : { signal: sendOptions.signal },
        ),
        20_000,
        `send_email to ${to}`,
      );
      const content = (result.content ?? []) as { type: string; text?: string }[];
      const text = content.map((block) => block.text ?? "").join("\n");
      return { blocked: result.isError === true && text.startsWith("[bouncer blocked]"), text };
    },
  };
}

const accept =
  (content?: ElicitResult["content"]): Answer =>
  () =>
    Promise.resolve(content === undefined ? { action: "accept" } : { action: "accept", content });
const decline: Answer = () => Promise.resolve({ action: "decline" });

describe("bouncer run with the mailbox (sink gate through the real proxy)", () => {
  test("bouncer run blocks send_email to the address planted in the email body and sends nothing", async () => {
    const box = await mailbox();
    const result = await box.send("attacker@evil.example");
    expect(result.blocked).toBe(true);
    expect(result.text).toContain("free text of read_inbox's output");
    expect(box.asked).toEqual([]);
    expect(box.sent()).toEqual([]);
  });

  test("bouncer run forwards send_email to a trusted address without asking", async () => {
    const box = await mailbox();
    expect((await box.send("boss@corp.example")).blocked).toBe(false);
    expect(box.asked).toEqual([]);
    expect(box.sent()).toEqual(["boss@corp.example"]);
  });

  test("bouncer run asks about an unproven address by elicitation and forwards it on accept", async () => {
    const box = await mailbox();
    box.answers.push(accept({ remember: true }));
    expect((await box.send("new.partner@other.example")).blocked).toBe(false);
    expect(box.asked).toHaveLength(1);
    expect(box.asked[0]).toStartWith("[bouncer] ");
    expect(box.asked[0]).toContain('"new.partner@other.example"');
    expect(box.sent()).toEqual(["new.partner@other.example"]);
  });

  test("bouncer run does not ask twice about a remembered approval", async () => {
    const box = await mailbox();
    box.answers.push(accept({ remember: true }));
    await box.send("bob@partner.example");
    expect((await box.send("bob@partner.example")).blocked).toBe(false);
    expect(box.asked).toHaveLength(1);
    expect(box.sent()).toEqual(["bob@partner.example", "bob@partner.example"]);
  });

  test("bouncer run asks again after an accept without content (not remembered)", async () => {
    const box = await mailbox();
    box.answers.push(accept(), accept());
    await box.send("bob@partner.example");
    await box.send("bob@partner.example");
    expect(box.asked).toHaveLength(2);
    expect(box.sent()).toEqual(["bob@partner.example", "bob@partner.example"]);
  });

  test("bouncer run blocks a declined address and remembers the decline without asking again", async () => {
    const box = await mailbox();
    box.answers.push(decline);
    const first = await box.send("bob@partner.example");
    expect(first.blocked).toBe(true);
    expect(first.text).toContain("declined");
    const second = await box.send("bob@partner.example");
    expect(second.blocked).toBe(true);
    expect(second.text).toContain("declined earlier in this session");
    expect(box.asked).toHaveLength(1);
    expect(box.sent()).toEqual([]);
  });

  test("bouncer run blocks an ask when the client has no elicitation capability", async () => {
    const box = await mailbox({ elicitation: false });
    const result = await box.send("bob@partner.example");
    expect(result.blocked).toBe(true);
    expect(result.text).toContain("did not declare elicitation support");
    expect(result.text).toContain("trusted_destinations");
    expect(box.sent()).toEqual([]);
  });

  test("bouncer run withdraws the elicitation when the client cancels the call, and forwards nothing", async () => {
    const box = await mailbox();
    const call = new AbortController();
    let withdrawn!: () => void;
    const elicitationCancelled = new Promise<void>((resolve) => {
      withdrawn = resolve;
    });
    box.answers.push(
      (signal) =>
        new Promise<ElicitResult>((resolve) => {
          signal.addEventListener("abort", () => {
            withdrawn();
            resolve({ action: "accept", content: { remember: true } });
          });
          call.abort("the user stopped the agent");
        }),
    );
    await expect(box.send("bob@partner.example", { signal: call.signal })).rejects.toThrow();
    await deadline(elicitationCancelled, 20_000, "the elicitation's notifications/cancelled");
    expect((await box.send("boss@corp.example")).blocked).toBe(false);
    expect(box.asked).toHaveLength(1);
    expect(box.sent()).toEqual(["boss@corp.example"]);
  });
});
