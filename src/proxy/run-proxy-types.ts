/**
 * What `runProxy` (run-proxy.ts) is given: the process's streams, injected, and the options
 * tests and the CLI set (hooks factory, environment, working directory, frame limit, shutdown
 * delays, the policy check before the spawn). Declarations only. Edge.
 *
 * Source: SPEC §3.2, §3.3; STYLE #15, #18.
 * @module
 */

import type { Readable, Writable } from "node:stream";
import type { StderrFlow } from "../platform/stderr-output.ts";
import type { GatingSetup } from "./gating-hooks.ts";
import type { RelayContext, RelayHooks } from "./relay-hooks.ts";
import type { precheckRunPolicy } from "./run-policy.ts";

/** The process's streams, injected. */
export interface RunProxyIo {
  /** The client's messages (Bouncer's stdin). */
  readonly stdin: Readable;
  /** JSON-RPC to the client only (Bouncer's stdout). */
  readonly stdout: Writable;
  /** Diagnostics (Bouncer's stderr). */
  readonly writeStderr: (text: string) => void;
  /**
   * Whether that stderr is backed up, when known (`StderrOutput`): the upstream's stderr is not
   * drained meanwhile, so a flood of it cannot grow Bouncer's memory.
   */
  readonly stderrFlow?: StderrFlow;
}

/** Options of `runProxy`. */
export interface RunProxyOptions {
  /**
   * Builds the session's hooks (default `createGatingHooks`, imported and built once the client's
   * `initialize` is relayed, behind `deferredHooks`; tests pass pass-through hooks).
   */
  readonly createHooks?: (context: RelayContext, setup: GatingSetup) => RelayHooks;
  /** The environment (default `process.env`); the upstream inherits it. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Bouncer's working directory (default `process.cwd()`). */
  readonly cwd?: string;
  /** Frame limit (default 64 MiB). */
  readonly maxLineBytes?: number;
  /** Grace after closing the upstream's stdin (default 2,000 ms). */
  readonly graceMs?: number;
  /** Delay between SIGTERM and SIGKILL (default 2,000 ms). */
  readonly killAfterMs?: number;
  /**
   * The check of the `--policy` files before the spawn (default `precheckRunPolicy`; tests replace
   * it to reach the `yaml` library's reading after the spawn).
   */
  readonly precheckPolicy?: typeof precheckRunPolicy;
  /** Install signal, exit and parent-death handlers on the process (default true). */
  readonly processHandlers?: boolean;
}
