/**
 * Framing field cases through the real `bouncer run` process and a fixture upstream that misbehaves on
 * purpose (tests/fixtures/field-cases-framing.md: F01, F03, F05; SPEC §3.3 "Framing"). Tool calls go
 * through the pass-through entry (the same `runProxy`), everything else through `src/cli.ts`.
 */

import { describe, expect, test } from "bun:test";
import {
  BUN,
  bouncerCommand,
  cleanedAfterEach,
  type Entry,
  FRAMING_UPSTREAM,
  initializeRequest,
  type LineSession,
  startLines,
  tempHome,
  waitUntil,
} from "./support/harness.ts";

/** Hang guard per test (bunfig has no effect on per-test timeouts here). */
const E2E_TIMEOUT = 120_000;

const home = tempHome();
const { sessions } = cleanedAfterEach(E2E_TIMEOUT);

function start(entry: Entry, upstreamFlags: readonly string[] = []): LineSession {
  const { command, args } = bouncerCommand(entry, [
    "--upstream-name",
    "fx",
    "--",
    BUN,
    FRAMING_UPSTREAM,
    ...upstreamFlags,
  ]);
  const session = startLines(command, args, { BOUNCER_HOME: home });
  sessions.push(session);
  return session;
}

async function handshake(session: LineSession): Promise<void> {
  session.send(initializeRequest(0));
  await session.next((m) => m.id === 0, "initialize answered");
  session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

const call = (
  id: number,
  name: string,
  args: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
): unknown => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
});

describe("bouncer run framing (field cases)", () => {
  test(
    "bouncer run relays a 5 MiB answer written in three chunks with a character split between them (F01)",
    async () => {
      const session = start("pass");
      await handshake(session);
      session.send(call(3, "big"));
      const answer = (await session.next((m) => m.id === 3, "the 5 MiB answer", 60_000)) as {
        result: { content: { text: string }[] };
      };
      const text = answer.result.content[0]?.text ?? "";
      expect(text.length).toBe(5 * 1024 * 1024 + 1);
      expect(text.endsWith("aé")).toBe(true);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run delivers two messages of one upstream write, in order (F01)",
    async () => {
      const session = start("pass");
      await handshake(session);
      session.send(call(4, "pair", {}, { progressToken: "p-4" }));
      await session.next((m) => m.id === 4, "the pair answer");
      const tail = session.lines.slice(-2).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(tail[0]).toEqual({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p-4", progress: 1, total: 1 },
      });
      expect(tail[1]).toMatchObject({ id: 4, result: { content: [{ text: "pair done" }] } });
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run delivers two messages the upstream glued on one line, in order, and says so on stderr",
    async () => {
      const session = start("cli");
      await handshake(session);
      session.send(call(6, "glued", {}, { progressToken: "p-6" }));
      await session.next((m) => m.id === 6, "the glued answer");
      const tail = session.lines.slice(-2).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(tail[0]).toEqual({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p-6", progress: 1, total: 1 },
      });
      expect(tail[1]).toMatchObject({ id: 6, result: { content: [{ text: "glued done" }] } });
      await waitUntil(
        () => session.stderr().includes("several messages on one line"),
        10_000,
        "the glued line logged",
      );
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run keeps banners, glued prefixes, a BOM and box drawing off its stdout (F03), and escapes what it quotes on stderr",
    async () => {
      const session = start("cli", ["--banner"]);
      await handshake(session);
      session.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      const list = (await session.next((m) => m.id === 1, "tools/list answered")) as {
        result: { tools: unknown[] };
      };
      expect(list.result.tools.length).toBeGreaterThan(0);
      await session.next((m) => m.method === "notifications/tools/list_changed", "the salvaged list_changed");
      for (const line of session.lines) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe("2.0");
      await waitUntil(
        () => session.stderr().includes("box drawing"),
        10_000,
        "the box drawing line reported as noise",
      );
      expect(session.stderr()).toContain("Azure DevOps MCP Server version");
      await waitUntil(() => session.stderr().includes("hostile"), 10_000, "the hostile line reported");
      expect(session.stderr()).toContain("Status \\u{202e}dlrow\\u{202c} \\u{85} hostile");
      expect(session.stderr()).not.toMatch(/[\u202e\u0085]/);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run accepts CRLF line ends and blank lines from the upstream and the client",
    async () => {
      const session = start("cli", ["--crlf", "--blank-lines"]);
      session.child.stdin?.write(`\uFEFF${JSON.stringify(initializeRequest(0))}\r\n\r\n`);
      await session.next((m) => m.id === 0, "initialize answered");
      session.child.stdin?.write(
        `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\r\n`,
      );
      session.child.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", id: "L", method: "tools/list" })}\r\n`);
      await session.next((m) => m.id === "L", "tools/list answered");
      expect(session.lines.every((line) => !line.endsWith("\r") && line !== "")).toBe(true);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run drains 256 KiB of upstream stderr without stalling the answer (F05)",
    async () => {
      const session = start("pass");
      await handshake(session);
      session.send(call(5, "spam"));
      await session.next((m) => m.id === 5, "the answer after the stderr burst");
      expect(session.stderr()).toContain("[upstream:fx] xxxx");
      expect(session.stderr()).toContain("[upstream:fx] spam line");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run answers an over-64 MiB upstream line with an error for its request and lives on",
    async () => {
      const session = start("pass");
      await handshake(session);
      session.send(call(6, "huge"));
      const failed = await session.next((m) => m.id === 6, "the oversize error", 120_000);
      expect(failed).toMatchObject({ error: { code: -32000 } });
      expect(JSON.stringify(failed)).toContain("too large");
      session.send(call(7, "echo", { still: "alive" }));
      expect(await session.next((m) => m.id === 7, "a later call")).toMatchObject({
        result: { content: [{ text: '{"still":"alive"}' }] },
      });
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run forwards a call as the re-serialisation of its parsed arguments, never the original bytes",
    async () => {
      const session = start("pass");
      await handshake(session);
      session.send(
        '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"to":"a@b.example","to":"evil@x.example","n":1.50}}}',
      );
      const answer = (await session.next((m) => m.id === 8, "the echo")) as {
        result: { content: { text: string }[] };
      };
      expect(answer.result.content[0]?.text).toBe('{"to":"evil@x.example","n":1.5}');
    },
    E2E_TIMEOUT,
  );
});
