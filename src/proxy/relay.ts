/**
 * The relay: JSON-RPC messages between the client's stdio and the upstream's stdio, with ids
 * remapped in both directions, cancellations translated, progress routed by the client's own token,
 * and the interception points of `RelayHooks`. No I/O of its own — it is fed complete lines and
 * writes complete messages through the functions it is given — so it also runs without stdio in unit
 * tests (STYLE #24). State and shared operations live in `relay-core.ts`, each direction in
 * `from-client.ts` / `from-upstream.ts`, the gated requests in `intercept.ts`. Edge.
 *
 * Messages are forwarded as their original text with only the `id` replaced, except Bouncer's own
 * messages, translated cancellations, the `initialize` result (`tools.listChanged` added) and an
 * allowed `tools/call` (re-serialised with exactly the decided arguments).
 *
 * Source: SPEC §3.1, §3.2, §3.3; field cases F03, F07, F19, F20, F22.
 * @module
 */

import { clientOversize } from "./client-answers.ts";
import { receiveFromClient } from "./from-client.ts";
import { fromUpstream, upstreamGone, upstreamOversize } from "./from-upstream.ts";
import { RPC_ERROR, type RpcErrorObject } from "./jsonrpc.ts";
import type { OversizedLine } from "./line-framer.ts";
import { RelayCore } from "./relay-core.ts";
import type { UpstreamFailure } from "./relay-hooks.ts";

export type { RelayOptions } from "./relay-types.ts";

/**
 * The relay between one client and one upstream.
 *
 * Source: SPEC §3.1.
 * @example
 * const relay = new Relay({ sendToClient, sendToUpstream, createHooks: () => passThroughHooks() });
 * const framer = new LineFramer((line) => relay.receiveFromClient(line));
 */
export class Relay extends RelayCore {
  /**
   * Handles one line from the client.
   *
   * Source: SPEC §3.1 (batches, id-less calls, unknown methods).
   * @param line - A complete line.
   */
  receiveFromClient(line: string): void {
    receiveFromClient(this, line);
  }

  /**
   * Handles one line from the upstream (in order, after earlier lines are fully handled).
   * @param line - A complete line.
   */
  receiveFromUpstream(line: string): void {
    this.enqueue(() => fromUpstream(this, line));
  }

  /**
   * A client line over the size limit was discarded: its request is answered if its id is known, an
   * answer settles what it answers with an error (never answered to the client).
   * @param line - The head and tail of the line.
   */
  clientOversize(line: OversizedLine): void {
    clientOversize(this, line);
  }

  /**
   * An upstream line over the size limit was discarded: the request it answered gets an error, or
   * every pending one when that cannot be known; the relay carries on.
   *
   * Source: SPEC §3.3.
   * @param line - The head and tail of the line.
   */
  upstreamOversize(line: OversizedLine): void {
    upstreamOversize(this, line);
  }

  /**
   * The upstream is gone: every pending request gets the error, later ones too.
   *
   * Source: SPEC §3.3 ("Upstream exits"), F07.
   * @param failure - Message and data (exit code, stderr tail).
   * @returns How many client requests were answered with it.
   */
  upstreamGone(failure: UpstreamFailure): Promise<number> {
    return upstreamGone(this, failure);
  }

  /**
   * The session ends: Bouncer's own requests fail and decisions in progress are aborted; answers to
   * requests already forwarded are still relayed while the upstream shuts down.
   */
  close(): void {
    const error = { code: RPC_ERROR.internalError, message: "Session ended" };
    this.client.close(error);
    this.upstream.closeOwn(error);
    for (const pending of this.pending.values())
      if (pending.state !== "forwarded") pending.abort.abort("session_ended");
  }

  /**
   * The upstream was stopped at the end of the session with calls still forwarded to it: each gets
   * `error` (after the upstream lines already received are handled, so an answer that came first
   * wins), so no client call is left without an answer.
   *
   * Source: SPEC §3.3 ("never a hang"); review of `bouncer run` (forwarded calls got no answer when
   * a signal or the end of the client's input stopped Bouncer).
   * @param error - The JSON-RPC error to answer with.
   * @returns A promise of how many calls were answered with it.
   */
  endForwarded(error: RpcErrorObject): Promise<number> {
    return new Promise((resolve) => {
      this.enqueue(() => {
        let told = 0;
        for (const pending of [...this.pending.values()])
          if (pending.state === "forwarded" && this.answerError(pending, error)) told++;
        resolve(told);
      });
    });
  }
}
