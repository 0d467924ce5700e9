/**
 * A relay running the real gating hooks with both pipes in memory and a scripted upstream that
 * answers Bouncer's requests (initialize, tools/list pages, tools/call), for fast tests of
 * `createGatingHooks` (STYLE #24: the per-call handler is callable without stdio). The client side
 * is driven line by line; every message either side receives is kept.
 */

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonObject, JsonValue } from "../../../src/engine/index.ts";
import { createGatingHooks } from "../../../src/proxy/gating-hooks.ts";
import { Relay } from "../../../src/proxy/relay.ts";
import { parseRunArgs } from "../../../src/proxy/run-args.ts";
import { deadline } from "./harness.ts";

/** What the scripted upstream answers to one request: a result, an error, or nothing (never answers). */
export type UpstreamAnswer = { result: JsonValue } | { error: { code: number; message: string } } | undefined;

/** The scripted upstream: answers by method. */
export type UpstreamScript = (method: string, params: JsonObject) => UpstreamAnswer;

export interface GatingRelay {
  readonly relay: Relay;
  readonly home: string;
  /** Messages the client received, parsed. */
  readonly toClient: Record<string, unknown>[];
  /** Messages the upstream received, parsed. */
  readonly toUpstream: Record<string, unknown>[];
  /** Messages the upstream received, as the bytes written. */
  readonly upstreamLines: string[];
  readonly logs: string[];
  readonly ended: number[];
  fromClient(message: unknown): void;
  fromUpstream(message: unknown): void;
  /** Waits (hang guard 5 s) for a client message matching the predicate. */
  clientMessage(
    predicate: (m: Record<string, unknown>) => boolean,
    what: string,
  ): Promise<Record<string, unknown>>;
  /** Upstream requests of one method. */
  upstreamCalls(method: string): Record<string, unknown>[];
  /** Sends initialize, answers it, sends initialized and waits for the first walk's list. */
  handshake(capabilities?: JsonObject): Promise<void>;
}

/** Options of {@link gatingRelay}. */
export interface GatingRelayOptions {
  /** Policy YAML (written to a temp file), or none. */
  readonly policy?: string;
  /** Extra `bouncer run` flags. */
  readonly flags?: readonly string[];
  /** Answers to Bouncer's requests. */
  readonly script: UpstreamScript;
  /** The upstream name (default `mail`). */
  readonly name?: string;
}

/** Lets queued callbacks run. */
export function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1));
}

/**
 * Builds a relay with the real gating hooks and a scripted upstream.
 * @param options - Policy, flags and the upstream's script.
 * @returns The relay and what each side received.
 */
export function gatingRelay(options: GatingRelayOptions): GatingRelay {
  const home = mkdtempSync(join(tmpdir(), "bouncer-gh-"));
  const name = options.name ?? "mail";
  const policyFlags: string[] = [];
  if (options.policy !== undefined) {
    const file = join(home, "policy.yaml");
    writeFileSync(file, options.policy);
    policyFlags.push("--policy", file);
  }
  const run = parseRunArgs([
    "--upstream-name",
    name,
    ...policyFlags,
    "--audit-log",
    join(home, "audit.jsonl"),
    ...(options.flags ?? []),
    "--",
    "fake-upstream",
  ]);
  const toClient: Record<string, unknown>[] = [];
  const toUpstream: Record<string, unknown>[] = [];
  const upstreamLines: string[] = [];
  const logs: string[] = [];
  const ended: number[] = [];
  const waiters: {
    predicate: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }[] = [];
  let relay: Relay;
  const answerUpstream = (message: Record<string, unknown>): void => {
    if (typeof message.method !== "string" || message.id === undefined) return;
    const params = (message.params ?? {}) as JsonObject;
    const answer = options.script(message.method, params);
    if (answer === undefined) return;
    queueMicrotask(() =>
      relay.receiveFromUpstream(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer })),
    );
  };
  relay = new Relay({
    sendToClient: (text) => {
      const message = JSON.parse(text) as Record<string, unknown>;
      toClient.push(message);
      for (const waiter of [...waiters]) {
        if (!waiter.predicate(message)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    },
    sendToUpstream: (text) => {
      upstreamLines.push(text);
      const message = JSON.parse(text) as Record<string, unknown>;
      toUpstream.push(message);
      answerUpstream(message);
    },
    createHooks: (context) =>
      createGatingHooks(context, {
        run,
        upstream: { name, command: "fake-upstream", args: [], cwd: home },
        home,
        log: (message) => void logs.push(message),
      }),
    log: (message) => void logs.push(message),
    onEndRequested: (code) => void ended.push(code),
  });
  const clientMessage = (
    predicate: (m: Record<string, unknown>) => boolean,
    what: string,
  ): Promise<Record<string, unknown>> => {
    const seen = toClient.find(predicate);
    if (seen !== undefined) return Promise.resolve(seen);
    return deadline(new Promise((resolve) => waiters.push({ predicate, resolve })), 5000, what);
  };
  const fromClient = (message: unknown): void =>
    relay.receiveFromClient(typeof message === "string" ? message : JSON.stringify(message));
  return {
    relay,
    home,
    toClient,
    toUpstream,
    upstreamLines,
    logs,
    ended,
    fromClient,
    fromUpstream: (message) => relay.receiveFromUpstream(JSON.stringify(message)),
    clientMessage,
    upstreamCalls: (method) => toUpstream.filter((message) => message.method === method),
    async handshake(capabilities = {}) {
      fromClient({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities, clientInfo: { name: "t", version: "1" } },
      });
      await clientMessage((m) => m.id === "init", "initialize answer");
      fromClient({ jsonrpc: "2.0", method: "notifications/initialized" });
      fromClient({ jsonrpc: "2.0", id: "list-0", method: "tools/list", params: {} });
      await clientMessage((m) => m.id === "list-0", "first tools/list");
    },
  };
}

/** A standard initialize result with tools. */
export const INITIALIZE_RESULT: JsonObject = {
  protocolVersion: "2025-06-18",
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: "fake", version: "1" },
};

/**
 * A client `tools/call` request.
 * @param id - Its id.
 * @param name - The tool.
 * @param args - Its arguments.
 * @returns The message.
 */
export function toolCall(id: number | string, name: string, args: JsonObject): JsonObject {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/**
 * The relay's audit log, parsed.
 * @param r - The relay.
 * @returns Its records in order.
 */
export function auditRecords(r: GatingRelay): Record<string, unknown>[] {
  return readFileSync(join(r.home, "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A mailbox policy: `send_email` is exfiltrating, its `to` a sink, `boss@corp.example` trusted. */
export const MAIL_POLICY =
  "send_email:\n  exfiltrating: true\n  sink_params: [to]\n  trusted_destinations: [boss@corp.example]\n";
/** The mailbox's read tool. */
export const READ_TOOL = { name: "read_inbox", inputSchema: { type: "object" } };
/** The mailbox's send tool. */
export const SEND_TOOL = {
  name: "send_email",
  inputSchema: { type: "object", properties: { to: { type: "string" } } },
};
