/**
 * What the hooks see of a pending client request: its id, method and params, and a cancel signal
 * made only when a hook asks for it (most requests are never cancelled). Classes, so that the
 * signal's getter lives on the prototype rather than on every request. Edge.
 *
 * Source: SPEC §3.1 (cancellation), §3.4 (a cancel withdraws the ask).
 * @module
 */

import type { JsonObject } from "../engine/index.ts";
import type { RequestId } from "./jsonrpc.ts";
import type { ClientRequestInfo, ToolCallRequest } from "./relay-hooks.ts";
import type { AbortWhy, LazyAbort } from "./relay-support.ts";
import type { StrictJsonReport } from "./strict-json.ts";

/** The parts of a pending request a view is made of. */
export interface ViewedRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject;
  readonly abort: LazyAbort;
}

/**
 * A hook's view of a client request.
 *
 * Source: SPEC §3.1.
 */
export class RequestView implements ClientRequestInfo {
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject;
  readonly #abort: LazyAbort;

  /**
   * @param pending - The request.
   */
  constructor(pending: ViewedRequest) {
    this.id = pending.id;
    this.method = pending.method;
    this.params = pending.params;
    this.#abort = pending.abort;
  }

  /** Aborted when the client cancels the request (made on first use). */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Why the request was aborted, or undefined while it is not (makes no signal). */
  get abortedBy(): AbortWhy | undefined {
    return this.#abort.why;
  }
}

/**
 * A hook's view of a client `tools/call`.
 *
 * Source: SPEC §3.1.
 */
export class ToolCallView extends RequestView implements ToolCallRequest {
  readonly name: string;
  readonly arguments: JsonObject;
  readonly strict: StrictJsonReport;
  declare readonly progressToken?: string | number;

  /**
   * @param pending - The request.
   * @param call - Its tool name, arguments (`{}` when absent), strict JSON report and progress token.
   */
  constructor(
    pending: ViewedRequest,
    call: {
      readonly name: string;
      readonly arguments: JsonObject;
      readonly strict: StrictJsonReport;
      readonly progressToken: string | number | undefined;
    },
  ) {
    super(pending);
    this.name = call.name;
    this.arguments = call.arguments;
    this.strict = call.strict;
    if (call.progressToken !== undefined) this.progressToken = call.progressToken;
  }
}
