/**
 * Where `bouncer run` gets its interception hooks: {@link createGatingHooks} builds the gate's hooks
 * for one session — the policy (the files `bouncer run` validated before the spawn, with the packs),
 * the pins (`$BOUNCER_HOME/pins`, or memory with `--pins off`), the walks of the upstream's tools, the
 * decision on every `tools/call` with asks by elicitation, untrusted output recorded before the client
 * sees it, the audit log and the `--record` session file. The decision itself is the gate's (engine
 * and policy); nothing here re-implements a rule. A session refused here (an invalid policy when no
 * validated files were given, an unwritable session file) is refused at `initialize`; `bouncer run`
 * refuses an invalid policy before the upstream starts (run-proxy.ts). Edge.
 *
 * Source: SPEC §2.1 ("when in doubt, ask; when asking is impossible, deny"), §3.1, §3.2, §3.5, §3.6,
 * §3.8.
 * @module
 */

import type { RecordedCall } from "../audit/index.ts";
import type { JsonObject, JsonValue } from "../engine/index.ts";
import { flagMarkedElicitation } from "./bouncer-marker.ts";
import { clientRootDirs } from "./client-roots.ts";
import type { ServerContext } from "./gate.ts";
import { type CallRecord, gateToolCall } from "./gated-call.ts";
import {
  type GatingSetup,
  type LiveSession as Live,
  type RefusedSession as Refused,
  refuse,
  startConfinementWarnings,
  startGatingSession,
} from "./gating-session.ts";
import { isJsonObject, member, RPC_ERROR } from "./jsonrpc.ts";
import { blockedResult } from "./proxy-denies.ts";
import type {
  RelayContext,
  RelayHooks,
  RpcOutcome,
  ToolCallRequest,
  UpstreamMessage,
} from "./relay-hooks.ts";

export type { GatingSetup } from "./gating-session.ts";
export { SESSION_REFUSED_CODE } from "./gating-session.ts";

/**
 * The start-up notice for a pack that matched by the `--upstream-name` alone (SPEC §4.3's fallback).
 * @param pack - The pack's name.
 * @param server - The upstream name.
 * @returns The notice (no trailing newline).
 */
function packByNameNotice(pack: string, server: string): string {
  return `Pack "${pack}" applies to "${server}" by its upstream name alone (neither its command line nor its serverInfo.name matched the pack): if this is not the server the pack was written for, rename the upstream or state its tools' rules in a --policy file (bouncer explain TOOL --server ${server})`;
}

/**
 * Builds the hooks that gate one session.
 *
 * Source: SPEC §3.1, §3.2, §3.5, §3.6, §3.8.
 * @param context - What hooks may do (own requests to the client and upstream, session facts).
 * @param setup - Flags, upstream, home and logger.
 * @returns The gating hooks.
 */
export function createGatingHooks(context: RelayContext, setup: GatingSetup): RelayHooks {
  const { log } = setup;
  let settled: Live | Refused | undefined;
  const started = startGatingSession(context, setup).then(
    (session) => {
      settled = session;
      if (session.kind === "refused") log(session.error.message);
      return session;
    },
    (error: unknown): Refused => {
      const message = `Cannot start the gate: ${error instanceof Error ? error.message : String(error)}`;
      log(message);
      settled = refuse({ message, data: {} }, 1);
      return settled;
    },
  );
  /** Forwarded calls waiting for their result (a cancelled call never gets one: it goes with its request). */
  const records = new WeakMap<ToolCallRequest, CallRecord>();
  /**
   * With `--record`: the forwarded calls still to be written to the session file — once their result
   * comes, the client cancels, or the upstream dies.
   */
  const unrecorded = new Set<ToolCallRequest>();
  const unanswered = (session: Live, call: ToolCallRequest, outcome?: RpcOutcome): void => {
    const record = records.get(call);
    if (record === undefined || !unrecorded.delete(call)) return;
    records.delete(call);
    recordCall(session, call, outcome === undefined ? { record } : { record, outcome });
  };
  /**
   * Records a forwarded call's result as untrusted output, then in the session file.
   * @param session - The settled session.
   * @param call - The call.
   * @param outcome - The upstream's answer.
   */
  const toolResult = (session: Live | Refused, call: ToolCallRequest, outcome: RpcOutcome): void => {
    const record = records.get(call);
    if (session.kind === "refused" || record === undefined) return;
    records.delete(call);
    unrecorded.delete(call);
    const { gate, server } = session.calls;
    const forwarded = { server, tool: call.name, seq: record.seq, args: record.args };
    if (outcome.kind === "result" && isJsonObject(outcome.result)) {
      gate.recordResult(forwarded, { result: outcome.result });
    } else {
      gate.recordResult(forwarded, { error: outcomeValue(outcome) });
    }
    const extra = otherMembers(outcome.message, outcome.kind);
    if (extra !== undefined) recordOther(session, "tools/call", extra);
    recordCall(session, call, { record, outcome });
  };
  /** Whether the server is registered (by the first initialize or server/discover result). */
  let registered = false;
  /** Whether the client sent `initialize` (then its result registers the server, never a list). */
  let handshake = false;
  /**
   * Registers the server once per run, with the `serverInfo` of the first `initialize` or
   * `server/discover` result (SPEC §3.2, §4.3: packs match on `serverInfo.name`), or without one when
   * a 2026-07-28 client lists or calls tools before any discovery; writes the session file's one
   * `server` event. A later `serverInfo` must not match other packs mid-session.
   * @param session - The live session.
   * @param serverInfo - The result's `serverInfo`, if any.
   */
  const register = (session: Live, serverInfo: JsonValue | undefined): void => {
    if (registered) return;
    registered = true;
    const { gate, audit } = session.calls;
    const context: ServerContext = {
      ...session.context,
      ...(isJsonObject(serverInfo) ? { serverInfo } : {}),
    };
    const packs = gate.registerServer(context);
    for (const matched of packs) {
      // SPEC §4.3's fallback: a pack for another server would set its rules (`exfiltrating:
      // false`, its path prefixes) on tools that merely share names. Said once, at start.
      if (matched.by === "upstream_name") log(packByNameNotice(matched.pack.name, context.name));
    }
    for (const warning of startConfinementWarnings(session, context, packs))
      log(`Warning: ${warning.message}`);
    audit.recordServer({
      command: context.command ?? [],
      cwd: context.cwd ?? "",
      ...(isJsonObject(serverInfo) ? { serverInfo } : {}),
    });
  };
  const live = (run: (session: Live) => void): void => {
    if (settled?.kind === "live") run(settled);
    else void started.then((session) => (session.kind === "live" ? run(session) : undefined));
  };
  /**
   * The server's first `initialize` or `server/discover` result: registers the server, then records
   * its instructions (after the server event, so that the session file names the server first). A
   * later one's instructions are recorded; the registration stays the first.
   * @param result - The result.
   */
  const discovered = (result: JsonObject): void =>
    live((session) => {
      register(session, member(result, "serverInfo"));
      const instructions = member(result, "instructions");
      if (typeof instructions === "string") recordInstructions(session, instructions);
    });

  return {
    onClientInitialize: () => {
      handshake = true;
      const decide = (session: Live | Refused) =>
        session.kind === "refused"
          ? { kind: "error" as const, error: session.error, exitCode: session.exitCode }
          : { kind: "forward" as const };
      return settled === undefined ? started.then(decide) : decide(settled);
    },
    onInitializeResult: discovered,
    onInitialized: () => live((session) => void session.calls.tools.walk()),
    whenReady: () => {
      const ready = (session: Live | Refused): Promise<void> => {
        if (session.kind !== "live") return Promise.resolve();
        // A 2026-07-28 client that lists or calls tools before any discovery: registered now,
        // before the walk this starts writes its tools to the session file. After an initialize,
        // only its result registers (a list sent before it arrives must not lose its serverInfo).
        if (!handshake) register(session, undefined);
        return session.calls.tools.whenReady();
      };
      return settled === undefined ? started.then(ready) : ready(settled);
    },
    onToolsList: async () => {
      const session = await started;
      if (session.kind === "refused") return { kind: "error", error: session.error };
      const { tools } = session.calls;
      await tools.noticePinChanges().catch((error: unknown) => log(describe(error)));
      return tools.toolsList();
    },
    onToolCall: async (call) => {
      const session = settled ?? (await started);
      if (session.kind === "refused") return { kind: "result", result: blockedResult(session.error.message) };
      const gated = await gateToolCall(session.calls, call);
      if (gated.record === undefined) return gated.decision;
      if (gated.decision.kind !== "forward") {
        recordCall(session, call, { record: gated.record });
        return gated.decision;
      }
      records.set(call, gated.record);
      if (!session.calls.audit.recording) return gated.decision;
      unrecorded.add(call);
      // A cancelled call gets no result: it is recorded as it was decided, without one (SPEC §3.6).
      if (call.signal.aborted) unanswered(session, call);
      else call.signal.addEventListener("abort", () => unanswered(session, call), { once: true });
      return gated.decision;
    },
    // Synchronous once the session is settled: the answer reaches the client without another turn.
    onToolResult: (call, outcome) =>
      settled === undefined
        ? started.then((session) => toolResult(session, call, outcome))
        : toolResult(settled, call, outcome),
    // Every other answer may reach the model — resources/read, prompts/get, task results, the lists
    // of resources and prompts, completions — and so does an error's message and data (SPEC §2.5).
    onUpstreamResult: (request, outcome) =>
      live((session) => {
        if (request.method === "server/discover" && outcome.kind === "result") {
          // As an initialize result (2026-07-28 has no handshake): serverInfo selects packs, the
          // instructions are field values at most.
          if (isJsonObject(outcome.result)) discovered(outcome.result);
          return;
        }
        recordOther(session, request.method, outcomeValue(outcome));
        const extra = otherMembers(outcome.message, outcome.kind);
        if (extra !== undefined) recordOther(session, request.method, extra);
      }),
    onUpstreamRequest: (request) => {
      const flagged = flagMarkedElicitation(request, { server: setup.upstream.name, log });
      live((session) => {
        if (flagged) session.calls.audit.markedElicitation(request.params);
        if (request.method !== "sampling/createMessage") return;
        recordMessage(session, request);
      });
    },
    // The roots the client gives the upstream are bases of its relative paths (SPEC §2.4).
    onClientAnswer: (request, outcome) => {
      if (request.method !== "roots/list" || outcome.kind !== "result") return;
      const roots = clientRootDirs(outcome.result);
      if (roots.length > 0)
        live((session) => session.calls.gate.noteClientRoots(session.calls.server, roots));
    },
    onUpstreamNotification: (notification) => live((session) => recordMessage(session, notification)),
    onToolsListChanged: () => live((session) => void session.calls.tools.walk()),
    onDroppedCall: (message) => live((session) => session.calls.audit.droppedCall(message)),
    onNoise: (noise) => live((session) => session.calls.audit.noise(noise)),
    onUpstreamExit: (failure) =>
      live((session) => {
        session.calls.audit.upstreamExit(failure);
        const { message, data } = failure;
        const error = { code: RPC_ERROR.upstreamFailed, message, data };
        for (const call of [...unrecorded]) unanswered(session, call, { kind: "error", error });
      }),
    onShutdown: async () => {
      const session = settled;
      if (session?.kind !== "live") return;
      session.calls.audit.flush();
    },
  };
}

/**
 * The JSON value an outcome carries: the result, or the error object — as the upstream wrote it when
 * it did (what the client receives: a `message` that is no string, members beyond `code`, `message`
 * and `data`), else the classified one (an error of Bouncer's own making, e.g. the upstream's exit).
 * @param outcome - The answer.
 * @returns The value.
 */
function outcomeValue(outcome: RpcOutcome): JsonValue {
  if (outcome.kind === "result") return outcome.result;
  const written = outcome.message === undefined ? undefined : member(outcome.message, "error");
  if (written !== undefined) return written;
  const { code, message, data } = outcome.error;
  return { code, message, ...(data === undefined ? {} : { data }) };
}

/** Members of a JSON-RPC message that are not its envelope or its main member. */
const ENVELOPE: ReadonlySet<string> = new Set(["jsonrpc", "id", "method"]);

/**
 * The members of an upstream message beyond its envelope and its main member (`result`, `error`,
 * `params`): they reach the client with the line, so they are recorded too (SPEC §2.5).
 * @param message - The message as the upstream wrote it, if known.
 * @param main - The main member's name.
 * @returns Those members (own keys only), or undefined when there are none.
 */
function otherMembers(message: JsonObject | undefined, main: string): JsonObject | undefined {
  if (message === undefined) return undefined;
  const others = Object.entries(message).filter(([key]) => key !== main && !ENVELOPE.has(key));
  return others.length === 0 ? undefined : Object.fromEntries(others);
}

/**
 * Records the server's instructions (of `initialize` or `server/discover`) as untrusted, field values
 * at most (SPEC §2.5), and writes them to the `--record` file.
 * @param session - The live session.
 * @param instructions - The text.
 */
function recordInstructions(session: Live, instructions: string): void {
  session.calls.gate.recordInstructions(session.calls.server, instructions);
  session.calls.audit.recordInstructions(instructions);
}

/**
 * Records other upstream output as untrusted and writes it to the `--record` file.
 * @param session - The live session.
 * @param method - What carried it.
 * @param value - The output.
 */
function recordOther(session: Live, method: string, value: JsonValue): void {
  session.calls.gate.recordUntrusted(session.calls.server, method, value);
  session.calls.audit.recordOutput(method, value);
}

/**
 * Records a request or notification of the upstream's own: its params as written (an array too),
 * and any other members of the message.
 * @param session - The live session.
 * @param seen - The message as the hook saw it.
 */
function recordMessage(session: Live, seen: UpstreamMessage): void {
  const written = member(seen.message, "params");
  recordOther(session, seen.method, written === undefined ? seen.params : written);
  const extra = otherMembers(seen.message, "params");
  if (extra !== undefined) recordOther(session, seen.method, extra);
}

/**
 * Writes a call to the `--record` file.
 * @param session - The live session.
 * @param call - The call.
 * @param done - Its bookkeeping and, when forwarded, the upstream's answer.
 */
function recordCall(
  session: Live,
  call: { readonly name: string },
  done: { readonly record: CallRecord; readonly outcome?: RpcOutcome },
): void {
  if (!session.calls.audit.recording) return;
  const { record, outcome } = done;
  const answer =
    outcome === undefined
      ? {}
      : outcome.kind === "result" && isJsonObject(outcome.result)
        ? { result: outcome.result }
        : { error: outcomeValue(outcome) };
  session.calls.audit.recordCall({
    tool: call.name,
    arguments: record.args,
    seq: record.seq,
    ...answer,
    ...(record.ask === undefined ? {} : askFields(record.ask, record.answer)),
    ...(record.ambiguous === undefined ? {} : { ambiguousJson: record.ambiguous }),
  });
}

/**
 * A recorded ask: its outcome and what its answer applied — `remember` (false when the outcome was no
 * answer, so nothing was remembered) and the URL scope (SPEC §5.9 "remembered as in a live session").
 * @param ask - The ask's outcome.
 * @param answer - The answer it applied, if any.
 * @returns The `ask`, `remember` and `scope` fields of its session event.
 */
function askFields(
  ask: NonNullable<CallRecord["ask"]>,
  answer: CallRecord["answer"],
): Pick<RecordedCall, "ask" | "remember" | "scope"> {
  return {
    ask,
    remember: answer?.remember ?? false,
    ...(answer?.scope === undefined ? {} : { scope: answer.scope }),
  };
}

/**
 * @param error - Anything caught.
 * @returns Its message.
 */
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
