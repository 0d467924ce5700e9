import type { JsonObject } from "../engine/index.ts";
import { foldedPair } from "./case-variants.ts";
import { isJsonObject, member, RPC_ERROR, resultResponseText } from "./jsonrpc.ts";
import type { RelayCore } from "./relay-core.ts";
import type { ClientRequestInfo, RelayHooks, ToolCallDecision, ToolCallRequest } from "./relay-hooks.ts";
import { internalError } from "./relay-support.ts";
import type { PendingClient } from "./relay-types.ts";
import { RequestView, ToolCallView } from "./request-view.ts";
import { checkStrictJson } from "./strict-json.ts";

/** One intercepted request. */
export interface InterceptedRequest {
  readonly pending: PendingClient;
  /** The original line. */
  readonly line: string;
  /** The original text with the upstream id spliced in. */
  readonly textFor: (legId: number) => string;
  /** Whether some object of the text repeats a key (`repeatsAKey`), when known. */
  readonly repeatsKey?: boolean;
  /** `JSON.parse` of the line, when at hand (the strict-JSON check then looks at its numbers). */
  readonly value?: JsonObject;
}

/**
 * Takes over the gated methods.
 *
 * Source: SPEC §3.1, §3.2.
 * @param core - The relay.
 * @param request - The request, its text and its forwardable text.
 * @returns True when the request was taken over; false for a method relayed as it is.
 */
export function interceptRequest(core: RelayCore, request: InterceptedRequest): boolean {
  const { pending } = request;
  const guard = (run: Promise<void>): void => {
    run.catch(
      (error: unknown) =>
        void core.answerError(pending, internalError(`cannot handle ${pending.method}`, error)),
    );
  };
  if (pending.method === "initialize") {
    core.remember("clientInitialize", pending.params);
    let decision: ReturnType<RelayHooks["onClientInitialize"]>;
    try {
      decision = core.hooks.onClientInitialize(info(pending));
    } catch (error) {
      core.answerError(pending, internalError("cannot handle initialize", error));
      return true;
    }
    // A synchronous decision keeps the client's message order (initialize before what follows it).
    if (decision instanceof Promise) guard(decision.then((d) => applyInitialize(core, request, d)));
    else applyInitialize(core, request, decision);
    return true;
  }
  if (pending.method === "tools/list") {
    guard(toolsList(core, request));
    return true;
  }
  if (pending.method === "tools/call") {
    guard(toolCall(core, request));
    return true;
  }
  return false;
}

/**
 * Whether a request was answered or cancelled meanwhile (re-read after every await).
 * @param pending - The request.
 * @returns True when it is done.
 */
function isDone(pending: PendingClient): boolean {
  return pending.state === "done";
}

/**
 * The hook-facing view of a pending request.
 * @param pending - The request.
 * @returns Its id, method, params and cancel signal.
 */
function info(pending: PendingClient): ClientRequestInfo {
  return new RequestView(pending);
}

/**
 * Forwards the client's `initialize` unchanged, or refuses the session.
 * @param core - The relay.
 * @param request - The request.
 * @param decision - The hook's decision.
 */
function applyInitialize(
  core: RelayCore,
  request: InterceptedRequest,
  decision: Awaited<ReturnType<RelayHooks["onClientInitialize"]>>,
): void {
  if (decision.kind === "error") {
    core.answerError(request.pending, decision.error);
    core.context.endSession(decision.exitCode);
    return;
  }
  core.forward(request.pending, request.textFor);
}

/**
 * A client `tools/list`: held until ready, then the hook answers or it is forwarded.
 * @param core - The relay.
 * @param request - The request.
 */
async function toolsList(core: RelayCore, request: InterceptedRequest): Promise<void> {
  const { pending } = request;
  await core.hooks.whenReady();
  if (isDone(pending)) return;
  const decision = await core.hooks.onToolsList(info(pending));
  if (isDone(pending)) return;
  if (decision.kind === "forward") core.forward(pending, request.textFor);
  else if (decision.kind === "result")
    core.answer(pending, resultResponseText(pending.idText, decision.result));
  else core.answerError(pending, decision.error);
}

/**
 * A client `tools/call`: shape checked, strict JSON report made, held until ready, decided by the
 * hook; forwarded as `{..."params", "arguments": <decided>}` re-serialised, or answered. The
 * synchronous parts live in their own functions, so that the awaiting one stays small.
 *
 * Source: SPEC §3.1.
 * @param core - The relay.
 * @param request - The request.
 */
async function toolCall(core: RelayCore, request: InterceptedRequest): Promise<void> {
  const { pending } = request;
  const call = toolCallRequest(core, request);
  if (call === undefined) return;
  pending.call = call;
  await core.hooks.whenReady();
  if (isDone(pending)) return;
  const decision = await core.hooks.onToolCall(call);
  if (!isDone(pending)) applyToolCallDecision(core, { pending, textFor: request.textFor }, decision);
}

/**
 * The hook's view of a `tools/call`, or undefined after answering a malformed one.
 * @param core - The relay.
 * @param request - The request.
 * @returns The call (name, arguments, strict JSON report, progress token, cancel signal).
 */
function toolCallRequest(core: RelayCore, request: InterceptedRequest): ToolCallRequest | undefined {
  const { pending } = request;
  const name = member(pending.params, "name");
  const args = member(pending.params, "arguments");
  if (typeof name !== "string" || (args !== undefined && !isJsonObject(args))) {
    const what = typeof name !== "string" ? '"name" must be a string' : '"arguments" must be an object';
    core.answerError(pending, { code: RPC_ERROR.invalidParams, message: `Invalid params: ${what}` });
    return undefined;
  }
  const meta = member(pending.params, "_meta");
  const token = isJsonObject(meta) ? member(meta, "progressToken") : undefined;
  const strict = checkStrictJson(
    request.line,
    request.repeatsKey === undefined ? undefined : { repeatsKey: request.repeatsKey, value: request.value },
  );
  // The params as forwarded (`arguments` always written): a `Name` or `ARGUMENTS` beside them is the
  // tool or the arguments to a server decoding names case-insensitively (Go's `encoding/json`, the
  // last copy winning), not the ones decided. Denied as a repeated key is. Inside the arguments, the
  // engine reads every spelling of the arguments its rules name (SPEC §2.4, §2.5).
  const caseVariant = foldedPair(new Set([...Object.keys(pending.params), "arguments"])) !== undefined;
  return new ToolCallView(pending, {
    name,
    arguments: args ?? {},
    strict: caseVariant ? { ...strict, duplicateKeys: true } : strict,
    progressToken: typeof token === "string" || typeof token === "number" ? token : undefined,
  });
}

/**
 * Carries out the hook's decision on a `tools/call`.
 * @param core - The relay.
 * @param request - The request (not done) and its own text with a given id.
 * @param decision - Forward with the decided arguments (or verbatim), or answer.
 */
function applyToolCallDecision(
  core: RelayCore,
  request: { readonly pending: PendingClient; readonly textFor: (legId: number) => string },
  decision: ToolCallDecision,
): void {
  const { pending } = request;
  if (decision.kind === "forward" && decision.verbatim === true) {
    core.forward(pending, request.textFor);
  } else if (decision.kind === "forward") {
    const params = JSON.stringify({ ...pending.params, arguments: decision.arguments });
    core.forward(
      pending,
      (legId) => `{"jsonrpc":"2.0","id":${legId},"method":"tools/call","params":${params}}`,
    );
  } else if (decision.kind === "result") {
    core.answer(pending, resultResponseText(pending.idText, decision.result));
  } else {
    core.answerError(pending, decision.error);
  }
}
