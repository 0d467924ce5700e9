/**
 * Helpers for the proxy's end-to-end tests: start Bouncer (through `src/cli.ts`, or through the
 * pass-through test entry) over real stdio, drive it with the SDK's real `Client` or line by line,
 * and wait with deadlines that only guard against hangs (STYLE #24, SPEC §3.3: no wall-clock
 * assertions).
 */

import { afterEach } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** The repository root. */
export const ROOT = resolve(import.meta.dir, "../../..");
/** The Bun executable running the tests (also runs Bouncer and the TypeScript fixtures). */
export const BUN = process.execPath;
export const FS_SERVER = join(ROOT, "node_modules/.bin/mcp-server-filesystem");
export const EVERYTHING_SERVER = join(ROOT, "node_modules/.bin/mcp-server-everything");
export const FRAMING_UPSTREAM = join(ROOT, "tests/fixtures/servers/framing-upstream.ts");
export const STUBBORN_TREE = join(ROOT, "tests/fixtures/servers/stubborn-tree.sh");

/** How Bouncer is started: the real CLI, or the test entry with pass-through hooks. */
export type Entry = "cli" | "pass";

/**
 * The command line that starts Bouncer.
 * @param entry - Which entry.
 * @param runArgs - The arguments after `run`.
 * @returns Command and arguments.
 */
export function bouncerCommand(
  entry: Entry,
  runArgs: readonly string[],
): { command: string; args: string[] } {
  const script = entry === "cli" ? ["src/cli.ts", "run"] : ["tests/proxy/support/pass-through-entry.ts"];
  return { command: BUN, args: [...script.map((s) => (s.endsWith(".ts") ? join(ROOT, s) : s)), ...runArgs] };
}

/** A fresh BOUNCER_HOME so no test touches ~/.bouncer. */
export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), "bouncer-home-"));
}

/**
 * Rejects after `ms` (a hang guard, never a timing assertion).
 * @param promise - What to wait for.
 * @param ms - The guard.
 * @param what - For the message.
 * @returns The promise's value.
 */
export async function deadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Hang guard: ${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls until a condition holds (hang guard only).
 * @param condition - Checked every 50 ms.
 * @param ms - The guard.
 * @param what - For the message.
 */
export async function waitUntil(condition: () => boolean, ms: number, what: string): Promise<void> {
  const end = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > end) throw new Error(`Hang guard: ${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Whether a process is still running (a zombie waiting to be reaped counts as gone).
 * @param pid - The pid.
 * @returns True while it runs.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return process.platform !== "linux";
  }
}

/** An SDK client connected over real stdio. */
export interface Connected {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly stderr: () => string;
}

/**
 * Connects the SDK's real Client to a command over stdio.
 * @param command - The executable.
 * @param options - Arguments, env additions, client capabilities, working directory.
 * @returns The connected client.
 */
export async function connect(
  command: string,
  options: {
    readonly args: readonly string[];
    readonly env?: Record<string, string>;
    readonly capabilities?: Record<string, unknown>;
    readonly setup?: (client: Client) => void;
    /** The working directory (default: the repository root). */
    readonly cwd?: string;
  },
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command,
    args: [...options.args],
    env: { ...(process.env as Record<string, string>), ...options.env },
    cwd: options.cwd ?? ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client(
    { name: "bouncer-test-client", version: "1.0.0" },
    { capabilities: options.capabilities ?? {} },
  );
  options.setup?.(client);
  await deadline(client.connect(transport), 30_000, "connect");
  return { client, transport, stderr: () => stderr };
}

/** A process driven line by line. */
export interface LineSession {
  readonly child: ChildProcess;
  /** Writes one message (an object is serialised) and a newline. */
  send(message: unknown): void;
  /** Resolves with the first line (parsed) satisfying the predicate, seen or to come. */
  next(
    predicate: (message: Record<string, unknown>) => boolean,
    what: string,
    ms?: number,
  ): Promise<Record<string, unknown>>;
  /** Every stdout line so far, as written. */
  readonly lines: string[];
  readonly stderr: () => string;
  /** Resolves with the exit code (or signal). */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
}

/**
 * Starts a process and collects its stdout lines.
 * @param command - The executable.
 * @param args - Its arguments.
 * @param env - Environment additions.
 * @returns The session.
 */
export function startLines(
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
): LineSession {
  const child = spawn(command, [...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: {
    predicate: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }[] = [];
  let buffered = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      lines.push(line);
      const message = JSON.parse(line) as Record<string, unknown>;
      for (const waiter of [...waiters]) {
        if (waiter.predicate(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  });
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdin?.on("error", () => {});
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    send(message) {
      child.stdin?.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
    },
    next(predicate, what, ms = 20_000) {
      for (const line of lines) {
        const message = JSON.parse(line) as Record<string, unknown>;
        if (predicate(message)) return Promise.resolve(message);
      }
      return deadline(new Promise((resolve) => waiters.push({ predicate, resolve })), ms, what);
    },
  };
}

/** The client's `initialize` request as a line. */
export function initializeRequest(
  id: number | string = 0,
  capabilities: Record<string, unknown> = {},
): unknown {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities,
      clientInfo: { name: "line-client", version: "1" },
    },
  };
}

/** What a test file started and made, cleaned up after each of its tests by {@link cleanedAfterEach}. */
export interface Started {
  /** Sessions to end (stdin closed, exit awaited). */
  readonly sessions: LineSession[];
  /** Folders to remove. */
  readonly dirs: string[];
}

/**
 * Registers, for the calling test file, an `afterEach` that ends every session pushed to
 * `sessions` (closes its stdin and waits for its exit) and removes every folder pushed to `dirs`.
 * Call it once at the top level of a test file.
 * @param timeoutMs - The hook's hang guard.
 * @returns The lists to push to.
 */
export function cleanedAfterEach(timeoutMs: number): Started {
  const started: Started = { sessions: [], dirs: [] };
  afterEach(async () => {
    for (const session of started.sessions.splice(0)) {
      session.child.stdin?.end();
      await session.exited;
    }
    for (const dir of started.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }, timeoutMs);
  return started;
}
