/**
 * A session refused before the upstream was spawned (an unusable policy): nothing is ever relayed
 * and no upstream runs. Every client request, whatever its method, is answered with the refusal; a
 * line that is not a single request or notification (not JSON, a batch, invalid) gets it with id
 * `null`; notifications and responses are dropped. Bouncer then ends with the refusal's status —
 * once a request was answered, or when the client closes stdin first. Edge.
 *
 * Source: SPEC §3.2 step 2 ("answer with a JSON-RPC error carrying the policy error and exit 2 —
 * never run ungated").
 * @module
 */

import type { Readable, Writable } from "node:stream";
import { findIdSpan } from "./json-scan.ts";
import { classify, errorResponseText, isJsonObject, type RpcErrorObject } from "./jsonrpc.ts";
import { LineFramer, type OversizedLine } from "./line-framer.ts";
import { MessageWriter } from "./message-writer.ts";
import { oversizedLineId } from "./relay-support.ts";

/** What {@link refuseClient} reads from and writes to. */
export interface RefusedIo {
  /** The client's messages (Bouncer's stdin). */
  readonly stdin: Readable;
  /** JSON-RPC to the client only (Bouncer's stdout). */
  readonly stdout: Writable;
}

/** How long the final stdout flush may take. */
const FLUSH_LIMIT_MS = 2000;

/**
 * Answers the client's requests with the refusal until one was answered or stdin closes.
 *
 * Source: SPEC §3.2 step 2.
 * @param error - The error every request gets (the policy error).
 * @param io - stdin and stdout.
 * @param options - The exit status (2 for a policy error) and the frame limit.
 * @returns The exit status, once the answers are flushed.
 */
export function refuseClient(
  error: RpcErrorObject,
  io: RefusedIo,
  options: { readonly exitCode: number; readonly maxLineBytes?: number },
): Promise<number> {
  const { stdin } = io;
  const writer = new MessageWriter(io.stdout, { onError: () => finish() });
  let finished = false;
  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });
  const answer = (idText: string): void => {
    writer.write(errorResponseText(idText, error));
    // Requests already framed in the same chunk are still answered before the end.
    queueMicrotask(finish);
  };
  const framer = new LineFramer((line) => refuseLine(line, answer), {
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    onOversize: (line: OversizedLine) => answer(oversizedLineId(line).idText ?? "null"),
  });
  const onData = (chunk: Uint8Array): void => framer.push(chunk);
  const onEnd = (): void => {
    framer.end();
    finish();
  };
  /** Stops reading, flushes the answers and resolves (once). */
  function finish(): void {
    if (finished) return;
    finished = true;
    stdin.off("data", onData);
    stdin.off("end", onEnd);
    stdin.off("error", onEnd);
    stdin.pause();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FLUSH_LIMIT_MS);
    });
    void Promise.race([writer.flush().catch(() => undefined), limit]).then(() => {
      clearTimeout(timer);
      resolveExit(options.exitCode);
    });
  }
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  stdin.on("error", onEnd);
  return exited;
}

/**
 * Answers one client line with the refusal, unless it is a notification or a response.
 * @param line - A complete line.
 * @param answer - Writes the refusal for an id given as JSON text.
 */
function refuseLine(line: string, answer: (idText: string) => void): void {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    answer("null");
    return;
  }
  if (!isJsonObject(value)) {
    answer("null");
    return;
  }
  const message = classify(value);
  if (message.kind === "notification" || message.kind === "result" || message.kind === "error") return;
  if (message.kind === "invalid" && message.response) return;
  if (message.kind === "invalid") {
    answer(message.id === null ? "null" : JSON.stringify(message.id));
    return;
  }
  const span = findIdSpan(line);
  answer(span === undefined ? JSON.stringify(message.id) : line.slice(span.start, span.end));
}
