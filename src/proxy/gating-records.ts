/**
 * What a live gating session records of the upstream's messages: each text that reaches the model —
 * a call's result or error, other answers, the server's instructions, its own requests and
 * notifications, and the members of a message beyond its main one — as untrusted output in the
 * gate (SPEC §2.5), and each in the `--record` session file (SPEC §3.6). `gating-hooks.ts` decides
 * when; this is how. Edge.
 *
 * Source: SPEC §2.5, §3.6.
 * @module
 */

import type { RecordedCall } from "../audit/index.ts";
import type { JsonObject, JsonValue } from "../engine/index.ts";
import type { CallRecord } from "./gated-call.ts";
import type { LiveSession as Live } from "./gating-session.ts";
import { isJsonObject, member } from "./jsonrpc.ts";
import type { RpcOutcome, UpstreamMessage } from "./relay-hooks.ts";

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
  // Most messages have none: nothing is copied until one is met.
  let others: [string, JsonValue][] | undefined;
  for (const key of Object.keys(message)) {
    if (key === main || ENVELOPE.has(key)) continue;
    others ??= [];
    others.push([key, message[key] as JsonValue]);
  }
  return others === undefined ? undefined : Object.fromEntries(others);
}

/**
 * Records a forwarded `tools/call`'s result or error as untrusted output (unless the tool is
 * `trusted_output`, the gate's rule), the message's other members as other output, then the call in
 * the `--record` file.
 *
 * Source: SPEC §2.5, §3.6.
 * @param session - The live session.
 * @param call - The call.
 * @param done - Its bookkeeping and the upstream's answer.
 */
export function recordToolResult(
  session: Live,
  call: { readonly name: string },
  done: { readonly record: CallRecord; readonly outcome: RpcOutcome },
): void {
  const { record, outcome } = done;
  const { gate, server } = session.calls;
  const forwarded = { server, tool: call.name, seq: record.seq, args: record.args };
  if (outcome.kind === "result" && isJsonObject(outcome.result)) {
    gate.recordResult(forwarded, { result: outcome.result });
  } else {
    gate.recordResult(forwarded, { error: outcomeValue(outcome) });
  }
  const extra = otherMembers(outcome.message, outcome.kind);
  if (extra !== undefined) recordOther(session, "tools/call", extra);
  const written = outcome.exact === undefined ? undefined : member(outcome.exact, outcome.kind);
  if (written !== undefined) {
    // Its integers beyond ±2^53 as written, beside the rounded reading above: recorded as the call's
    // output, and in the session file as other output (replay records it as stricter output).
    gate.recordResult(
      forwarded,
      outcome.kind === "result" && isJsonObject(written) ? { result: written } : { error: written },
    );
    if (gate.rulesFor(server, call.name).trustedOutput?.value !== true)
      session.calls.audit.recordOutput("tools/call", written);
  }
  const writtenExtra = otherMembers(outcome.exact, outcome.kind);
  if (writtenExtra !== undefined) recordOther(session, "tools/call", writtenExtra);
  recordCall(session, call, { record, outcome });
}

/**
 * Records the upstream's answer to any other relayed request — its result, or its error as written —
 * and the message's other members, as untrusted output and in the `--record` file.
 *
 * Source: SPEC §2.5 (every upstream text that reaches the model), §3.6.
 * @param session - The live session.
 * @param method - The request's method.
 * @param outcome - The upstream's answer.
 */
export function recordUpstreamAnswer(session: Live, method: string, outcome: RpcOutcome): void {
  recordOther(session, method, outcomeValue(outcome));
  const extra = otherMembers(outcome.message, outcome.kind);
  if (extra !== undefined) recordOther(session, method, extra);
  // With its integers beyond ±2^53 as written too, when it has any.
  recordWritten(session, method, outcome.exact, outcome.kind);
}

/**
 * Records the server's instructions (of `initialize` or `server/discover`) as untrusted, field values
 * at most (SPEC §2.5), and writes them to the `--record` file.
 *
 * Source: SPEC §2.5, §3.6.
 * @param session - The live session.
 * @param instructions - The text.
 */
export function recordInstructions(session: Live, instructions: string): void {
  session.calls.gate.recordInstructions(session.calls.server, instructions);
  session.calls.audit.recordInstructions(instructions);
}

/** Members of an `initialize` result recorded on their own (instructions, serverInfo) or holding no text. */
const DISCOVERY_RECORDED: ReadonlySet<string> = new Set(["instructions", "serverInfo", "protocolVersion"]);
/** Capabilities of the specification, whose members are flags: no text of the server's. */
const KNOWN_CAPABILITIES: ReadonlySet<string> = new Set([
  "tools",
  "resources",
  "prompts",
  "logging",
  "completions",
  "tasks",
]);

/**
 * Records the parts of an `initialize` or `server/discover` result that hold the server's own text
 * beyond its instructions and `serverInfo` (recorded apart): an `experimental` or unknown
 * capability, `_meta`, members of later versions — as the instructions are (untrusted, field values
 * at most), and in the `--record` file as instructions, so a replay records them alike. A result of
 * no such part records nothing.
 *
 * Source: SPEC §2.5 ("Everything the upstream says can reach the model, so all of it is recorded";
 * instructions count as field values at most), §3.6; review of the proxy.
 * @param session - The live session.
 * @param result - The result.
 */
export function recordDiscoveryRest(session: Live, result: JsonObject): void {
  const rest: [string, JsonValue][] = [];
  for (const key of Object.keys(result)) {
    if (DISCOVERY_RECORDED.has(key)) continue;
    const value = result[key] as JsonValue;
    if (key !== "capabilities" || !isJsonObject(value)) {
      rest.push([key, value]);
      continue;
    }
    const unknown = Object.keys(value).filter((name) => !KNOWN_CAPABILITIES.has(name));
    if (unknown.length > 0)
      rest.push([key, Object.fromEntries(unknown.map((name) => [name, value[name] as JsonValue]))]);
  }
  if (rest.length > 0) recordInstructions(session, JSON.stringify(Object.fromEntries(rest)));
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
 *
 * Source: SPEC §2.5, §3.6.
 * @param session - The live session.
 * @param seen - The message as the hook saw it.
 */
export function recordMessage(session: Live, seen: UpstreamMessage): void {
  const written = member(seen.message, "params");
  recordOther(session, seen.method, written === undefined ? seen.params : written);
  const extra = otherMembers(seen.message, "params");
  if (extra !== undefined) recordOther(session, seen.method, extra);
  // With its integers beyond ±2^53 as written too, when it has any.
  recordWritten(session, seen.method, seen.exact, "params");
}

/**
 * Records a message's reading with the digits of its integers beyond ±2^53 (its main member and its
 * other members), when it has one: a client that keeps every digit shows the model those.
 * @param session - The live session.
 * @param method - What carried it.
 * @param exact - The exact reading, if any.
 * @param main - The main member's name.
 */
function recordWritten(session: Live, method: string, exact: JsonObject | undefined, main: string): void {
  if (exact === undefined) return;
  const written = member(exact, main);
  if (written !== undefined) recordOther(session, method, written);
  const extra = otherMembers(exact, main);
  if (extra !== undefined) recordOther(session, method, extra);
}

/**
 * Writes a call to the `--record` file (nothing without `--record`): its arguments and seq, the
 * upstream's answer when it was forwarded, the ask and its answer, and ambiguous JSON.
 *
 * Source: SPEC §3.6, §5.9.
 * @param session - The live session.
 * @param call - The call.
 * @param done - Its bookkeeping and, when forwarded, the upstream's answer.
 */
export function recordCall(
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
    ...(record.liveBlocked === undefined ? {} : { liveBlocked: record.liveBlocked }),
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
