/**
 * An SDK client transport over a server started the way `bouncer run` starts its upstream (its own
 * process group on POSIX, the full environment given), so that closing it stops the whole tree:
 * stdin end, a grace, SIGTERM to the group, SIGKILL. The SDK's `StdioClientTransport` signals only
 * the direct child, and a server that ignores both left its children behind `doctor`. Edge.
 *
 * Source: SPEC §3.3 ("No process Bouncer started outlives it"), §5.3; the brief ("never a zombie
 * process").
 * @module
 */

import {
  ReadBuffer,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  serializeMessage,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { signalProcessTree } from "../platform/kill-tree.ts";
import { spawnUpstream, type UpstreamExit, type UpstreamProcess } from "../platform/spawn-upstream.ts";
import { killUpstreamNow, stopUpstream } from "../platform/stop-upstream.ts";

/** How to start the server. */
export interface GroupLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** The complete environment of the server. */
  readonly env: Readonly<Record<string, string>>;
  /** Absolute working directory. */
  readonly cwd: string;
  /**
   * The command is `bouncer run` (a wrapped entry): its upstream runs in a process group of its own,
   * out of this transport's reach, which only `bouncer run` itself stops (see
   * {@link GroupStdioTransport.hurry}).
   */
  readonly wrapped?: boolean;
}

/** Why a server that wrote more than one message may hold, without a line break, is given up. */
const LINE_TOO_LONG = `The server wrote a line over ${STDIO_DEFAULT_MAX_BUFFER_SIZE / 1024 / 1024} MiB to its stdout (the most one message may be)`;

/**
 * A `Transport` whose server runs in its own process group, stopped as a tree on close.
 *
 * Source: SPEC §3.3, §5.3.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #launch: GroupLaunch;
  readonly #buffer = new ReadBuffer();
  #server: UpstreamProcess | undefined;
  #closed = false;
  /** The stop of the tree, once begun (every later close waits for the same one). */
  #stopping: Promise<void> | undefined;
  /** Aborted by {@link GroupStdioTransport.hurry}. */
  readonly #hurry = new AbortController();
  #failure: string | undefined;
  /** Whether {@link GroupStdioTransport.hurry} has sent a wrapped server its SIGTERM. */
  #termSent = false;

  /**
   * @param launch - Command, arguments, environment and working directory.
   */
  constructor(launch: GroupLaunch) {
    this.#launch = launch;
  }

  /**
   * Starts the server.
   * @returns Once it is spawned.
   * @throws {BouncerError} `UPSTREAM_NOT_FOUND` (naming the PATH searched) or `UPSTREAM_SPAWN_FAILED`.
   * @throws {Error} When the transport was started or closed already (nothing is spawned then).
   */
  async start(): Promise<void> {
    if (this.#server !== undefined || this.#stopping !== undefined)
      throw new Error("The transport was started or closed already");
    const { command, args, env, cwd } = this.#launch;
    const server = spawnUpstream(
      { name: "doctor", command, args, cwd },
      { writeStderr: () => {}, baseEnv: env },
    );
    this.#server = server;
    server.stdout.on("data", (chunk: Buffer) => {
      if (this.#failure !== undefined) return;
      try {
        this.#buffer.append(chunk);
      } catch {
        // Thrown outside any caller, it printed traces and left the handshake waiting its deadline.
        this.#fail(LINE_TOO_LONG);
        return;
      }
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    void server.exited.then((exit) => {
      // Exited on its own (not stopped by close()): that, with its code, is why the handshake or
      // the listing failed, not the SDK's bare "Connection closed" (a newcomer's test of doctor).
      if (this.#stopping === undefined && this.#failure === undefined) this.#failure = exitReason(exit);
      this.#finish();
    });
  }

  /**
   * Writes one message to the server.
   * @param message - A JSON-RPC message.
   * @returns Once written to the pipe.
   * @throws {Error} When the transport is not started, is closed (`Not connected`), or the write fails.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    const server = this.#server;
    if (server === undefined) throw new Error("The transport is not started");
    // After close, or once the server's input is gone, a write would wait for a drain that never comes.
    if (this.#closed || server.stdin.destroyed || server.stdin.writableEnded)
      throw new Error("Not connected");
    await new Promise<void>((resolve, reject) => {
      const failed = (error: Error): void => reject(error);
      server.stdin.once("error", failed);
      const done = (): void => {
        server.stdin.off("error", failed);
        resolve();
      };
      if (server.stdin.write(serializeMessage(message))) done();
      else server.stdin.once("drain", done);
    });
  }

  /**
   * Stops the server's whole tree (2 s grace after stdin ends, SIGTERM, 2 s, SIGKILL), then closes
   * the pipes to it. Idempotent: every call waits for the one stop. It stops the group also when the
   * server itself has exited already — the SDK then no longer calls `close()` (its `Protocol` drops a
   * transport that closed), so the owner of the transport must, whatever the SDK did.
   *
   * Source: SPEC §3.3 ("No process Bouncer started outlives it"), §5.3.
   * @returns Once the tree is gone (or the last signal was sent) and the pipes are closed.
   */
  close(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  /**
   * Shortens the stop, begun or to come, as `bouncer run` does on a signal: no grace after stdin
   * ends, SIGTERM to the group at once, SIGKILL at most 1 s later.
   *
   * A wrapped server (`bouncer run`) gets the SIGTERM at once but not the short SIGKILL: after one
   * SIGTERM it stops its upstream's group itself, taking up to its kill delay (SIGTERM, then SIGKILL
   * 2 s later), and a SIGKILL 1 s after doctor's SIGTERM left that upstream running. Its stop stays
   * the full staged one (grace after stdin ends, SIGTERM, the same kill delay, SIGKILL), which lasts
   * longer than `bouncer run`'s; its second SIGTERM, at the end of the grace, makes `bouncer run`
   * hurry its own stop (SIGKILL at most 1 s later), well before doctor's SIGKILL.
   *
   * Source: SPEC §3.3 ("No process Bouncer started outlives it").
   */
  hurry(): void {
    if (this.#launch.wrapped !== true) {
      this.#hurry.abort();
      return;
    }
    const server = this.#server;
    if (this.#termSent || server === undefined || server.hasExited()) return;
    this.#termSent = true;
    signalProcessTree(server.pid, "SIGTERM");
  }

  /** SIGKILL to the server's group if anything of it is left, synchronously (an exit handler's). */
  killNow(): void {
    if (this.#server !== undefined) killUpstreamNow(this.#server);
  }

  /**
   * Why the transport ended on its own, if it did: the server exited before it was closed (`The
   * server exited (code 3)`), or the transport gave it up (a line over the SDK's 10 MiB limit), then
   * closed (pending requests fail with "Connection closed") and the server is stopped.
   */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** The last 8 KiB of the server's stderr. */
  stderrTail(): string {
    return this.#server?.stderrTail() ?? "";
  }

  async #stop(): Promise<void> {
    const server = this.#server;
    if (server !== undefined) {
      // Its group may outlive it (a child left running when it exited): stopped all the same.
      await stopUpstream(server, { hurry: this.#hurry.signal });
      // A descendant that left the group may hold the pipes: doctor must not wait for it.
      server.releasePipes();
    }
    this.#finish();
  }

  #fail(reason: string): void {
    this.#failure = reason;
    this.#buffer.clear();
    this.hurry();
    // Closed at once, so that the client's pending request fails now; the stop goes on meanwhile.
    this.#finish();
    void this.close();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}

/**
 * Why a server that exited on its own ended the session.
 * @param exit - How it ended.
 * @returns E.g. `The server exited (code 3)`, `The server exited (signal SIGKILL)`.
 */
function exitReason(exit: UpstreamExit): string {
  if (exit.error !== undefined) return `The server could not run: ${exit.error}`;
  return exit.signal !== null
    ? `The server exited (signal ${exit.signal})`
    : `The server exited (code ${exit.code})`;
}
