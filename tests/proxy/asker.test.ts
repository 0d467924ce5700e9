import { describe, expect, test } from "bun:test";
import { type JsonObject, type JsonValue, PINS_FORGOTTEN_HINT } from "../../src/engine/index.ts";
import {
  type Asker,
  type AskerOptions,
  type AskOutcome,
  createAsker,
  WAITING_MESSAGE,
} from "../../src/proxy/asker.ts";
import type { AskDecision } from "../../src/proxy/asker-types.ts";
import {
  askFor,
  changedToolAsk,
  exampleGate,
  type FakeClient,
  FakeTime,
  fakeClient,
  flush,
} from "./support/ask-fakes.ts";

interface Rig {
  readonly asker: Asker;
  readonly client: FakeClient;
  readonly time: FakeTime;
  readonly logs: string[];
  readonly progress: [string | number, number, string][];
}

function rig(options: Partial<AskerOptions> = {}): Rig {
  const client = fakeClient();
  const time = new FakeTime();
  const logs: string[] = [];
  const progress: [string | number, number, string][] = [];
  const asker = createAsker({
    requestClient: client.requestClient,
    clientCapabilities: () => ({ form: true, protocolVersion: "2025-06-18" }),
    now: time.now,
    schedule: time.schedule,
    log: (line) => logs.push(line),
    sendProgress: (token, value, message) => progress.push([token, value, message]),
    ...options,
  });
  return { asker, client, time, logs, progress };
}

/** The worked example's sender question (seen as `sender`). */
async function senderAsk(to = "bob@partner.example"): Promise<AskDecision> {
  return askFor(await exampleGate(), "send_email", { to });
}

function ask(
  r: Rig,
  decision: AskDecision,
  extra: { signal?: AbortSignal; progressToken?: string | number } = {},
) {
  return r.asker.ask({
    server: "mail",
    tool: "send_email",
    decision,
    signal: extra.signal ?? new AbortController().signal,
    ...(extra.progressToken === undefined ? {} : { progressToken: extra.progressToken }),
  });
}

/** Answers the n-th elicitation after a person's reading time. */
async function answer(r: Rig, index: number, result: JsonValue, afterMs = 2000): Promise<void> {
  await flush();
  r.time.advance(afterMs);
  const sent = r.client.sent[index];
  if (sent === undefined) throw new Error(`No elicitation #${index} was sent`);
  sent.answer(result);
  await flush();
}

function schema(r: Rig, index = 0): JsonObject {
  return r.client.sent[index]?.params.requestedSchema as JsonObject;
}

describe("createAsker() elicitation", () => {
  test("ask() sends exactly one form elicitation per call, starting with the [bouncer] marker", async () => {
    const r = rig();
    const outcome = ask(r, await senderAsk());
    await answer(r, 0, { action: "accept", content: { remember: true } });
    expect(await outcome).toEqual({ kind: "approved", answer: { accepted: true, remember: true } });
    expect(r.client.sent).toHaveLength(1);
    const [sent] = r.client.sent;
    expect(sent?.method).toBe("elicitation/create");
    const message = String(sent?.params.message);
    expect(message.startsWith("[bouncer] ")).toBe(true);
    expect(message).toContain('tool "send_email" on server "mail"');
    expect(message).toContain('"bob@partner.example"');
    expect(message).toContain('seen as "sender" in read_inbox\'s output (call #1)');
  });

  test("ask() names every question of a call, numbered, in the one elicitation", async () => {
    const r = rig();
    const decision = await askFor(await exampleGate(), "send_email", {
      to: "bob@partner.example",
      cc: "new.partner@other.example",
    });
    expect(decision.questions).toHaveLength(2);
    const outcome = ask(r, decision);
    await answer(r, 0, { action: "decline" });
    await outcome;
    const message = String(r.client.sent[0]?.params.message);
    expect(message).toContain('1. Allow send_email to send to "bob@partner.example"');
    expect(message).toContain('2. Allow send_email to send to "new.partner@other.example"');
    expect(r.client.sent).toHaveLength(1);
  });

  test("ask() renders the server and tool as untrusted strings and escapes stray invisible characters", async () => {
    const r = rig();
    const decision = await senderAsk();
    const [question] = decision.questions;
    const tampered: AskDecision = {
      ...decision,
      questions: [{ ...question, message: `${question.message}\u202e\u0007` }],
    };
    const outcome = r.asker.ask({
      server: "ma\u200bil",
      tool: "send\u202eemail",
      decision: tampered,
      signal: new AbortController().signal,
    });
    await answer(r, 0, { action: "decline" });
    await outcome;
    const message = String(r.client.sent[0]?.params.message);
    expect(message).toContain('tool "send\\u{202e}email" on server "ma\\u{200b}il"');
    expect(message).toContain("\\u{202e}\\u{7}");
    for (const raw of ["\u200b", "\u202e", "\u0007"]) expect(message).not.toContain(raw);
  });

  test("ask() offers remember (boolean, default true) and no scope for an email destination", async () => {
    const r = rig();
    const outcome = ask(r, await senderAsk());
    await answer(r, 0, { action: "accept" });
    await outcome;
    expect(schema(r)).toEqual({
      type: "object",
      properties: {
        remember: expect.objectContaining({
          type: "boolean",
          title: "Remember for this session",
          default: true,
        }),
      },
    });
  });

  test.each([
    ["this URL", "url"],
    ["whole site", "site"],
  ] as const)("ask() reads scope %p of a URL destination as %p", async (choice, scope) => {
    const r = rig();
    const decision = await askFor(await exampleGate(), "post_webhook", {
      url: "https://hooks.example/in?id=7",
    });
    expect(decision.questions[0]?.origin).toBe("https://hooks.example");
    const outcome = ask(r, decision);
    await answer(r, 0, { action: "accept", content: { remember: true, scope: choice } });
    expect(await outcome).toEqual({ kind: "approved", answer: { accepted: true, remember: true, scope } });
    const properties = schema(r).properties as JsonObject;
    expect(properties.scope).toEqual(
      expect.objectContaining({ type: "string", enum: ["this URL", "whole site"], default: "this URL" }),
    );
    expect(String(r.client.sent[0]?.params.message)).toContain('"https://hooks.example"');
  });

  test.each<[string, JsonValue, AskOutcome["kind"], JsonValue]>([
    ["accept without content", { action: "accept" }, "approved", { accepted: true, remember: false }],
    [
      "accept with remember",
      { action: "accept", content: { remember: true } },
      "approved",
      { accepted: true, remember: true },
    ],
    [
      "accept without remember",
      { action: "accept", content: { remember: false } },
      "approved",
      { accepted: true, remember: false },
    ],
    [
      "accept with empty content",
      { action: "accept", content: {} },
      "approved",
      { accepted: true, remember: false },
    ],
    ["decline", { action: "decline" }, "declined", { accepted: false, remember: true }],
    [
      "decline not remembered",
      { action: "decline", content: { remember: false } },
      "declined",
      { accepted: false, remember: false },
    ],
    ["cancel", { action: "cancel" }, "declined", null],
    ["a wrong type", { action: "accept", content: { remember: "yes" } }, "declined", null],
    [
      "a field not in the form",
      { action: "accept", content: { remember: true, approve: "all" } },
      "declined",
      null,
    ],
    [
      "scope without a URL question",
      { action: "accept", content: { scope: "whole site" } },
      "declined",
      null,
    ],
    ["an unknown action", { action: "approve" }, "declined", null],
    ["a non-object", "accept", "declined", null],
  ])("ask() reads %s", async (_name, result, kind, expected) => {
    const r = rig();
    const outcome = ask(r, await senderAsk());
    await answer(r, 0, result);
    const got = await outcome;
    expect(got.kind).toBe(kind);
    expect(Object.hasOwn(got, "answer") ? (got as unknown as { answer: JsonValue }).answer : null).toEqual(
      expected,
    );
  });
});

describe("createAsker() queue", () => {
  test("ask() serialises asks: the second is sent only after the first is answered", async () => {
    const r = rig();
    const first = ask(r, await senderAsk());
    const second = ask(r, await senderAsk("new.partner@other.example"));
    await flush();
    expect(r.client.sent).toHaveLength(1);
    await answer(r, 0, { action: "accept" });
    expect((await first).kind).toBe("approved");
    expect(r.client.sent).toHaveLength(2);
    expect(String(r.client.sent[1]?.params.message)).toContain("new.partner@other.example");
    await answer(r, 1, { action: "decline" });
    expect((await second).kind).toBe("declined");
  });

  test("ask() merges identical pending questions into one elicitation whose answer both calls get", async () => {
    const r = rig();
    const decision = await senderAsk();
    const a = ask(r, decision);
    const b = ask(r, await senderAsk());
    await answer(r, 0, { action: "accept", content: { remember: true } });
    expect(await a).toEqual({ kind: "approved", answer: { accepted: true, remember: true } });
    expect(await b).toEqual({ kind: "approved", answer: { accepted: true, remember: true } });
    expect(r.client.sent).toHaveLength(1);
    expect(r.asker.asked).toBe(1);
  });

  test("ask() answers only the first merged call with an answer not to remember, and asks again for the others", async () => {
    const r = rig();
    const a = ask(r, await senderAsk());
    const b = ask(r, await senderAsk());
    const c = ask(r, await senderAsk());
    await answer(r, 0, { action: "accept", content: { remember: false } });
    expect(await a).toEqual({ kind: "approved", answer: { accepted: true, remember: false } });
    expect(r.client.sent).toHaveLength(2);
    await answer(r, 1, { action: "decline", content: { remember: false } });
    expect((await b).kind).toBe("declined");
    expect(r.client.sent).toHaveLength(3);
    await answer(r, 2, { action: "accept", content: { remember: true } });
    expect((await c).kind).toBe("approved");
    expect(r.asker.asked).toBe(3);
  });

  test("ask() answers only the first of identical merged action: ask calls with an approval, whatever the answer says", async () => {
    const r = rig();
    const question = {
      kind: "action" as const,
      message: "Run send_email?",
      key: { server: "mail", tool: "send_email", param: "", identity: 'action:{"to":"x"}' },
    };
    const reason = { code: "action_ask", message: "asks", source: "user:p.yaml" as const };
    const decision: AskDecision = {
      verdict: "ask",
      contract: "constraint",
      reasons: [reason],
      questions: [question],
    };
    const call = () =>
      r.asker.ask({
        server: "mail",
        tool: "send_email",
        decision,
        signal: new AbortController().signal,
        arguments: { to: "x" },
      });
    const a = call();
    const b = call();
    await answer(r, 0, { action: "accept", content: {} });
    expect((await a).kind).toBe("approved");
    expect(r.client.sent).toHaveLength(2);
    await answer(r, 1, { action: "decline" });
    expect((await b).kind).toBe("declined");
  });

  test("ask() never merges action asks whose arguments differ, and shows each call's arguments", async () => {
    const r = rig();
    const reason = {
      code: "action_ask",
      message: "delete_repo asks on every call",
      source: "user:p.yaml" as const,
    };
    const question = {
      kind: "action" as const,
      message: "Allow this call to delete_repo?",
      key: { server: "gh", tool: "delete_repo", param: "", identity: "action" },
    };
    const decision: AskDecision = {
      verdict: "ask",
      contract: "constraint",
      reasons: [reason],
      questions: [question],
    };
    const call = (repo: string) =>
      r.asker.ask({
        server: "gh",
        tool: "delete_repo",
        decision,
        signal: new AbortController().signal,
        arguments: { repo },
      });
    const a = call("scratch");
    const b = call("production");
    await answer(r, 0, { action: "accept", content: { remember: false } });
    expect((await a).kind).toBe("approved");
    await answer(r, 1, { action: "decline" });
    expect((await b).kind).toBe("declined");
    expect(r.client.sent).toHaveLength(2);
    expect(String(r.client.sent[0]?.params.message)).toContain(
      'This call\'s arguments:\n  repo: "scratch"\n',
    );
    expect(String(r.client.sent[1]?.params.message)).toContain("production");
  });

  test("ask() withdraws the elicitation when the client cancels the gated call", async () => {
    const r = rig();
    const call = new AbortController();
    const outcome = ask(r, await senderAsk(), { signal: call.signal });
    await flush();
    call.abort();
    expect((await outcome).kind).toBe("cancelled");
    expect(r.client.sent[0]?.signal.aborted).toBe(true);
  });

  test("ask() never sends a queued ask whose call was cancelled before its turn", async () => {
    const r = rig();
    const first = ask(r, await senderAsk());
    const call = new AbortController();
    const second = ask(r, await senderAsk("new.partner@other.example"), { signal: call.signal });
    await flush();
    call.abort();
    expect((await second).kind).toBe("cancelled");
    await answer(r, 0, { action: "accept" });
    expect((await first).kind).toBe("approved");
    expect(r.client.sent).toHaveLength(1);
  });

  test("ask() keeps a merged elicitation open while another call still waits on it", async () => {
    const r = rig();
    const call = new AbortController();
    const a = ask(r, await senderAsk(), { signal: call.signal });
    const b = ask(r, await senderAsk());
    await flush();
    call.abort();
    expect((await a).kind).toBe("cancelled");
    expect(r.client.sent[0]?.signal.aborted).toBe(false);
    await answer(r, 0, { action: "accept" });
    expect((await b).kind).toBe("approved");
  });

  test("ask() answers a call cancelled before asking as cancelled without an elicitation", async () => {
    const r = rig();
    const call = new AbortController();
    call.abort();
    expect((await ask(r, await senderAsk(), { signal: call.signal })).kind).toBe("cancelled");
    expect(r.client.sent).toHaveLength(0);
  });

  test("ask() names a timeout that is not whole seconds as it was given, not rounded", async () => {
    const r = rig({ askTimeoutMs: 1500 });
    const first = ask(r, await senderAsk());
    await flush();
    r.time.advance(1500);
    expect(((await first) as { reason: string }).reason).toContain("within 1.5 s (--ask-timeout)");
  });

  test("ask() times out after askTimeoutMs, withdraws the elicitation and sends the next ask", async () => {
    const r = rig({ askTimeoutMs: 60_000 });
    const first = ask(r, await senderAsk());
    const second = ask(r, await senderAsk("new.partner@other.example"));
    await flush();
    r.time.advance(59_999);
    await flush();
    expect(r.client.sent[0]?.signal.aborted).toBe(false);
    r.time.advance(1);
    const got = await first;
    expect(got.kind).toBe("timeout");
    expect((got as { reason: string }).reason).toContain("within 60 s (--ask-timeout)");
    expect(r.client.sent[0]?.signal.aborted).toBe(true);
    await flush();
    expect(r.client.sent).toHaveLength(2);
    await answer(r, 1, { action: "decline" });
    expect((await second).kind).toBe("declined");
  });

  test("ask() refuses every ask after maxAsks elicitations without sending one", async () => {
    const r = rig({ maxAsks: 2 });
    for (let i = 0; i < 2; i++) {
      const outcome = ask(r, await senderAsk(`p${i}@other.example`));
      await answer(r, i, { action: "decline" });
      await outcome;
    }
    const third = await ask(r, await senderAsk());
    expect(third.kind).toBe("limit");
    expect((third as { reason: string }).reason).toContain("--max-asks");
    expect(r.client.sent).toHaveLength(2);
    expect(r.asker.asked).toBe(2);
  });

  test("ask() counts the one question --max-asks 1 allows in the singular", async () => {
    const r = rig({ maxAsks: 1 });
    const outcome = ask(r, await senderAsk("p0@other.example"));
    await answer(r, 0, { action: "decline" });
    await outcome;
    const second = await ask(r, await senderAsk());
    expect((second as { reason: string }).reason).toContain("has already asked 1 question in this session");
  });
});

describe("createAsker() automatic answers and channels", () => {
  test("ask() treats a decline faster than humanMinMs as auto_declined and says how to trust the destination", async () => {
    const r = rig({ humanMinMs: 300 });
    const outcome = ask(r, await senderAsk());
    await answer(r, 0, { action: "decline" }, 299);
    const got = await outcome;
    expect(got.kind).toBe("auto_declined");
    const reason = (got as { reason: string }).reason;
    expect(reason).toContain("after 299 ms");
    expect(reason).toContain("may decline questions on its own");
    expect(reason).toContain('add the destination to trusted_destinations of "send_email" in your policy');
    expect(reason).not.toContain("bouncer approve");
  });

  test("ask() treats an accept faster than humanMinMs as auto_accepted", async () => {
    const r = rig({ humanMinMs: 300 });
    const outcome = ask(r, await senderAsk());
    await answer(r, 0, { action: "accept", content: { remember: true } }, 5);
    expect((await outcome).kind).toBe("auto_accepted");
  });

  test("ask() takes an answer at exactly humanMinMs as a person's", async () => {
    const r = rig({ humanMinMs: 300 });
    const outcome = ask(r, await senderAsk());
    await answer(r, 0, { action: "accept" }, 300);
    expect((await outcome).kind).toBe("approved");
  });

  test("ask() with humanMinMs 0 takes an instant accept as approved", async () => {
    const r = rig({ humanMinMs: 0 });
    const outcome = ask(r, await senderAsk());
    await answer(r, 0, { action: "accept" }, 0);
    expect((await outcome).kind).toBe("approved");
  });

  test("ask() names bouncer approve only when the command exists", async () => {
    const r = rig({ humanMinMs: 300, approveCommand: true });
    const outcome = ask(r, await senderAsk());
    await answer(r, 0, { action: "decline" }, 1);
    expect(((await outcome) as { reason: string }).reason).toContain("bouncer approve");
  });

  test("ask() without elicitation support answers no_channel and sends nothing", async () => {
    const r = rig({
      clientCapabilities: () => ({
        form: false,
        why: "the client did not declare elicitation support in its initialize",
      }),
    });
    const got = await ask(r, await senderAsk());
    expect(got.kind).toBe("no_channel");
    expect((got as { reason: string }).reason).toContain("did not declare elicitation support");
    expect(r.client.sent).toHaveLength(0);
  });

  test("ask() without elicitation support names bouncer pins accept --hash of the definition asked about for a changed tool", async () => {
    const r = rig({ clientCapabilities: () => ({ form: false, why: "no elicitation" }) });
    const decision = await changedToolAsk();
    expect(decision.questions[0]?.kind).toBe("changed_tool");
    const hash = decision.questions[0]?.key.identity.slice(0, 16) ?? "";
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    const got = await ask(r, decision);
    expect((got as { reason: string }).reason).toContain(
      `bouncer pins accept mail send_email --hash ${hash}`,
    );
  });

  test("ask() without elicitation support says the pins were forgotten, not to run pins accept, once the pin file is gone", async () => {
    let forgotten = false;
    const r = rig({
      clientCapabilities: () => ({ form: false, why: "no elicitation" }),
      pinsForgotten: () => forgotten,
    });
    const decision = await changedToolAsk();
    expect(((await ask(r, decision)) as { reason: string }).reason).toContain("--hash");
    forgotten = true;
    const reason = ((await ask(r, decision)) as { reason: string }).reason;
    expect(reason).toContain(PINS_FORGOTTEN_HINT);
    expect(reason).not.toContain("--hash");
  });

  test("ask() answers no_channel when the client answers the elicitation with an error", async () => {
    const r = rig();
    const outcome = ask(r, await senderAsk());
    await flush();
    r.client.sent[0]?.fail("Client does not support form-mode elicitation requests");
    const got = await outcome;
    expect(got.kind).toBe("no_channel");
    expect((got as { reason: string }).reason).toContain("Client does not support form-mode");
  });

  test("ask() sends progress with the call's own token while it waits, and stops after the answer", async () => {
    const r = rig({ progressIntervalMs: 1000 });
    const outcome = ask(r, await senderAsk(), { progressToken: "p-1" });
    await flush();
    r.time.advance(2500);
    expect(r.progress).toEqual([
      ["p-1", 1, WAITING_MESSAGE],
      ["p-1", 2, WAITING_MESSAGE],
      ["p-1", 3, WAITING_MESSAGE],
    ]);
    r.client.sent[0]?.answer({ action: "accept" });
    await outcome;
    r.time.advance(5000);
    expect(r.progress).toHaveLength(3);
    expect(r.time.pending).toBe(0);
  });

  test("ask() sends no progress for a call without a progress token", async () => {
    const r = rig({ progressIntervalMs: 1000 });
    const outcome = ask(r, await senderAsk());
    await answer(r, 0, { action: "accept" }, 3000);
    await outcome;
    expect(r.progress).toEqual([]);
  });
});
