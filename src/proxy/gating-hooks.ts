/**
 * Where `bouncer run` gets its interception hooks: {@link createGatingHooks} builds the gate's
 * hooks for one session (policy, pins, asks, audit log, recording). The gate is not wired here yet,
 * so these hooks FAIL CLOSED: every `tools/call` is answered `[bouncer blocked] …` and nothing is
 * forwarded — `bouncer run` never runs ungated. Everything else (handshake, tools/list, resources,
 * prompts, …) is relayed. Edge.
 *
 * Source: SPEC §2.1 ("when in doubt, ask; when asking is impossible, deny"), §3.1, §3.2.
 * @module
 */

import { passThroughHooks, type RelayContext, type RelayHooks } from "./relay-hooks.ts";
import type { RunOptions } from "./run-args.ts";

/** What the gating hooks are built from. */
export interface GatingSetup {
  /** The parsed `bouncer run` flags (policy files, pins, mode, ask limits, audit log, record). */
  readonly run: RunOptions;
  /** The upstream as configured (the executable is resolved later, at spawn). */
  readonly upstream: {
    readonly name: string;
    readonly command: string;
    readonly args: readonly string[];
    readonly cwd: string;
  };
  /** Bouncer's home directory (`$BOUNCER_HOME`, default `~/.bouncer`). */
  readonly home: string;
  /** One diagnostic line to stderr. */
  readonly log: (message: string) => void;
}

/** The message a call gets while the gate is not wired. */
const NOT_WIRED =
  "[bouncer blocked] this build of bouncer run has no gate wired in yet, so no tool call is forwarded";

/**
 * Builds the hooks that gate one session.
 *
 * TODO(gate): replace the body with the gate from `./gate.ts`: load and validate the policy from
 * `setup.run.policies` here (before the upstream is spawned; an invalid policy makes
 * `onClientInitialize` return `{ kind: "error", error, exitCode: 2 }`), walk `tools/list` with
 * `context.requestUpstream` from `onInitialized` and `onToolsListChanged` and expose the walk through
 * `whenReady`, answer `onToolsList` from the walk, decide in `onToolCall` (ask with
 * `context.requestClient("elicitation/create", …)`, honouring `call.signal`), record in
 * `onToolResult` / `onUpstreamResult`, audit in `onNoise` / `onDroppedCall` / `onUpstreamExit`, and
 * flush the audit log in `onShutdown`.
 *
 * Source: SPEC §3.1, §3.2.
 * @param context - What hooks may do (own requests to the client and upstream, session facts).
 * @param setup - Flags, upstream, home and logger.
 * @returns Hooks that relay everything but deny every tools/call.
 */
export function createGatingHooks(context: RelayContext, setup: GatingSetup): RelayHooks {
  setup.log("The gate is not wired into this build: every tools/call is blocked (fail closed)");
  void context;
  return {
    ...passThroughHooks(),
    onToolCall: () =>
      Promise.resolve({
        kind: "result",
        result: { content: [{ type: "text", text: NOT_WIRED }], isError: true },
      }),
  };
}
