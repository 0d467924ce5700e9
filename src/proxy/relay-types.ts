/**
 * The records a relay session keeps — the client requests not answered yet and the upstream requests
 * relayed to the client — and the options a relay is built with. Declarations only; `relay-core.ts`
 * holds the state and the operations on it. Edge.
 *
 * Source: SPEC §3.1, §3.3.
 * @module
 */

import type { JsonObject } from "../engine/index.ts";
import type { RequestId } from "./jsonrpc.ts";
import type { HooksFactory, ToolCallRequest } from "./relay-hooks.ts";
import type { LazyAbort } from "./relay-support.ts";

/** A client request Bouncer has not answered yet. */
export interface PendingClient {
  /** The client's id, parsed. */
  readonly id: RequestId;
  /** `idKey(id)`: the table key (type-aware). */
  readonly key: string;
  /** The client's id exactly as written, restored on the answer. */
  readonly idText: string;
  readonly method: string;
  readonly params: JsonObject;
  /** Aborted when the client cancels (its signal made on first use). */
  readonly abort: LazyAbort;
  /** Typed key of its `_meta.progressToken`, if any. */
  readonly tokenKey: string | undefined;
  /** `held` until forwarded (or while a hook decides), `done` once answered or cancelled. */
  state: "held" | "forwarded" | "done";
  /** The upstream id it was forwarded with. */
  legId?: number;
  /** The index, among the messages written to the upstream, of the one that forwarded it. */
  upstreamMessage?: number;
  /** For a `tools/call`: what the hooks saw (passed again to `onToolResult`). */
  call?: ToolCallRequest;
}

/** A server-to-client request relayed to the client. */
export interface PendingUpstream {
  /** The upstream's id, as it wrote it. */
  readonly idText: string;
  readonly tokenKey: string | undefined;
  /** Its method (`roots/list`, `sampling/createMessage`, …), for the hook that sees the answer. */
  readonly method: string;
}

/** Options of a relay. */
export interface RelayOptions {
  /** Writes one message (no newline) to the client. */
  readonly sendToClient: (text: string) => void;
  /** Writes one message (no newline) to the upstream. */
  readonly sendToUpstream: (text: string) => void;
  /** Builds the interception hooks (gating, or pass-through in tests). */
  readonly createHooks: HooksFactory;
  /** `--unknown-methods` (default `relay`). */
  readonly unknownMethods?: "relay" | "deny";
  /** One diagnostic line to Bouncer's stderr. */
  readonly log?: (message: string) => void;
  /** The frame limit in use, for error messages (default 64 MiB). */
  readonly maxLineBytes?: number;
  /** A hook asked to end the session with an exit status. */
  readonly onEndRequested?: (exitCode: number) => void;
  /** A client request was answered with the upstream failure ("the client has been told"). */
  readonly onFailureReported?: () => void;
  /**
   * Whether the upstream's input still takes messages (default: always). Once shutdown has ended it,
   * a request decided too late to be forwarded is answered with an error instead of being written
   * into nothing.
   */
  readonly upstreamOpen?: () => boolean;
  /**
   * The index the next message written to the upstream gets (`MessageWriter.written`), recorded on a
   * forwarded request so that, when the upstream's input is found closed, the requests written after
   * the last delivered message are known (default: not recorded).
   */
  readonly nextUpstreamMessage?: () => number;
  /**
   * How long a request that finds the upstream's input closed waits for the upstream's exit to be
   * reported, so that it gets the exit code and stderr tail rather than a bare error (default
   * 2,000 ms; an upstream that closed its input and lives on gets the bare error then).
   */
  readonly failureWaitMs?: number;
  /**
   * Hides the upstream's environment secrets in the preview of its noise, logged and audited
   * (`bouncer run` passes the upstream's stderr redaction: a `password=…` config line on stdout).
   */
  readonly hideUpstreamSecrets?: (text: string) => string;
}
