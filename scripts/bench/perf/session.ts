/**
 * How the bench starts the servers it measures: the same upstream command run directly or behind
 * `bouncer run` (from source, `bun src/cli.ts run`, or the compiled binary), with the handshake every
 * MCP client does first (`initialize`, `notifications/initialized`, `tools/list`).
 *
 * Source: SPEC §3.2 (handshake), §7; issue 6 part 2.
 * @module
 */

import { join } from "node:path";
import { type LineClient, spawnLineClient } from "./line-client.ts";

/** The repository root. */
export const ROOT = join(import.meta.dir, "../../..");

/** The protocol version the bench's client offers. */
const PROTOCOL_VERSION = "2025-06-18";

/** How long each step of opening a session may take before the bench gives up on it (ms, default). */
const SESSION_STEP_MS = 60_000;

/** One upstream server under test. */
export interface Upstream {
  /** `--upstream-name` and the label in tables. */
  readonly name: string;
  /** The command that starts it. */
  readonly command: readonly string[];
  /** The `tools/call` request text timed in loops (`@ID@` where the id goes). */
  readonly callTemplate: string;
}

/** How Bouncer (or the minimal relay standing in for it) is started. */
export interface BouncerLaunch {
  /**
   * `source` (`bun src/cli.ts`), `binary` (a compiled executable), or `relay` (the minimal line relay
   * of minimal-relay.ts: the floor under any stdio proxy here, not Bouncer).
   */
  readonly kind: "source" | "binary" | "relay";
  /** The command up to and including `run`. */
  readonly prefix: readonly string[];
  /** The policy file given with `--policy`. */
  readonly policy: string;
  /** The environment (a temporary `BOUNCER_HOME`). */
  readonly env: Record<string, string | undefined>;
}

/**
 * The `bun src/cli.ts run` launch of the repository's source.
 * @param options - Policy file and environment.
 * @returns The launch.
 */
export function sourceLaunch(options: {
  readonly policy: string;
  readonly env: Record<string, string | undefined>;
}): BouncerLaunch {
  return { kind: "source", prefix: [process.execPath, join(ROOT, "src/cli.ts"), "run"], ...options };
}

/**
 * The minimal line relay (minimal-relay.ts) in Bouncer's place.
 * @param bouncer - The launch whose policy and environment it takes (and ignores).
 * @returns The launch.
 */
export function relayLaunch(bouncer: BouncerLaunch): BouncerLaunch {
  return { ...bouncer, kind: "relay", prefix: [process.execPath, join(import.meta.dir, "minimal-relay.ts")] };
}

/**
 * The full command line of an upstream run directly or behind Bouncer.
 * @param upstream - The server.
 * @param bouncer - Bouncer's launch, or undefined for the direct run.
 * @returns Executable and arguments.
 */
export function commandLine(upstream: Upstream, bouncer: BouncerLaunch | undefined): readonly string[] {
  if (bouncer === undefined) return upstream.command;
  return [
    ...bouncer.prefix,
    "--upstream-name",
    upstream.name,
    "--policy",
    bouncer.policy,
    "--",
    ...upstream.command,
  ];
}

/**
 * Sends `initialize` and waits for its answer.
 * @param client - The client.
 * @returns The answer.
 * @throws {Error} When the answer is an error.
 */
export async function initialize(client: LineClient): Promise<Record<string, unknown>> {
  const answer = await client.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "bouncer-bench-perf", version: "1.0.0" },
  });
  if (!Object.hasOwn(answer, "result")) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * Waits for one step of opening a session.
 * @param step - What is awaited, for the error.
 * @param work - The step's answer.
 * @param limitMs - How long it may take.
 * @returns The answer.
 * @throws {Error} When no answer came in time.
 */
async function within<T>(step: string, work: Promise<T>, limitMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step}: no answer within ${limitMs / 1000} s`)), limitMs);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts a server and completes the handshake a client does before its first call; the child is
 * stopped again when a step fails or does not answer in time.
 * @param upstream - The server.
 * @param bouncer - Bouncer's launch, or undefined for the direct run.
 * @param options - `stepMs`: how long each step may take (default {@link SESSION_STEP_MS}).
 * @returns The client, ready for `tools/call`.
 * @throws {Error} When the handshake or a first call fails or hangs.
 */
export async function openSession(
  upstream: Upstream,
  bouncer: BouncerLaunch | undefined,
  options: { readonly stepMs?: number } = {},
): Promise<LineClient> {
  const stepMs = options.stepMs ?? SESSION_STEP_MS;
  const client = spawnLineClient(
    commandLine(upstream, bouncer),
    bouncer === undefined ? {} : { env: bouncer.env },
  );
  try {
    await within(`initialize of ${upstream.name}`, initialize(client), stepMs);
    client.notify("notifications/initialized");
    const list = await within(`tools/list of ${upstream.name}`, client.request("tools/list", {}), stepMs);
    if (!Object.hasOwn(list, "result")) throw new Error(`tools/list failed: ${JSON.stringify(list)}`);
    const first = await within(
      `The first call of ${upstream.name}`,
      client.requestText(upstream.callTemplate),
      stepMs,
    );
    if (
      !first.includes('"result"') ||
      first.includes("[bouncer blocked]") ||
      first.includes('"isError":true')
    ) {
      throw new Error(`The first call of ${upstream.name} did not succeed: ${first.slice(0, 300)}`);
    }
    return client;
  } catch (error) {
    await client.close(2000, "SIGTERM");
    throw error;
  }
}
