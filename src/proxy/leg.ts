/**
 * One outgoing leg of the relay (Bouncer → upstream or Bouncer → client): its id table, and
 * Bouncer's own requests on it — sent with a fresh id, answered through a promise, cancellable with an
 * `AbortSignal` (which sends `notifications/cancelled` to the peer). Relayed requests share the same
 * id space, so an answer is matched to exactly one of them. Edge.
 *
 * Source: SPEC §3.1 ("Bouncer's own requests", id remapping).
 * @module
 */

import type { JsonObject, JsonValue } from "../engine/index.ts";
import { IdTable } from "./id-table.ts";
import { type RequestId, RPC_ERROR, RpcError, type RpcErrorObject, requestText } from "./jsonrpc.ts";
import type { OwnRequestOptions, RpcOutcome } from "./relay-hooks.ts";

/** An entry of a leg: Bouncer's own request, or a relayed one carrying `T`. */
export type LegEntry<T> =
  | {
      readonly kind: "own";
      readonly resolve: (value: JsonValue) => void;
      readonly reject: (error: Error) => void;
    }
  | { readonly kind: "relay"; readonly value: T };

/**
 * An outgoing leg.
 *
 * Source: SPEC §3.1.
 */
export class Leg<T> {
  /** Its ids; with a `weigh`, its `counted` totals are the open relayed entries. */
  readonly table: IdTable<LegEntry<T>>;
  readonly #send: (text: string) => void;
  /** Set when the peer is gone: own requests fail at once with this error. */
  #closed: RpcErrorObject | undefined;

  /**
   * @param send - Writes one message to the peer.
   * @param options - `weigh`: what a relayed entry counts for in `table.counted` (Bouncer's own
   *   requests are not counted); without it nothing is counted.
   */
  constructor(send: (text: string) => void, options: { readonly weigh?: (value: T) => number } = {}) {
    this.#send = send;
    const { weigh } = options;
    this.table = new IdTable<LegEntry<T>>(
      weigh === undefined
        ? {}
        : { weigh: (entry) => (entry.kind === "relay" ? weigh(entry.value) : undefined) },
    );
  }

  /**
   * Sends Bouncer's own request.
   * @param method - The method.
   * @param params - The params.
   * @param options - An abort signal.
   * @returns The result; rejects with {@link RpcError} on an error answer, abort or close.
   */
  request(method: string, params: JsonObject, options: OwnRequestOptions = {}): Promise<JsonValue> {
    if (this.#closed !== undefined) return Promise.reject(new RpcError(this.#closed));
    const signal = options.signal;
    if (signal?.aborted === true) return Promise.reject(abortError());
    return new Promise<JsonValue>((resolve, reject) => {
      const onAbort = (): void => {
        if (this.table.take(id) === undefined) return;
        this.#send(
          requestText("notifications/cancelled", {
            params: { requestId: id, reason: "cancelled by Bouncer" },
          }),
        );
        reject(abortError());
      };
      const id = this.table.allocate({
        kind: "own",
        resolve: (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#send(requestText(method, { id, params }));
    });
  }

  /**
   * Registers a relayed request and returns the id it goes out with.
   * @param value - What the relay needs when the answer comes.
   * @param origin - The key of the original id (for cancel translation).
   * @returns The outgoing id.
   */
  relay(value: T, origin: string): number {
    return this.table.allocate({ kind: "relay", value }, { origin });
  }

  /**
   * Settles Bouncer's own request from an answer, or returns the relayed entry.
   * @param id - The answer's id.
   * @param outcome - The answer.
   * @returns The relayed entry's value; undefined for an own request or an unknown id.
   */
  settle(id: RequestId, outcome: RpcOutcome): { readonly found: boolean; readonly relayed?: T } {
    const entry = this.table.take(id);
    if (entry === undefined) return { found: false };
    if (entry.kind === "relay") return { found: true, relayed: entry.value };
    if (outcome.kind === "result") entry.resolve(outcome.result);
    // An answer the peer wrote carries the message as written; one Bouncer made up does not.
    else entry.reject(new RpcError(outcome.error, { fromPeer: outcome.message !== undefined }));
    return { found: true };
  }

  /**
   * Fails every open request (an answer was lost, e.g. an over-long line without a known id); the
   * leg stays usable.
   * @param error - The error to fail own requests with.
   * @returns The relayed entries that were open (removed).
   */
  failAll(error: RpcErrorObject): T[] {
    const relayed: T[] = [];
    for (const [, entry] of this.table.takeAll()) {
      if (entry.kind === "own") entry.reject(new RpcError(error));
      else relayed.push(entry.value);
    }
    return relayed;
  }

  /**
   * Fails Bouncer's own requests, now and later (the session ends); relayed entries stay, so answers
   * that still arrive are relayed.
   * @param error - The error to fail with.
   */
  closeOwn(error: RpcErrorObject): void {
    this.#closed = error;
    for (const [id, entry] of [...this.table.entries()]) {
      if (entry.kind !== "own") continue;
      this.table.take(id);
      entry.reject(new RpcError(error));
    }
  }

  /**
   * Marks the peer gone: every own request fails with the error, later ones at once.
   * @param error - The error to fail with.
   * @returns The relayed entries that were open (removed).
   */
  close(error: RpcErrorObject): T[] {
    this.#closed = error;
    return this.failAll(error);
  }
}

/**
 * The rejection of an aborted own request.
 * @returns An RpcError saying so.
 */
function abortError(): RpcError {
  return new RpcError({ code: RPC_ERROR.internalError, message: "Request cancelled" });
}
