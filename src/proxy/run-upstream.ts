/**
 * `bouncer run`'s upstream process: spawn it (or say why it could not start), feed its output to
 * the relay's framer, and report its end once — its exit, or its output closing while it lives on —
 * as the failure every request then gets. `run-proxy.ts` owns the session around it. Edge.
 *
 * Source: SPEC §3.2 step 1, §3.3 (upstream death answered at once; its secrets hidden in its stderr,
 * §3.5); field case F07.
 * @module
 */

import { redactTokens } from "../audit/redact.ts";
import { environmentHider } from "../audit/redact-env.ts";
// A deep import on purpose (STYLE #9 otherwise): `bouncer run` loads this before it spawns the upstream: not the whole engine (SPEC §3.2 step 1).
import { escapeControls } from "../engine/render.ts";
import { isBouncerError } from "../platform/errors.ts";
import { readEnv } from "../platform/resolve-command.ts";
import { spawnUpstream, type UpstreamExit, type UpstreamProcess } from "../platform/spawn-upstream.ts";
import type { StderrFlow } from "../platform/stderr-output.ts";
import type { LineFramer } from "./line-framer.ts";
import type { UpstreamFailure } from "./relay-hooks.ts";
import type { UpstreamLaunch } from "./run-args.ts";

/** How long an exit waits for the output to drain, and a closed output for the exit. */
const DRAIN_MS = 250;

/**
 * Waits for a promise, at most `ms` milliseconds.
 * @param promise - What to wait for (its rejection is swallowed).
 * @param ms - The limit, in milliseconds.
 * @returns When either happened.
 */
export async function bounded(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([promise.then(noop, noop), limit]);
  clearTimeout(timer);
}

/** Does nothing. */
function noop(): void {}

/**
 * The error every request gets once the upstream is gone (F07). Its `stderrTail` reaches the client
 * and so the model: token-shaped strings and secret-named fields in it are redacted as in the audit
 * log (the values of secret-named environment variables are hidden already, as it was written).
 *
 * Source: SPEC §3.3; field case F07; §3.5 (redaction); review of `bouncer run` (a token the upstream
 * printed before it died reached the client in clear, while its audit record was redacted).
 * @param name - The upstream name.
 * @param exit - How it ended.
 * @param tail - The last 8 KiB of its stderr.
 * @returns Message and data.
 */
export function describeExit(name: string, exit: UpstreamExit | "eof", tail: string): UpstreamFailure {
  const stderrTail = redactTokens(tail);
  if (exit === "eof") {
    return { message: `Upstream "${escapeControls(name)}" closed its output`, data: { stderrTail } };
  }
  const how =
    exit.error !== undefined
      ? `could not run: ${exit.error}`
      : exit.signal !== null
        ? `exited (signal ${exit.signal})`
        : `exited (code ${exit.code})`;
  return {
    message: `Upstream "${escapeControls(name)}" ${how}`,
    data: { exitCode: exit.code, signal: exit.signal, stderrTail },
  };
}

/**
 * How the upstream's stderr is redacted — what Bouncer's stderr shows, the tail its error data and
 * audit record carry, its stdout noise: the values of the environment's secret-named variables,
 * then token-shaped strings and secret-named fields (`GITHUB_TOKEN=ghp_…`), as the audit log is.
 * The drain redacts the tail before it cuts it, so a token its start would cut is redacted whole.
 *
 * Source: SPEC §3.5 (redaction); review of `bouncer run` (a token the upstream printed reached the
 * client in clear, and a token the tail's cut halved kept most of its characters).
 * @param env - The upstream's environment.
 * @returns The redaction.
 */
function stderrRedaction(env: Readonly<Record<string, string>>): (text: string) => string {
  const hide = environmentHider(env);
  return hide === undefined ? redactTokens : (text) => redactTokens(hide(text));
}

/**
 * Spawns the upstream with Bouncer's environment, the values of its secret-named variables hidden in
 * its stderr (SPEC §3.5).
 *
 * Source: SPEC §3.2 step 1, §3.3.
 * @param spec - The upstream's name and launch (command, arguments, working directory).
 * @param options - The stderr writer (and its back-pressure) and the environment.
 * @returns The process, or the failure requests are answered with (the command, and `PATH` when a
 *   bare command name was searched for).
 * @throws {Error} What the spawn throws that is not a `BouncerError` (a bug, not a missing command).
 */
export function startUpstream(
  spec: { readonly name: string; readonly launch: UpstreamLaunch },
  options: {
    readonly writeStderr: (text: string) => void;
    readonly env: Readonly<Record<string, string | undefined>>;
    /** Bouncer's stderr back-pressure, when known. */
    readonly stderrFlow?: StderrFlow | undefined;
  },
):
  | { readonly kind: "started"; readonly upstream: UpstreamProcess }
  | { readonly kind: "failed"; readonly failure: UpstreamFailure } {
  const { name, launch } = spec;
  const { env } = options;
  try {
    return {
      kind: "started",
      upstream: spawnUpstream(
        { name, command: launch.command, args: launch.args, cwd: launch.cwd },
        {
          writeStderr: options.writeStderr,
          baseEnv: env,
          redactStderr: stderrRedaction,
          ...(options.stderrFlow === undefined ? {} : { stderrFlow: options.stderrFlow }),
        },
      ),
    };
  } catch (error) {
    if (!isBouncerError(error)) throw error;
    const pathValue = readEnv(env, "PATH", process.platform === "win32" ? "win32" : "posix") ?? "";
    // PATH is searched only for a bare command name; for a path it is beside the point.
    const separators = process.platform === "win32" ? /[\\/]/ : /\//;
    const searched = separators.test(launch.command) ? {} : { path: pathValue };
    return {
      kind: "failed",
      failure: { message: error.message, data: { command: launch.command, ...searched } },
    };
  }
}

/**
 * Waits until the upstream's output has ended (every line it wrote read and framed), at most
 * {@link DRAIN_MS}: at shutdown, answers still in the pipe reach the client before the calls left
 * unanswered are given up.
 *
 * Source: SPEC §3.3 ("never a hang"; answers relayed while the upstream shuts down).
 * @param child - The upstream process (stopped, or stopping).
 * @returns A promise that resolves when its stdout ends, errs or closes, or after the bound.
 */
export function outputDrained(child: UpstreamProcess): Promise<void> {
  const { stdout } = child;
  if (stdout.readableEnded || stdout.destroyed) return Promise.resolve();
  const ended = new Promise<void>((resolve) => {
    for (const event of ["end", "error", "close"] as const) stdout.once(event, () => resolve());
  });
  return bounded(ended, DRAIN_MS);
}

/**
 * Feeds the upstream's output to a framer and reports its end once: its exit, after the answers it
 * wrote before have drained (briefly), or its output closing while it lives on (it can answer
 * nothing more, so it counts as gone).
 *
 * Source: SPEC §3.3; field case F07.
 * @param child - The upstream process.
 * @param watch - The upstream name, the framer of its output, and what to do once it is gone.
 */
export function watchUpstream(
  child: UpstreamProcess,
  watch: {
    readonly name: string;
    readonly framer: LineFramer;
    readonly gone: (failure: UpstreamFailure) => void;
  },
): void {
  const { framer } = watch;
  const ended = new Promise<void>((resolve) => {
    child.stdout.on("end", () => {
      framer.end();
      resolve();
    });
    child.stdout.on("error", () => resolve());
  });
  child.stdout.on("data", (chunk: Uint8Array) => framer.push(chunk));
  let reported = false;
  const report = (exit: UpstreamExit | "eof"): void => {
    if (reported) return;
    reported = true;
    watch.gone(describeExit(watch.name, exit, child.stderrTail()));
  };
  // Answers already written before the exit are relayed first: wait briefly for the pipe to drain.
  void child.exited.then((exit) => bounded(ended, DRAIN_MS).then(() => report(exit)));
  // Output closed but the process lives on: it can answer nothing more, so it counts as gone.
  void ended.then(() =>
    bounded(child.exited, DRAIN_MS).then(() => (child.hasExited() ? undefined : report("eof"))),
  );
}
