/**
 * `bouncer run` in front of the real `@modelcontextprotocol/server-everything` (stdio mode), compared
 * with a direct connection: resources, templates, prompts, completion and logging equal; progress with
 * the client's own token; a client cancel reaching the upstream; the upstream's own sampling,
 * elicitation and roots requests reaching the client with their answers going back; Bouncer's own
 * requests never mixed up with the upstream's (SPEC §3.1, F19, F20).
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import {
  bouncerCommand,
  type Connected,
  connect,
  type Entry,
  EVERYTHING_SERVER,
  tempHome,
  waitUntil,
} from "./support/harness.ts";

/** Hang guard per test (bunfig has no effect on per-test timeouts here). */
const E2E_TIMEOUT = 120_000;

const home = tempHome();
const clients: Connected[] = [];
const capabilities = { sampling: {}, elicitation: {}, roots: { listChanged: true } };
/** Elicitation requests the client saw: message and the id on the wire. */
const elicitations: { message: string; id: string | number }[] = [];

function handlers(client: Client): void {
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: "file:///tmp/bouncer-root", name: "root" }],
  }));
  client.setRequestHandler(CreateMessageRequestSchema, (request) => ({
    model: "test-model",
    role: "assistant",
    content: { type: "text", text: `sampled: ${JSON.stringify(request.params.messages[0]?.content)}` },
  }));
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    elicitations.push({ message: request.params.message, id: extra.requestId });
    if (request.params.message.startsWith("[bouncer]"))
      return { action: "accept", content: { remember: true } };
    return { action: "accept", content: { name: "Bob Tester", check: true, email: "bob@example.com" } };
  });
}

async function through(
  entry: Entry,
  options: { env?: Record<string, string>; upstream?: readonly string[] } = {},
): Promise<Connected> {
  const upstream = options.upstream ?? [EVERYTHING_SERVER, "stdio"];
  const { command, args } = bouncerCommand(entry, ["--upstream-name", "everything", "--", ...upstream]);
  const connected = await connect(command, {
    args,
    env: { BOUNCER_HOME: home, ...options.env },
    capabilities,
    setup: handlers,
  });
  clients.push(connected);
  return connected;
}

let direct: Connected;
let viaCli: Connected;
let viaPass: Connected;
beforeAll(async () => {
  [direct, viaCli, viaPass] = await Promise.all([
    connect(EVERYTHING_SERVER, { args: ["stdio"], capabilities, setup: handlers }),
    through("cli"),
    through("pass"),
  ]);
  clients.push(direct);
}, E2E_TIMEOUT);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.client.close()));
}, E2E_TIMEOUT);

describe("bouncer run with the real everything server: relayed unchanged", () => {
  test(
    "bouncer run passes the upstream's instructions, serverInfo and capabilities, adding tools.listChanged",
    () => {
      expect(viaCli.client.getInstructions()).toBe(direct.client.getInstructions());
      expect(viaCli.client.getServerVersion()).toEqual(direct.client.getServerVersion());
      expect(viaCli.client.getServerCapabilities()).toEqual(direct.client.getServerCapabilities());
    },
    E2E_TIMEOUT,
  );

  const equalCalls: [string, (client: Client) => Promise<unknown>][] = [
    ["tools/list", (c) => c.listTools()],
    ["resources/list", (c) => c.listResources()],
    ["resources/templates/list", (c) => c.listResourceTemplates()],
    ["resources/read", (c) => c.readResource({ uri: "demo://resource/static/document/architecture.md" })],
    ["prompts/list", (c) => c.listPrompts()],
    [
      "prompts/get",
      (c) => c.getPrompt({ name: "args-prompt", arguments: { city: "Paris", state: "Texas" } }),
    ],
    [
      "completion/complete",
      (c) =>
        c.complete({
          ref: { type: "ref/prompt", name: "completable-prompt" },
          argument: { name: "name", value: "" },
          context: { arguments: { department: "Engineering" } },
        }),
    ],
    ["logging/setLevel", (c) => c.setLoggingLevel("warning")],
    ["ping", (c) => c.ping()],
  ];
  test.each(equalCalls)(
    "bouncer run returns the same %s result as a direct connection",
    async (_name, run) => {
      expect(await run(viaCli.client)).toEqual(await run(direct.client));
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run relays an unknown prompt's error with its code and message",
    async () => {
      const failure = (c: Client): Promise<unknown> =>
        c.getPrompt({ name: "no-such-prompt" }).then(
          () => "no error",
          (e: Error) => e.message,
        );
      const message = await failure(viaCli.client);
      expect(message).toBe(await failure(direct.client));
      expect(message).toContain("no-such-prompt");
    },
    E2E_TIMEOUT,
  );
});

describe("bouncer run with the real everything server: requests in both directions", () => {
  test(
    "bouncer run delivers progress with the client's own token",
    async () => {
      // The SDK client only reports progress whose token is the one it put on its own request.
      const run = async (client: Client): Promise<{ progress: Progress[]; content: unknown }> => {
        const progress: Progress[] = [];
        const result = await client.callTool(
          { name: "trigger-long-running-operation", arguments: { duration: 0.4, steps: 4 } },
          undefined,
          { onprogress: (p) => void progress.push(p) },
        );
        return { progress, content: result.content };
      };
      const [viaBouncer, plain] = await Promise.all([run(viaPass.client), run(direct.client)]);
      // The server may send its last progress after the result (then nobody may deliver it): the first
      // steps must arrive, in order.
      expect(viaBouncer.progress.slice(0, 3)).toEqual([1, 2, 3].map((progress) => ({ progress, total: 4 })));
      expect(viaBouncer.content).toEqual(plain.content);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run relays the upstream's sampling request and returns the client's answer",
    async () => {
      const call = {
        name: "trigger-sampling-request",
        arguments: { prompt: "hello from the test", maxTokens: 5 },
      };
      const viaBouncer = await viaPass.client.callTool(call);
      expect(viaBouncer).toEqual(await direct.client.callTool(call));
      expect(JSON.stringify(viaBouncer)).toContain("sampled:");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run relays the upstream's elicitation request and returns the client's answer",
    async () => {
      const call = { name: "trigger-elicitation-request", arguments: {} };
      const viaBouncer = await viaPass.client.callTool(call);
      expect(viaBouncer).toEqual(await direct.client.callTool(call));
      expect(JSON.stringify(viaBouncer)).toContain("Bob Tester");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run relays the upstream's roots/list request",
    async () => {
      const viaBouncer = await viaPass.client.callTool({ name: "get-roots-list", arguments: {} });
      expect(JSON.stringify(viaBouncer)).toContain("file:///tmp/bouncer-root");
      expect(viaBouncer).toEqual(await direct.client.callTool({ name: "get-roots-list", arguments: {} }));
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run keeps Bouncer's own elicitation apart from the upstream's (ids never mix)",
    async () => {
      const proxied = await through("pass", { env: { BOUNCER_TEST_HOOKS: "ask-first" } });
      elicitations.length = 0;
      const result = await proxied.client.callTool({ name: "trigger-elicitation-request", arguments: {} });
      expect(JSON.stringify(result)).toContain("Bob Tester");
      expect(elicitations.map((e) => e.message.startsWith("[bouncer]"))).toEqual([true, false]);
      expect(new Set(elicitations.map((e) => e.id)).size).toBe(2);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run forwards a client cancel to the upstream with the upstream's id (F20)",
    async () => {
      const log = join(mkdtempSync(join(tmpdir(), "bouncer-tee-")), "upstream-stdin.jsonl");
      const proxied = await through("pass", {
        upstream: ["sh", "-c", `tee "$0" | exec "$1" stdio`, log, EVERYTHING_SERVER],
      });
      const abort = new AbortController();
      const pending = proxied.client.callTool(
        { name: "trigger-long-running-operation", arguments: { duration: 30, steps: 30 } },
        undefined,
        { signal: abort.signal, onprogress: () => abort.abort("user") },
      );
      await expect(pending).rejects.toThrow();
      const upstreamSaw = (): Record<string, unknown>[] =>
        existsSync(log)
          ? readFileSync(log, "utf8")
              .trim()
              .split("\n")
              .map((l) => JSON.parse(l) as Record<string, unknown>)
          : [];
      await waitUntil(
        () => upstreamSaw().some((m) => m.method === "notifications/cancelled"),
        10_000,
        "the cancel reached the upstream",
      );
      const call = upstreamSaw().find((m) => m.method === "tools/call");
      const cancel = upstreamSaw().find((m) => m.method === "notifications/cancelled");
      expect(cancel?.params).toMatchObject({ requestId: call?.id });
    },
    E2E_TIMEOUT,
  );
});
