/**
 * The process around `bouncer run`: which upstream to launch (after `--`, or from a client config's
 * stash), and the handlers for signals, the parent's death, the process's exit and stray errors.
 * Edge.
 *
 * Source: SPEC §3.3 (SIGTERM, SIGINT, SIGHUP; parent gone; no process left behind), §5.1 (`--config`).
 * @module
 */

// A deep import on purpose (STYLE #9 otherwise): `bouncer run` loads this before it spawns the upstream: not the whole engine (SPEC §3.2 step 1).
import { errorText } from "../engine/error-text.ts";
import { watchParent } from "../platform/parent-watch.ts";
import type { UpstreamProcess } from "../platform/spawn-upstream.ts";
import { stopSignals } from "../platform/stop-signals.ts";
import { killUpstreamNow } from "../platform/stop-upstream.ts";
import type { ShutdownReason } from "./relay-hooks.ts";
import type { RunOptions, UpstreamLaunch } from "./run-args.ts";

/**
 * The upstream to launch: after `--`, or from the client config's stash (its JSONC and TOML parsers
 * are loaded only then).
 *
 * Source: SPEC §5.1.
 * @param run - The flags.
 * @param cwd - Bouncer's working directory.
 * @returns The launch.
 * @throws {BouncerError} From `readUpstreamStash`.
 */
export async function upstreamLaunch(run: RunOptions, cwd: string): Promise<UpstreamLaunch> {
  const [command, ...args] = run.command ?? [];
  if (command !== undefined) return { command, args, cwd, source: "argv" };
  const { readUpstreamStash } = await import("./config-stash.ts");
  return readUpstreamStash(run.config ?? "", { name: run.upstreamName, cwd });
}

/**
 * Signals, parent death, process exit and stray errors (no unhandled rejection ever ends Bouncer
 * without stopping the upstream).
 *
 * Source: SPEC §3.3.
 * @param hooks - The logger, the shutdown and the current upstream.
 * @returns Functions removing each handler.
 */
export function installProcessHandlers(hooks: {
  readonly log: (message: string) => void;
  readonly shutdown: (reason: ShutdownReason, code: number) => Promise<void>;
  readonly upstream: () => UpstreamProcess | undefined;
}): (() => void)[] {
  const onSignal = (): void => void hooks.shutdown("signal", 0);
  const signals = stopSignals();
  for (const signal of signals) process.on(signal, onSignal);
  const onExit = (): void => {
    const child = hooks.upstream();
    if (child !== undefined) killUpstreamNow(child);
  };
  process.on("exit", onExit);
  const onRejection = (reason: unknown): void => {
    hooks.log(`Internal error (unhandled rejection): ${errorText(reason)}`);
  };
  const onException = (error: Error): void => {
    hooks.log(`Internal error: ${error.message}`);
    void hooks.shutdown("session_ended", 1);
  };
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  const stopWatch = watchParent({ onGone: () => void hooks.shutdown("parent_gone", 0) });
  return [
    () => {
      for (const signal of signals) process.off(signal, onSignal);
    },
    () => process.off("exit", onExit),
    () => process.off("unhandledRejection", onRejection),
    () => process.off("uncaughtException", onException),
    stopWatch,
  ];
}
