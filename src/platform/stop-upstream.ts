/**
 * Staged shutdown of an upstream tree: close its stdin, wait a grace period for it to exit, signal
 * the whole tree with SIGTERM, wait again, then SIGKILL. Bounded in time even for a server that ignores
 * EOF and traps SIGTERM. Edge.
 *
 * Source: SPEC §3.3 ("close the upstream's stdin, and after a 2 s grace … SIGTERM, then SIGKILL 2 s
 * later"), STYLE #17, field case F06.
 * @module
 */

import {
  anyStrayAlive,
  isProcessTreeAlive,
  type StrayProcess,
  signalProcessTree,
  signalStrays,
  strayDescendants,
} from "./kill-tree.ts";
import type { UpstreamProcess } from "./spawn-upstream.ts";

/** Options of {@link stopUpstream}. */
export interface StopUpstreamOptions {
  /** How long the upstream may take to exit after its stdin closes (default 2,000 ms; 0 = at once). */
  readonly graceMs?: number;
  /** How long after SIGTERM before SIGKILL (default 2,000 ms). */
  readonly killAfterMs?: number;
  /** Poll interval while waiting for the tree to disappear (default 50 ms). */
  readonly pollMs?: number;
  /**
   * Aborted when Bouncer is signalled during the stop (a client closing as the SDK does: stdin end,
   * SIGTERM 2 s later, SIGKILL 2 s after that): the grace ends at once, and SIGKILL comes at most
   * {@link StopUpstreamOptions.hurryKillMs} after the abort, before the client's own SIGKILL.
   */
  readonly hurry?: AbortSignal;
  /** SIGKILL at most this long after a hurry (default 1,000 ms). */
  readonly hurryKillMs?: number;
  readonly platform?: "posix" | "win32";
}

/**
 * Resolves after a delay.
 * @param ms - Milliseconds.
 * @returns A promise.
 */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits until a condition holds or a deadline passes.
 * @param done - The condition.
 * @param options - Time limit and poll interval.
 * @returns True if the condition held in time.
 */
async function waitFor(
  done: () => boolean,
  options: { readonly ms: number; readonly pollMs: number; readonly deadline?: () => number },
): Promise<boolean> {
  const start = performance.now();
  const deadline = options.deadline ?? (() => start + options.ms);
  while (!done()) {
    if (performance.now() >= deadline()) return false;
    await sleep(Math.min(options.pollMs, Math.max(1, deadline() - performance.now())));
  }
  return true;
}

/**
 * How long a stop waits after closing the upstream's stdin before SIGTERM (ms; SPEC §3.3).
 *
 * Source: SPEC §3.3 ("close its stdin, wait a grace period, then SIGTERM, then SIGKILL").
 */
export const STOP_GRACE_MS = 2000;

/**
 * How long a stop waits after SIGTERM before SIGKILL of the whole group (ms; SPEC §3.3).
 *
 * Source: SPEC §3.3.
 */
export const STOP_KILL_AFTER_MS = 2000;

/**
 * Stops the upstream and every process of its group, and (Linux) the descendants that left the
 * group, found before its stdin is closed. Never throws.
 *
 * Source: SPEC §3.3.
 * @param upstream - The running upstream.
 * @param options - Grace and kill delays.
 * @returns Whether the tree was gone at the end.
 */
export async function stopUpstream(
  upstream: UpstreamProcess,
  options: StopUpstreamOptions = {},
): Promise<boolean> {
  const graceMs = options.graceMs ?? STOP_GRACE_MS;
  const killAfterMs = options.killAfterMs ?? STOP_KILL_AFTER_MS;
  const pollMs = options.pollMs ?? 50;
  const hurryKillMs = options.hurryKillMs ?? 1000;
  const tree = { platform: options.platform ?? (process.platform === "win32" ? "win32" : "posix") } as const;
  let hurriedAt = options.hurry?.aborted === true ? performance.now() : undefined;
  const onHurry = (): void => {
    hurriedAt ??= performance.now();
  };
  options.hurry?.addEventListener("abort", onHurry, { once: true });
  // Found before its stdin closes, while the upstream lives: once it exits, they are re-parented.
  const strays = tree.platform === "posix" ? strayDescendants(upstream.pid) : [];
  try {
    upstream.stdin.end();
  } catch {
    // Already closed.
  }
  // The direct child counts until it has exited: its group may not exist yet.
  const gone = (): boolean =>
    upstream.hasExited() && !isProcessTreeAlive(upstream.pid, tree) && !anyStrayAlive(strays);
  const signal = (name: "SIGTERM" | "SIGKILL"): void => {
    // An exited upstream whose group is gone is not signalled: its pid may be another's by now.
    if (!upstream.hasExited() || isProcessTreeAlive(upstream.pid, tree))
      signalProcessTree(upstream.pid, name, tree);
    signalStrays(strays, name);
  };
  try {
    if (graceMs > 0)
      await waitFor(() => upstream.hasExited() || hurriedAt !== undefined, { ms: graceMs, pollMs });
    if (gone()) return true;
    signal("SIGTERM");
    const termAt = performance.now();
    const killAt = (): number =>
      Math.min(
        termAt + killAfterMs,
        hurriedAt === undefined ? Number.POSITIVE_INFINITY : hurriedAt + hurryKillMs,
      );
    if (await waitFor(gone, { ms: killAfterMs, pollMs, deadline: killAt })) return true;
  } finally {
    options.hurry?.removeEventListener("abort", onHurry);
  }
  signal("SIGKILL");
  return waitFor(gone, { ms: 500, pollMs });
}

/**
 * Kills the tree at once and synchronously (for `process.on("exit")`, where nothing async runs).
 *
 * Source: STYLE #17 ("register exit handlers so children die when Bouncer dies").
 * @param upstream - The upstream.
 * @param options - Platform override.
 */
export function killUpstreamNow(
  upstream: UpstreamProcess,
  options: { readonly platform?: "posix" | "win32" } = {},
): void {
  const tree = { platform: options.platform ?? (process.platform === "win32" ? "win32" : "posix") } as const;
  const strays: readonly StrayProcess[] = tree.platform === "posix" ? strayDescendants(upstream.pid) : [];
  if (isProcessTreeAlive(upstream.pid, tree)) signalProcessTree(upstream.pid, "SIGKILL", tree);
  signalStrays(strays, "SIGKILL");
}
