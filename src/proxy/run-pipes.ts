/**
 * The two pipes of a `bouncer run` session joined to its relay: the upstream's stdin written through
 * a `MessageWriter` and its stdout framed into the relay (its end or death reported), and the
 * client's stdin framed into the relay (its end or error ending the session). `run-proxy.ts` loads
 * this after the spawn. Edge.
 *
 * Source: SPEC §3.1 (framing), §3.3 (life cycle, over-long lines, an upstream input that closes).
 * @module
 */

import type { Readable } from "node:stream";
import type { UpstreamProcess } from "../platform/spawn-upstream.ts";
import { LineFramer } from "./line-framer.ts";
import { MessageWriter } from "./message-writer.ts";
import type { Relay } from "./relay.ts";
import type { UpstreamFailure } from "./relay-hooks.ts";
import { watchUpstream } from "./run-upstream.ts";
import type { UpstreamBacklog } from "./upstream-backlog.ts";

/** The frame limit, when not the default. */
export interface PipeFraming {
  readonly maxLineBytes?: number;
}

/** What {@link connectUpstream} joins the upstream's pipes to. */
export interface UpstreamPipes {
  readonly relay: Relay;
  /** Told when the upstream's input backs up or drains. */
  readonly backlog: UpstreamBacklog;
  /** The `--upstream-name`, for its exit message. */
  readonly name: string;
  /** Whether messages of one turn leave in one write (several client requests in flight). */
  readonly batch: () => boolean;
  readonly framing: PipeFraming;
  /** Whether the session is shutting down (a closed input is not logged then). */
  readonly stopping: () => boolean;
  readonly log: (message: string) => void;
  /** Told once when the upstream has exited or its output has ended. */
  readonly gone: (failure: UpstreamFailure) => void;
}

/**
 * Joins the upstream's stdin and stdout to the relay. When its input closes while it lives on, what
 * did not reach it is answered, never left pending.
 *
 * Source: SPEC §3.3 ("never a hang"); README Limits (an upstream that closes its stdin).
 * @param child - The upstream process.
 * @param pipes - The relay and what the pipes report to.
 * @returns The writer of the upstream's stdin.
 */
export function connectUpstream(child: UpstreamProcess, pipes: UpstreamPipes): MessageWriter {
  const { relay, log } = pipes;
  const writer = new MessageWriter(child.stdin, {
    onPressure: (full) => pipes.backlog.upstreamPressure(full),
    batch: pipes.batch,
    // Its input closed while it lives on: what did not reach it is answered, never left pending
    // (after the write that found it: the request it carried is registered by then).
    onError: (error) => {
      if (!pipes.stopping())
        log(`The upstream's input is closed (${error.message}): requests are no longer forwarded`);
      queueMicrotask(() => relay.upstreamInputLost(writer.firstUndelivered ?? writer.written));
    },
    ...(child.confirmStdin === undefined ? {} : { confirm: child.confirmStdin }),
  });
  const framer = new LineFramer((line) => relay.receiveFromUpstream(line), {
    ...pipes.framing,
    onOversize: (line) => relay.upstreamOversize(line),
  });
  watchUpstream(child, { name: pipes.name, framer, gone: pipes.gone });
  return writer;
}

/**
 * Frames the client's stdin into the relay; its end (or an error on it) ends the session.
 *
 * Source: SPEC §3.3 (the client going away).
 * @param stdin - Bouncer's stdin.
 * @param pipes - The relay, the frame limit, and what to do when the client's input ends.
 * @returns Removes the listeners and pauses stdin (at shutdown).
 */
export function connectClient(
  stdin: Readable,
  pipes: { readonly relay: Relay; readonly framing: PipeFraming; readonly end: () => void },
): () => void {
  const { relay } = pipes;
  const clientFramer = new LineFramer((line) => relay.receiveFromClient(line), {
    ...pipes.framing,
    onOversize: (line) => relay.clientOversize(line),
  });
  const onData = (chunk: Uint8Array): void => clientFramer.push(chunk);
  const onEnd = (): void => {
    clientFramer.end();
    pipes.end();
  };
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  stdin.on("error", onEnd);
  return () => {
    stdin.off("data", onData);
    stdin.off("end", onEnd);
    stdin.off("error", onEnd);
    stdin.pause();
  };
}
