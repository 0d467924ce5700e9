/**
 * Where `bouncer run` gets its interception hooks: {@link createGatingHooks} builds the gate's hooks
 * for one session — the policy (the files `bouncer run` validated before the spawn, with the packs),
 * the pins (`$BOUNCER_HOME/pins`, or memory with `--pins off`), the walks of the upstream's tools, the
 * decision on every `tools/call` with asks by elicitation, untrusted output recorded before the client
 * sees it (how: `gating-records.ts`), the audit log and the `--record` session file. The decision
 * itself is the gate's (engine and policy); nothing here re-implements a rule. A session refused
 * here (an invalid policy when no validated files were given, an unwritable session file) is refused
 * at `initialize`; `bouncer run` refuses an invalid policy before the upstream starts (run-proxy.ts).
 * Edge.
 *
 * Source: SPEC §2.1 ("when in doubt, ask; when asking is impossible, deny"), §3.1, §3.2, §3.5, §3.6,
 * §3.8.
 * @module
 */

import type { JsonObject, JsonValue } from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import { flagMarkedElicitation } from "./bouncer-marker.ts";
import { clientRootDirs } from "./client-roots.ts";
import type { ServerContext } from "./gate.ts";
import { type CallRecord, gateToolCall } from "./gated-call.ts";
import {
  recordCall,
  recordDiscoveryRest,
  recordInstructions,
  recordMessage,
  recordToolResult,
  recordUpstreamAnswer,
} from "./gating-records.ts";
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
import type { RelayContext, RelayHooks, RpcOutcome, ToolCallRequest } from "./relay-hooks.ts";

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
  /**
   * The roots the client gave the upstream before the session settled (the answer reached the
   * upstream at once): noted into the gate as the session settles, before anything can be decided.
   */
  const earlyRoots: string[][] = [];
  const started = startGatingSession(context, setup).then(
    (session) => {
      settled = session.kind === "live" ? withEarlyRoots(session, earlyRoots.splice(0)) : session;
      if (settled.kind === "refused") log(settled.error.message);
      return settled;
    },
    (error: unknown): Refused => {
      const message = `Cannot start the gate: ${errorText(error)}`;
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
   * Takes a forwarded call's result: its bookkeeping is dropped and the result is recorded as
   * untrusted output, then in the session file.
   * @param session - The settled session.
   * @param call - The call.
   * @param outcome - The upstream's answer.
   */
  const toolResult = (session: Live | Refused, call: ToolCallRequest, outcome: RpcOutcome): void => {
    const record = records.get(call);
    if (session.kind === "refused" || record === undefined) return;
    records.delete(call);
    unrecorded.delete(call);
    recordToolResult(session, call, { record, outcome });
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
      recordDiscoveryRest(session, result);
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
      // A failed walk is walked again once, as for a call (SPEC §2.2): an upstream not ready at
      // first is listed on the client's next try, instead of its error being served for ever.
      if (tools.failure !== undefined) await tools.walk();
      await tools.noticePinChanges().catch((error: unknown) => log(errorText(error)));
      return tools.toolsList();
    },
    onToolCall: async (call) => {
      const session = settled ?? (await started);
      if (session.kind === "refused") return { kind: "result", result: blockedResult(session.error.message) };
      const gated = await gateToolCall(session.calls, call);
      if (gated.record === undefined) return gated.decision;
      // Aborted before the decision came back (an approved call decided again): never forwarded.
      const aborted = gated.decision.kind === "forward" && call.abortedBy !== undefined;
      if (gated.decision.kind !== "forward" || aborted) {
        const record = aborted ? { ...gated.record, liveBlocked: "not_forwarded" as const } : gated.record;
        recordCall(session, call, { record });
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
        recordUpstreamAnswer(session, request.method, outcome);
      }),
    onUpstreamRequest: (request) => {
      const flagged = flagMarkedElicitation(request, { server: setup.upstream.name, log });
      live((session) => {
        if (flagged) session.calls.audit.markedElicitation(request.params);
        // Every request's texts reach the client (an elicitation's message is read by the person
        // who answers it and may reach the model; a sampling request's messages do; so may a method
        // of a later protocol version): all of it is recorded (SPEC §2.5).
        recordMessage(session, request);
      });
    },
    // The roots the client gives the upstream are bases of its relative paths (SPEC §2.4). Noted
    // before the answer is relayed: a throw here answers the upstream with an error in its place.
    onClientAnswer: (request, outcome) => {
      if (request.method !== "roots/list" || outcome.kind !== "result") return;
      const roots = clientRootDirs(outcome.result);
      if (roots.length === 0) return;
      if (settled === undefined) earlyRoots.push(roots);
      else if (settled.kind === "live") settled.calls.gate.noteClientRoots(settled.calls.server, roots);
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
 * A session as it settles, with the roots the client gave the upstream meanwhile noted into its
 * gate. Those answers have reached the upstream: when they cannot be noted, the session is refused
 * (its calls are blocked), never run on bases the upstream has and the gate lacks.
 *
 * Source: SPEC §2.4 (relative values), §2.1 (fail closed).
 * @param session - The live session, not yet seen by anything.
 * @param roots - The roots of each early answer, in order.
 * @returns The session, or its refusal.
 */
function withEarlyRoots(session: Live, roots: readonly (readonly string[])[]): Live | Refused {
  try {
    for (const dirs of roots) session.calls.gate.noteClientRoots(session.calls.server, dirs);
    return session;
  } catch (error) {
    const message = `Cannot note the roots the client gave the upstream: ${errorText(error)}`;
    return refuse({ message, data: {} }, 1);
  }
}
