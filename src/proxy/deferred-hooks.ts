/**
 * Hooks that stand in for the gating hooks while the gate is being built, so that `bouncer run`
 * relays the client's `initialize` as soon as the policy files are validated instead of after the
 * gate's modules, the packs and the session have loaded (SPEC §3.2: the upstream answers while the
 * gate is built). Nothing is decided here: every `tools/list` and `tools/call` waits for the real
 * hooks, what the real hooks observe synchronously is queued and handed to them in order before
 * anything waiting for them goes on, and answers that must be recorded before the client sees them
 * wait for the real hooks too. A gate that cannot be built, or that refuses the session once built,
 * ends the session (never run ungated). Edge.
 *
 * Source: SPEC §3.2 step 1–3 ("spawn the upstream before anything slow", "never run ungated",
 * "hold client `tools/list` and `tools/call` until done"), §3.1.
 * @module
 */

import { errorText } from "../engine/index.ts";
import type { InitializeDecision, RelayContext, RelayHooks } from "./relay-hooks.ts";

/** Builds the real hooks (the gate) for a relay; may take a while. */
export type HooksLoader = (context: RelayContext) => Promise<RelayHooks>;

/**
 * Hooks that forward the client's `initialize` at once and hand everything else to the hooks
 * `load` builds, once built. Sync observations (the `initialize` result, `notifications/initialized`,
 * noise, upstream requests and the client's answers to them, `list_changed`, dropped calls, the
 * upstream's exit) made meanwhile are replayed to the real hooks in the order they happened, before
 * any waiting `tools/list`, `tools/call` or recorded answer proceeds. When `load` fails, a replayed
 * client answer cannot be recorded (it has reached the upstream), or the real hooks refuse the
 * session at `initialize`, the session ends (exit 1, or the refusal's status) and every waiting
 * `tools/list` or `tools/call` is answered with an error, never forwarded.
 *
 * Source: SPEC §3.2.
 * @param context - The relay context (the real hooks are built with it; `endSession` on failure).
 * @param load - Builds the real hooks.
 * @returns The stand-in hooks.
 */
export function deferredHooks(context: RelayContext, load: HooksLoader): RelayHooks {
  let loaded: RelayHooks | undefined;
  let loading: Promise<RelayHooks> | undefined;
  /** The real hooks once built, even when their start failed after (they still flush at shutdown). */
  let built: RelayHooks | undefined;
  /** Observations made meanwhile; `answer`: the method of a client answer (its failure fails closed). */
  const queued: { readonly run: (hooks: RelayHooks) => void; readonly answer?: string }[] = [];
  /** Starts building the real hooks (once); observations made meanwhile are replayed in order. */
  const ready = (): Promise<RelayHooks> => {
    loading ??= start();
    return loading;
  };
  const start = async (): Promise<RelayHooks> => {
    try {
      const hooks = await load(context);
      built = hooks;
      let unrecorded: Error | undefined;
      for (const { run, answer } of queued.splice(0)) {
        if (answer === undefined) safely(context, () => run(hooks));
        else unrecorded ??= replayAnswer(answer, () => run(hooks));
      }
      if (unrecorded !== undefined) throw unrecorded;
      loaded = hooks;
      return hooks;
    } catch (error) {
      context.log(`Cannot start the gate: ${errorText(error)}`);
      context.endSession(1);
      throw error;
    }
  };
  /**
   * Runs an observation now when the real hooks are there (a throw reaches the relay), else queues
   * it: a queued one that throws is logged, or, for a client answer (`answer`: its method), fails
   * the gate's start.
   */
  const observe = (run: (hooks: RelayHooks) => void, answer?: string): void => {
    if (loaded === undefined) queued.push(answer === undefined ? { run } : { run, answer });
    else run(loaded);
  };
  /** Runs a call on the real hooks, at once when they are there (a promise hook stays a promise). */
  const withHooks = <R>(run: (hooks: RelayHooks) => R): R | Promise<Awaited<R>> =>
    // `then` flattens a promise that `run` returns: the result is a promise of its settled value.
    loaded === undefined ? (ready().then(run) as Promise<Awaited<R>>) : run(loaded);

  return {
    onClientInitialize: (request) => {
      // The real hooks hear of the handshake first, with what happened meanwhile and before anything
      // waiting for them: a `tools/list` the client sends right behind its `initialize` must not
      // find them without it (they would register the server without the result's serverInfo, and
      // no pack matched by serverInfo.name would apply; field case F08's pipelined start).
      let verdict: Promise<InitializeDecision> | undefined;
      observe((hooks) => {
        try {
          verdict = Promise.resolve(hooks.onClientInitialize(request));
        } catch (error) {
          verdict = Promise.reject(error);
        }
        // Handled below, a turn later or never (a gate whose start failed has ended the session):
        // a rejection must not be an unhandled one meanwhile (Bun exits on those).
        verdict.catch(() => undefined);
      });
      // The policy files were validated before the spawn: the gate's own verdict follows, and a
      // refusal then ends the session before anything can be decided ungated. The gate starts
      // loading once this task has written the `initialize` to the upstream.
      setTimeout(() => {
        ready()
          .then(() => verdict ?? Promise.reject(new Error("the gate did not take the initialize")))
          .then(
            (decision) => (decision.kind === "error" ? context.endSession(decision.exitCode) : undefined),
            // A gate that failed to build has ended the session already; one whose own verdict
            // failed cannot be trusted to gate: end it too (never run ungated).
            (error: unknown) => {
              if (loaded === undefined) return;
              context.log(`Cannot start the gate: ${errorText(error)}`);
              context.endSession(1);
            },
          );
      }, 0);
      return { kind: "forward" };
    },
    onInitializeResult: (result) => observe((hooks) => hooks.onInitializeResult(result)),
    onInitialized: () => observe((hooks) => hooks.onInitialized()),
    // Straight to the real hooks once built (no extra turn per call).
    whenReady: () => withHooks((hooks) => hooks.whenReady()),
    onToolsList: (request) => withHooks((hooks) => hooks.onToolsList(request)),
    onToolCall: (call) => withHooks((hooks) => hooks.onToolCall(call)),
    onToolResult: (call, outcome) => withHooks((hooks) => hooks.onToolResult(call, outcome)),
    onUpstreamResult: (request, outcome) => withHooks((hooks) => hooks.onUpstreamResult(request, outcome)),
    onUpstreamRequest: (request) => observe((hooks) => hooks.onUpstreamRequest(request)),
    onClientAnswer: (request, outcome) =>
      observe((hooks) => hooks.onClientAnswer(request, outcome), request.method),
    onUpstreamNotification: (notification) => observe((hooks) => hooks.onUpstreamNotification(notification)),
    onToolsListChanged: () => observe((hooks) => hooks.onToolsListChanged()),
    onDroppedCall: (message) => observe((hooks) => hooks.onDroppedCall(message)),
    onNoise: (noise) => observe((hooks) => hooks.onNoise(noise)),
    onUpstreamExit: (failure) => observe((hooks) => hooks.onUpstreamExit(failure)),
    onShutdown: async (reason) => {
      // Observations still queued (an upstream that exited, a call without an id, noise) are audited
      // by the real hooks, so a session that ends before the gate was needed still loses no record.
      if (loading === undefined && queued.length > 0) ready().catch(() => undefined);
      const hooks = loaded ?? (loading === undefined ? undefined : await loading.catch(() => built));
      await hooks?.onShutdown(reason);
    },
  };
}

/**
 * Replays a client answer to the real hooks. It has reached the upstream already (the roots it
 * resolves paths against): when the gate cannot take it in, the gate must not start, so that
 * nothing is decided without it (SPEC §2.4, fail closed).
 * @param method - The method the client answered, for the error.
 * @param run - The observation.
 * @returns Undefined when recorded, else why not (the caller fails the start with it).
 */
function replayAnswer(method: string, run: () => void): Error | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    const detail = errorText(error);
    return new Error(`the client's answer to ${JSON.stringify(method)} could not be recorded: ${detail}`);
  }
}

/**
 * Runs a replayed observation; a throw is logged (as the relay does for its own hook calls).
 * @param context - For the log.
 * @param run - The observation.
 */
function safely(context: RelayContext, run: () => void): void {
  try {
    run();
  } catch (error) {
    context.log(`Hook failed: ${errorText(error)}`);
  }
}
