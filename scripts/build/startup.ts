/**
 * Start-up cost of a compiled executable: the time from spawning a stdio MCP server (Bouncer wrapping
 * an upstream, or the upstream alone) until its answer to `initialize` arrives, and the time of
 * `bouncer --version` (wall and CPU time). Summarised as median, minimum and maximum over several runs;
 * used by the build report only, never by a test assertion (tests do not assert wall-clock time). Edge
 * (build tooling).
 *
 * Source: SPEC §7 ("time to answer initialize through Bouncer vs directly"), issue 5 item 4.
 * @module
 */

/** Options of a measurement. */
export interface MeasureOptions {
  /** How many runs (default 15). */
  readonly runs?: number;
  /** Environment of the spawned process (default the current one). */
  readonly env?: Record<string, string>;
  /** Working folder (default the current one). */
  readonly cwd?: string;
  /** Give up on one run after this many milliseconds (a hang guard; default 20 000). */
  readonly deadlineMs?: number;
}

/** Summary of timed runs, in milliseconds. */
export interface Timing {
  readonly runs: number;
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bouncer-build-startup", version: "0" },
  },
})}\n`;

/**
 * Summarises samples.
 * @param samples - Durations in milliseconds (non-empty).
 * @returns Median, minimum and maximum, rounded to 0.1 ms.
 */
export function summarise(samples: readonly number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const round = (value: number): number => Math.round(value * 10) / 10;
  return {
    runs: sorted.length,
    medianMs: round(median),
    minMs: round(sorted[0]!),
    maxMs: round(sorted[sorted.length - 1]!),
  };
}

/**
 * Spawns a stdio MCP server once, sends `initialize`, and times the arrival of its response.
 * @param command - The server's command line.
 * @param options - Environment, folder and hang guard.
 * @returns Milliseconds from spawn to the response line.
 * @throws {Error} When the process exits or the deadline passes before a response with id 1.
 */
export async function timeInitializeOnce(
  command: readonly string[],
  options: MeasureOptions,
): Promise<number> {
  const started = performance.now();
  const child = Bun.spawn([...command], {
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? { ...process.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  // A server that exits at once can close its stdin before the request is written (EPIPE): that
  // is the same failure as closing stdout before answering, found by reading below.
  try {
    child.stdin.write(INITIALIZE);
    await child.stdin.flush();
  } catch {}
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const deadline = setTimeout(() => child.kill("SIGKILL"), options.deadlineMs ?? 20_000);
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done)
        throw new Error(`Cannot time "${command.join(" ")}": it closed stdout before answering`);
      buffered += decoder.decode(chunk.value, { stream: true });
      let newline = buffered.indexOf("\n");
      while (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (isResponseToInitialize(line)) return performance.now() - started;
        newline = buffered.indexOf("\n");
      }
    }
  } finally {
    clearTimeout(deadline);
    reader.releaseLock();
    try {
      child.stdin.end();
    } catch {}
    child.kill("SIGTERM");
    await child.exited;
  }
}

/**
 * Whether a line is the JSON-RPC response with id 1.
 * @param line - One line of stdout.
 * @returns True for the answer to the measured `initialize`.
 */
function isResponseToInitialize(line: string): boolean {
  try {
    const message: unknown = JSON.parse(line);
    return typeof message === "object" && message !== null && Reflect.get(message, "id") === 1;
  } catch {
    return false;
  }
}

/**
 * Times `initialize` over several fresh spawns of a server.
 * @param command - The server's command line (e.g. `bouncer run ... -- fixture`).
 * @param options - Runs, environment, folder, hang guard.
 * @returns The timing summary.
 * @throws {Error} When a run fails (see {@link timeInitializeOnce}).
 */
export async function measureInitialize(
  command: readonly string[],
  options: MeasureOptions = {},
): Promise<Timing> {
  const samples: number[] = [];
  for (let run = 0; run < (options.runs ?? 15); run += 1) {
    samples.push(await timeInitializeOnce(command, options));
  }
  return summarise(samples);
}

/** One run of a command that runs to completion. */
export interface CommandSample {
  /** Wall time from spawn to exit. */
  readonly wallMs: number;
  /** CPU time (user + system) of the process itself: steadier than wall time on a loaded machine. */
  readonly cpuMs: number;
}

/**
 * Times one run of a command that runs to completion (e.g. `bouncer --version`).
 * @param command - The command line.
 * @param options - Environment and folder.
 * @returns Wall and CPU time.
 * @throws {Error} When it exits non-zero.
 */
export async function timeCommandOnce(
  command: readonly string[],
  options: MeasureOptions = {},
): Promise<CommandSample> {
  const started = performance.now();
  const child = Bun.spawn([...command], {
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? { ...process.env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  const code = await child.exited;
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`Cannot time "${command.join(" ")}": it exited with ${code}`);
  const usage = child.resourceUsage();
  const cpuMs = usage === undefined ? Number.NaN : Number(usage.cpuTime.total) / 1000;
  return { wallMs, cpuMs };
}
