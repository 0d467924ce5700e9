/**
 * A minimal JSON-RPC client over a child's stdio, one message per line — the same client for the
 * direct and the proxied runs, so its own cost cancels out of every difference. It spawns the
 * command (Bun.spawn), frames stdout on `\n`, matches answers to requests by numeric id and keeps no
 * other state. Server-to-client requests are answered with an empty result (none are expected).
 *
 * Source: SPEC §7 (baseline in the same run); issue 6 part 2.
 * @module
 */

import type { Subprocess } from "bun";

/** A spawned MCP server (direct, or `bouncer run` in front of one) with a line client attached. */
export interface LineClient {
  /** The child's pid. */
  readonly pid: number;
  /**
   * Sends one request and resolves with the parsed answer (result or error object).
   * @param method - The JSON-RPC method.
   * @param params - Its params.
   */
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * Sends one request as prepared text (`@ID@` replaced by the id) and resolves with the answer's
   * raw line: the cheapest path, used in timed loops.
   * @param template - The request text with `@ID@` where the id goes.
   */
  requestText(template: string): Promise<string>;
  /**
   * Sends a notification.
   * @param method - The method.
   * @param params - Its params.
   */
  notify(method: string, params?: Record<string, unknown>): void;
  /**
   * Closes stdin (or sends `signal`) and waits for the child to exit; SIGKILL after `graceMs`.
   * @param graceMs - How long to wait before SIGKILL (default 3,000).
   * @param signal - A signal to send at once instead of waiting for the child to see stdin close.
   */
  close(graceMs?: number, signal?: "SIGTERM"): Promise<void>;
}

/** Options of {@link spawnLineClient}. */
export interface SpawnOptions {
  readonly env?: Record<string, string | undefined>;
  readonly cwd?: string;
  /** Where the child's stderr goes: inherited, ignored (default), or appended to this file. */
  readonly stderr?: "inherit" | "ignore" | { readonly file: string };
}

const NEWLINE = 10;

/**
 * Spawns a command and attaches a line client to its stdio.
 * @param command - Executable and arguments.
 * @param options - Environment, working directory, stderr.
 * @returns The client.
 */
export function spawnLineClient(command: readonly string[], options: SpawnOptions = {}): LineClient {
  const stderr = options.stderr ?? "ignore";
  const child: Subprocess<"pipe", "pipe", "inherit" | "ignore"> = Bun.spawn([...command], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: typeof stderr === "string" ? stderr : Bun.file(stderr.file),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const waiting = new Map<number, { resolve: (line: string) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  const decoder = new TextDecoder();
  let closed = false;

  const onLine = (line: string): void => {
    const match = /"id":(\d+)[,}]/.exec(line);
    const hasMethod = line.includes('"method":');
    if (hasMethod && match !== null) {
      // A server-to-client request: answer with an empty result.
      write(`{"jsonrpc":"2.0","id":${match[1]},"result":{}}`);
      return;
    }
    if (match === null) return;
    const id = Number(match[1]);
    const waiter = waiting.get(id);
    if (waiter === undefined) return;
    waiting.delete(id);
    waiter.resolve(line);
  };

  const pump = async (): Promise<void> => {
    let pending: Uint8Array[] = [];
    const reader = child.stdout.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      let start = 0;
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, at);
        if (pending.length === 0) onLine(decoder.decode(piece));
        else {
          pending.push(piece);
          onLine(decoder.decode(Buffer.concat(pending)));
          pending = [];
        }
        start = at + 1;
      }
      if (start < chunk.length) pending.push(chunk.slice(start));
    }
  };
  let gone: Error | undefined;
  const pumping = pump()
    .catch(() => undefined)
    .then(async () => {
      const code = await child.exited;
      gone = new Error(`${command[0]} closed its output (exit ${code}) before answering`);
      for (const waiter of waiting.values()) waiter.reject(gone);
      waiting.clear();
    });

  function write(text: string): void {
    if (closed || gone !== undefined) return;
    try {
      child.stdin.write(`${text}\n`);
      child.stdin.flush();
    } catch {
      // The child is gone: its output closes and every waiting request is rejected.
    }
  }

  function requestText(template: string): Promise<string> {
    if (gone !== undefined) return Promise.reject(gone);
    const id = nextId++;
    const answer = new Promise<string>((resolve, reject) => waiting.set(id, { resolve, reject }));
    write(template.replace("@ID@", String(id)));
    return answer;
  }

  return {
    pid: child.pid,
    async request(method, params) {
      const template = `{"jsonrpc":"2.0","id":@ID@,"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
      return JSON.parse(await requestText(template)) as Record<string, unknown>;
    },
    requestText,
    notify(method, params) {
      write(JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }));
    },
    async close(graceMs = 3000, signal) {
      closed = true;
      try {
        child.stdin.end();
      } catch {
        // Already closed.
      }
      if (signal !== undefined) child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await child.exited;
      clearTimeout(timer);
      await pumping;
    },
  };
}
