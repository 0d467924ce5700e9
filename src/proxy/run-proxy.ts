/**
 * `bouncer run` put together: check the policy files fast (an unusable policy answers every request
 * with the policy error and exits 2 without ever spawning the upstream), spawn the upstream (before
 * anything slow: the relay's own modules load after it), read the files with the `yaml` library
 * while it boots when the fast check vouched for them (refused then: the upstream is stopped before
 * anything is relayed, exit 2), join both pipes to the relay (`run-pipes.ts`), relay through `Relay`
 * with the session's hooks — the gate, built while the upstream answers the client's `initialize`,
 * which is relayed at once (`deferredHooks`) — and own the life cycle: upstream death answered at
 * once, the client going away (stdin EOF, broken pipe, parent gone) or a signal shutting the upstream
 * tree down in stages, and no process left behind (the upstream process itself: `run-upstream.ts`).
 * What it is given is declared in `run-proxy-types.ts`.
 * Returns the exit status; never exits the process itself (STYLE #15). Edge.
 *
 * Source: SPEC §3.2 step 1, §3.3 (life cycle and robustness), STYLE #17, #18; field cases F05–F07.
 * @module
 */

// A deep import on purpose (STYLE #9 otherwise): `bouncer run` loads this before it spawns the upstream: not the whole engine (SPEC §3.2 step 1).
import { resolve } from "node:path";
import { environmentSecrets } from "../audit/redact-env.ts";
import { escapeControls } from "../engine/render.ts";
import { isBouncerError } from "../platform/errors.ts";
import { bouncerHome } from "../platform/home-dir.ts";
import type { UpstreamProcess } from "../platform/spawn-upstream.ts";
import { STOP_GRACE_MS, STOP_KILL_AFTER_MS, stopUpstream } from "../platform/stop-upstream.ts";
// A deep import on purpose (as above): this file imports types only, and run loads it before the spawn.
import { serverCaseWarning, serverSectionsInOtherCase } from "../policy/server-name-case.ts";
import type { GatingSetup } from "./gating-hooks.ts";
import { RPC_ERROR, type RpcErrorObject } from "./jsonrpc.ts";
import type { MessageWriter } from "./message-writer.ts";
import type { Relay } from "./relay.ts";
import type { ShutdownReason, UpstreamFailure } from "./relay-hooks.ts";
import type { RunOptions } from "./run-args.ts";
import {
  checkOutputFiles,
  checkRunPolicyTexts,
  openRecorder,
  precheckRunPolicy,
  SESSION_REFUSED_CODE,
} from "./run-policy.ts";
import { installProcessHandlers, upstreamLaunch } from "./run-process.ts";
import type { RunProxyIo, RunProxyOptions } from "./run-proxy-types.ts";
import { bounded, outputDrained, startUpstream } from "./run-upstream.ts";

/** How long the audit flush and the final stdout flush may take. */
const FLUSH_LIMIT_MS = 2000;

/**
 * Runs one proxy session until the client goes away, the upstream dies, or a signal arrives.
 *
 * Source: SPEC §3.2, §3.3.
 * @param run - The parsed flags.
 * @param io - stdin, stdout and the stderr writer.
 * @param options - Hooks factory and tunables (tests).
 * @returns The exit status: 0 when the client went away or a signal ended it, 1 once the upstream
 *   had died (whatever ended the session then: the client leaving, a broken pipe, a signal), 2 for an unreadable or invalid policy, a `--config` that does not give the upstream, or an
 *   `--audit-log` or `--record` path that is a folder or a FIFO (the upstream never started; every
 *   request is answered with the error), or what a hook asked for.
 */
export async function runProxy(
  run: RunOptions,
  io: RunProxyIo,
  options: RunProxyOptions = {},
): Promise<number> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  // Diagnostics quote the upstream and the client (noise previews, names): escaped for the terminal.
  const log = (message: string): void =>
    io.writeStderr(`[bouncer] ${escapeControls(message, { keepNewlines: true })}\n`);
  // The policy files are validated, and the `--record` file opened, before the spawn (SPEC §3.2
  // step 1): an unusable policy never starts the upstream, so nothing can be relayed ungated.
  const refuse = async (error: RpcErrorObject, exitCode: number): Promise<number> => {
    log(error.message);
    const limit = options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes };
    const { refuseClient } = await import("./refuse-client.ts");
    return refuseClient(error, io, { exitCode, ...limit });
  };
  let launch: Awaited<ReturnType<typeof upstreamLaunch>>;
  try {
    launch = await upstreamLaunch(run, cwd);
  } catch (error) {
    if (!isBouncerError(error)) throw error;
    // The --config file named on the command line cannot give the upstream: a usage error, answered
    // like a policy refusal so that the client learns why (nothing was started).
    return refuse({ code: SESSION_REFUSED_CODE, message: error.message, data: { code: error.code } }, 2);
  }
  const entryPolicies = launch.entryPolicies ?? [];
  const samePolicies = (a: readonly string[], b: readonly string[]): boolean =>
    a.length === b.length && a.every((file, i) => resolve(cwd, file) === resolve(cwd, b[i] ?? ""));
  if (entryPolicies.length > 0 && !samePolicies(entryPolicies, run.policies)) {
    // SPEC §5.1: `--config` reads the upstream from the stash; the flags are this command line's.
    log(
      `The entry "${run.upstreamName}" of "${run.config}" runs with --policy ${entryPolicies.join(", --policy ")}; this run ${run.policies.length === 0 ? "has no --policy" : `has --policy ${run.policies.join(", --policy ")}`}, so its verdicts can differ from the client's: give the same --policy flags for the same verdicts`,
    );
  }
  const precheck = await (options.precheckPolicy ?? precheckRunPolicy)(run.policies, cwd);
  if (precheck.kind === "checked" && !precheck.check.ok) return refuse(precheck.check.error, 2);
  const output = checkOutputFiles(run, cwd);
  if (output !== undefined) return refuse(output, 2);
  const recording = await openRecorder(run, cwd);
  if (!recording.ok) return refuse(recording.error, 1);
  let upstream: UpstreamProcess | undefined;
  let upstreamWriter: MessageWriter | undefined;
  let clientWriter: MessageWriter | undefined;
  let relay: Relay | undefined;
  let stopping = false;
  /** Set once the upstream has exited or could not start. */
  let upstreamFailed = false;
  /** Aborted by a signal that arrives while the session is already shutting down. */
  const hurry = new AbortController();
  let resolveExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });
  const cleanups: (() => void)[] = [];

  /**
   * Ends the session (once): flush the audit log, stop the upstream tree in stages, flush stdout.
   * @param reason - Why.
   * @param code - The exit status.
   */
  async function shutdown(reason: ShutdownReason, code: number): Promise<void> {
    if (stopping) {
      // A signal during a shutdown already under way (the SDK's close: stdin end, then SIGTERM 2 s
      // later, then SIGKILL): the upstream tree is stopped before Bouncer can be killed (SPEC §3.3).
      if (reason === "signal") hurry.abort();
      return;
    }
    stopping = true;
    log(`Shutting down (${reason.replace("_", " ")})`);
    const current = relay;
    if (current !== undefined) {
      current.close();
      await bounded(
        Promise.resolve().then(() => current.hooks.onShutdown(reason)),
        FLUSH_LIMIT_MS,
      );
    }
    // Messages still waiting for the end of a turn leave before the upstream's stdin is ended.
    upstreamWriter?.sendWaiting();
    clientWriter?.sendWaiting();
    if (upstream !== undefined) {
      await stopUpstream(upstream, {
        graceMs: reason === "signal" ? 0 : (options.graceMs ?? STOP_GRACE_MS),
        killAfterMs: options.killAfterMs ?? STOP_KILL_AFTER_MS,
        hurry: hurry.signal,
      });
    }
    if (upstream !== undefined) await outputDrained(upstream);
    if (current !== undefined) {
      // Calls still forwarded are answered (an upstream that died first answered them already).
      const error = {
        code: RPC_ERROR.internalError,
        message: `Bouncer stopped (${reason.replace("_", " ")}) before the upstream answered this call`,
      };
      await bounded(current.endForwarded(error), FLUSH_LIMIT_MS);
    }
    if (clientWriter !== undefined) await bounded(clientWriter.flush(), FLUSH_LIMIT_MS);
    for (const cleanup of cleanups.splice(0)) cleanup();
    // A session whose upstream died ends non-zero, whatever ends it then: the client leaving, a
    // broken pipe, its parent gone or a signal (SPEC §3.3, README's exit codes of `run`).
    resolveExit(code === 0 && upstreamFailed ? 1 : code);
  }

  if (options.processHandlers !== false)
    cleanups.push(...installProcessHandlers({ log, shutdown, upstream: () => upstream }));

  // The upstream starts before anything slow (SPEC §3.2 step 1): the gate's modules and the packs
  // load while it boots and answers `initialize`.
  const started = startUpstream(
    { name: run.upstreamName, launch },
    { writeStderr: io.writeStderr, env, stderrFlow: io.stderrFlow },
  );
  if (started.kind === "started") upstream = started.upstream;

  // A policy found valid on the fast path is read by the yaml library while the upstream boots; the
  // gate is built from that reading, and nothing is relayed unless it is valid.
  const [
    policy,
    { Relay },
    { connectClient, connectUpstream },
    { MessageWriter },
    { deferredHooks },
    { UpstreamBacklog },
  ] = await Promise.all([
    precheck.kind === "checked" ? precheck.check : checkRunPolicyTexts(precheck.texts),
    // The relay's modules load after the spawn too.
    import("./relay.ts"),
    import("./run-pipes.ts"),
    import("./message-writer.ts"),
    import("./deferred-hooks.ts"),
    import("./upstream-backlog.ts"),
  ]);
  if (stopping) return exited;
  if (!policy.ok) {
    // The signal handlers and the parent watch stay until the upstream is stopped (a signal
    // meanwhile stops it at once); only then are they removed.
    if (upstream !== undefined)
      await stopUpstream(upstream, { graceMs: 0, killAfterMs: options.killAfterMs ?? STOP_KILL_AFTER_MS });
    for (const cleanup of cleanups.splice(0)) cleanup();
    return refuse(policy.error, 2);
  }
  // servers.<name> is case-sensitive (SPEC §4.1): a section in another case applies to nothing.
  const otherCase = serverSectionsInOtherCase(policy.files, run.upstreamName);
  if (otherCase.length > 0) log(serverCaseWarning(otherCase, run.upstreamName));
  const setup: GatingSetup = {
    run,
    upstream: { name: run.upstreamName, command: launch.command, args: launch.args, cwd: launch.cwd },
    home: bouncerHome({ env, cwd }),
    // Output that prints its configuration shows them in excerpts: audit records hide them (SPEC §3.5).
    upstreamSecrets: environmentSecrets(env),
    ...(upstream?.hideSecrets === undefined ? {} : { hideUpstreamSecrets: upstream.hideSecrets }),
    log,
    policyFiles: policy.files,
    ...(recording.recorder === undefined ? {} : { recorder: recording.recorder }),
  };
  // Several client requests in flight: messages of one turn leave in one write (SPEC §7).
  const batch = (): boolean => (relay?.pending.size ?? 0) > 1;
  // The client's input is read on while the upstream does not read its own (its end is seen).
  const backlog = new UpstreamBacklog({
    refuse: (error) => relay?.refuseRequests(error),
    pauseClient: (paused) => (paused ? io.stdin.pause() : io.stdin.resume()),
    log,
  });
  const toClient = new MessageWriter(io.stdout, {
    onError: () => void shutdown("broken_pipe", 0),
    onPressure: (full) => {
      if (full) upstream?.stdout.pause();
      else upstream?.stdout.resume();
      backlog.clientPressure(full);
    },
    batch,
  });
  clientWriter = toClient;
  const { createHooks } = options;
  const live = new Relay({
    sendToClient: (text) => toClient.write(text),
    sendToUpstream: (text) => {
      backlog.written(text);
      upstreamWriter?.write(text);
    },
    // The gate is built while the upstream answers `initialize` (its modules and the packs load then).
    createHooks: (context) =>
      createHooks === undefined
        ? deferredHooks(context, async (ready) =>
            (await import("./gating-hooks.ts")).createGatingHooks(ready, setup),
          )
        : createHooks(context, setup),
    unknownMethods: run.unknownMethods,
    log,
    // What its stdout shows that is not JSON hides its environment's secrets as its stderr does.
    ...(upstream?.hideSecrets === undefined ? {} : { hideUpstreamSecrets: upstream.hideSecrets }),
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    onEndRequested: (code) => void shutdown("session_ended", code),
    onFailureReported: () => void shutdown("upstream_exit", 1),
    // Before the spawn (or without an upstream) there is no writer yet: the failure path answers then.
    upstreamOpen: () => upstreamWriter?.open ?? true,
    nextUpstreamMessage: () => upstreamWriter?.written ?? 0,
  });
  relay = live;
  const framing = options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes };

  /**
   * The upstream is gone: answer everything pending; exit once the client has been told.
   * @param failure - What happened.
   */
  async function upstreamGone(failure: UpstreamFailure): Promise<void> {
    if (stopping) return;
    upstreamFailed = true;
    log(failure.message);
    const told = await live.upstreamGone(failure);
    // With nothing pending, a client past its handshake learns it from the closed pipe; before the
    // handshake, Bouncer waits for `initialize` to answer it with the error (F10).
    if (told === 0 && live.session().clientInitialize !== undefined) void shutdown("upstream_exit", 1);
  }

  if (started.kind === "failed") void upstreamGone(started.failure);

  // The upstream's pipes: its stdin written, its stdout framed, its death reported (run-pipes.ts).
  if (upstream !== undefined)
    upstreamWriter = connectUpstream(upstream, {
      relay: live,
      backlog,
      name: run.upstreamName,
      batch,
      framing,
      stopping: () => stopping,
      log,
      gone: (failure) => void upstreamGone(failure),
    });
  cleanups.push(
    connectClient(io.stdin, { relay: live, framing, end: () => void shutdown("client_closed", 0) }),
  );
  return exited;
}
