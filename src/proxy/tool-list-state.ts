/**
 * The upstream's tool list as one `bouncer run` instance sees it: the walks of `tools/list` (after the
 * handshake, on every `notifications/tools/list_changed`, and once more for a call to an unknown
 * name), chained so that client `tools/list` and `tools/call` wait for the latest one; the list the
 * client is shown (the gate's visible list: pinned definitions, new tools hidden; under `--mode
 * audit` the tools as listed, SPEC §3.8); the pin events of
 * each walk (audited; changed and new definitions stored as pending beside the pins); and pins changed
 * from outside (`bouncer pins accept`), which refresh the list and tell the client. Edge.
 *
 * Source: SPEC §2.2 ("When", "Changed tool", "New tool", "Unknown name"), §3.2 step 3, §3.6.
 * @module
 */

import type { JsonObject, ToolDefinition } from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import { isBouncerError } from "../platform/errors.ts";
import { withoutShadowMembers } from "./case-variants.ts";
import type { FilePinStore } from "./file-pin-store.ts";
import type { Gate, PinStore, PinsRead, ServerContext, WalkResult } from "./gate.ts";
import { RPC_ERROR, RpcError, type RpcErrorObject } from "./jsonrpc.ts";
import type { RelayContext, ToolsListDecision } from "./relay-hooks.ts";
import type { SessionAudit } from "./session-audit.ts";
import { walkToolPages } from "./tool-walk.ts";

/** What the tool list state works with. */
export interface ToolListOptions {
  readonly gate: Gate;
  /** The gate's pin store (re-read to notice accepts made elsewhere). */
  readonly pins: PinStore;
  /** The same store when it is the file store (pending definitions are stored there). */
  readonly filePins?: FilePinStore;
  /** The upstream as registered with the gate (name, command line, cwd). */
  readonly server: ServerContext;
  readonly audit: SessionAudit;
  readonly requestUpstream: RelayContext["requestUpstream"];
  readonly notifyClient: RelayContext["notifyClient"];
  readonly log: (message: string) => void;
  /**
   * The upstream's stderr redaction (`bouncer run`: its environment's secret values, token shapes,
   * secret-named fields), applied to what a failed walk's line on stderr quotes of the upstream's
   * error; default none.
   */
  readonly hideUpstreamSecrets?: (text: string) => string;
  /**
   * `--mode` (default `enforce`). Under `audit` the client is shown the tools as listed now, and
   * what enforce would hide or keep at its pin is audited as such (SPEC §3.8).
   */
  readonly mode?: "enforce" | "audit";
  /**
   * Told after each walk that succeeded, and after each refresh: every tool listed, the list the
   * client is shown, and whether the walk saw every page (for the start-up warnings on policy
   * entries and argument names). Must not throw.
   */
  readonly onListed?: (listed: ListedTools) => void;
}

/** What {@link ToolListOptions.onListed} is told. */
export interface ListedTools {
  /** Every tool the upstream listed, as listed. */
  readonly listed: readonly ToolDefinition[];
  /** The tools the client is shown (pinned definitions; under `--mode audit`, as listed). */
  readonly visible: readonly ToolDefinition[];
  /** False when the walk stopped before the last page. */
  readonly complete: boolean;
}

/** Why the last walk failed (calls are denied with it; client `tools/list` gets the error). */
export interface WalkFailure {
  readonly message: string;
  readonly error: RpcErrorObject;
}

/**
 * The tool list of one instance.
 *
 * Source: SPEC §2.2.
 */
export class ToolListState {
  readonly #options: ToolListOptions;
  #ready: Promise<void> | undefined;
  /** The walk waiting for the current one to end (at most one: repeated requests share it). */
  #queued: Promise<void> | undefined;
  #listed: readonly ToolDefinition[] = [];
  #visible: readonly ToolDefinition[] = [];
  #visibleText = "[]";
  #pinsSeen: ReadonlyMap<string, ToolDefinition> | undefined;
  #failure: WalkFailure | undefined;
  #walked = false;
  /** Whether the last walk saw every page. */
  #complete = true;

  /**
   * @param options - Gate, pins, server, audit and the relay's request functions.
   */
  constructor(options: ToolListOptions) {
    this.#options = options;
  }

  /** Why the last walk failed, if it did. */
  get failure(): WalkFailure | undefined {
    return this.#failure;
  }

  /**
   * Resolves when the latest walk is done (starting the first walk if the handshake has not: a
   * client that lists tools without `notifications/initialized` still gets a walked list). Never
   * rejects.
   * @returns The latest walk.
   */
  whenReady(): Promise<void> {
    return this.#ready ?? this.walk();
  }

  /**
   * Queues a walk after the current one (calls and lists wait for it); a walk already queued and not
   * started is shared, so a burst of `list_changed` costs at most one more walk.
   * @returns When it is done; never rejects.
   */
  walk(): Promise<void> {
    // A walk queued and not started yet covers every request made before it starts.
    if (this.#queued !== undefined) return this.#queued;
    const previous = this.#ready ?? Promise.resolve();
    const next = previous.then(() => {
      if (this.#queued === next) this.#queued = undefined;
      return this.#walkOnce();
    });
    this.#ready = next;
    this.#queued = next;
    return next;
  }

  /**
   * The client's `tools/list` answer: the visible list, in one page.
   * @returns The result, or the walk's error.
   */
  toolsList(): ToolsListDecision {
    if (this.#failure !== undefined) return { kind: "error", error: this.#failure.error };
    return { kind: "result", result: { tools: this.#visible as unknown as JsonObject[] } };
  }

  /**
   * Re-reads the pins; when they changed since the last look (an accept from a terminal or another
   * instance), recomputes the visible list and sends the client `notifications/tools/list_changed`
   * if it differs.
   *
   * Source: SPEC §2.2 ("running instances notice an accept … and send list_changed").
   * @returns The pins as read now, for the gate's decision (`DecideOptions.pins`: one read per call);
   *   undefined before the first walk (the gate then reads them itself).
   * @throws {BouncerError} When the pin file is corrupt or unreadable (the caller denies).
   */
  async noticePinChanges(): Promise<PinsRead | undefined> {
    if (!this.#walked) return undefined;
    const pins = await this.#options.pins.load(this.#options.server);
    if (pins === this.#pinsSeen) return { pins };
    await this.refresh();
    return { pins: this.#pinsSeen };
  }

  /**
   * Recomputes the visible list from the last walk's tools and the pins as they are now (after an
   * approval re-pinned a tool, or an accept elsewhere); tells the client when it changed.
   * @throws {BouncerError} When the pin file is corrupt or unreadable.
   */
  async refresh(): Promise<void> {
    const { gate, server } = this.#options;
    const result = await gate.walkTools(server.name, this.#listed, this.#walkOptions());
    await this.#afterWalk(result);
    this.#pinsSeen = await this.#options.pins.load(server);
    if (this.#show(result.visible)) this.#options.notifyClient("notifications/tools/list_changed", {});
    this.#options.onListed?.({ listed: this.#listed, visible: result.visible, complete: this.#complete });
  }

  /** One walk: all pages, through the gate, audited and recorded (a failed one too). Never rejects. */
  async #walkOnce(): Promise<void> {
    const { gate, server, log } = this.#options;
    let listed: ListedTools | undefined;
    try {
      const walk = await walkToolPages((params) => this.#options.requestUpstream("tools/list", params), {
        log,
      });
      if (walk.truncated !== undefined) log(`Stopped walking tools/list: ${walk.truncated}`);
      this.#listed = walk.tools;
      const result = await gate.walkTools(server.name, walk.tools, this.#walkOptions());
      await this.#afterWalk(result);
      this.#pinsSeen = await this.#options.pins.load(server);
      // Written once the walk is through: one that fails after listing is written as its failure
      // alone, one event per walk (SPEC §3.6 "tool lists (each re-walk)").
      this.#options.audit.recordTools(walk.tools as unknown as JsonObject[]);
      this.#show(result.visible);
      this.#failure = undefined;
      this.#walked = true;
      this.#complete = walk.truncated === undefined;
      listed = { listed: walk.tools, visible: result.visible, complete: this.#complete };
    } catch (error) {
      const message = errorText(error);
      // Its words hidden as its stderr is: the line reaches logs (review s18 finding B2).
      const hide = this.#options.hideUpstreamSecrets;
      log(`Cannot walk the upstream's tools: ${hide === undefined ? message : hide(message)}`);
      // The upstream's own error reaches the model (the client's tools/list, the denies of calls):
      // recorded as untrusted output, or, when that fails, not shown (SPEC §2.5).
      const failure =
        error instanceof RpcError && error.fromPeer
          ? this.#recordUpstreamError(walkFailure(error, message))
          : walkFailure(error, message);
      // Recorded, so that replay denies the calls this failure denies (README "bouncer replay").
      this.#options.audit.recordWalkFailure(failure.message.slice(WALK_FAILED.length));
      this.#failure = failure;
    }
    // Outside the try: what the listener does is no failure of the walk.
    if (listed !== undefined) this.#options.onListed?.(listed);
  }

  /**
   * Records the upstream's error of a failed walk, as the client is shown it, as untrusted output of
   * `tools/list` (in the gate and the session file). When the gate cannot record it (a full taint
   * index), the failure is shown in Bouncer's words instead: what is not recorded must not reach
   * the model.
   *
   * Source: SPEC §2.5 ("everything the upstream says can reach the model, so all of it is recorded").
   * @param failure - The failure with the upstream's words.
   * @returns It, or the failure without them.
   */
  #recordUpstreamError(failure: WalkFailure): WalkFailure {
    const shown: JsonObject = { code: failure.error.code, message: failure.error.message };
    try {
      this.#options.gate.recordUntrusted(this.#options.server.name, "tools/list", shown);
    } catch (error) {
      const why = `the upstream's error cannot be recorded as untrusted output: ${errorText(error)}`;
      this.#options.log(`Cannot walk the upstream's tools: ${why}`);
      return {
        message: `${WALK_FAILED}${why}`,
        error: { code: RPC_ERROR.internalError, message: `Bouncer internal error: ${why}` },
      };
    }
    this.#options.audit.recordOutput("tools/list", shown);
    return failure;
  }

  /**
   * Audits pin events and stores the walk's changed and new definitions as the pending ones (those
   * of tools no longer listed leave; the file is written only when that changes anything).
   * @param result - The gate's walk result.
   */
  async #afterWalk(result: WalkResult): Promise<void> {
    for (const event of result.events) this.#options.audit.pin(event);
    const store = this.#options.filePins;
    if (store === undefined) return;
    try {
      await store.setPending(this.#options.server, result.pending);
    } catch (error) {
      this.#options.log(errorText(error));
    }
  }

  /** @returns The gate's walk options: under `--mode audit` the client sees the tools as listed. */
  #walkOptions(): { readonly showListed: boolean } {
    return { showListed: this.#options.mode === "audit" };
  }

  /**
   * Sets the visible list: the gate's, without members that spell a pinned member in other letter
   * case.
   * @param listed - The gate's visible list.
   * @returns True when it differs from the one shown before.
   */
  #show(listed: readonly ToolDefinition[]): boolean {
    // Never another spelling of a pinned member beside it (case-variants.ts).
    const visible = listed.map(withoutShadowMembers);
    const text = JSON.stringify(visible);
    const changed = text !== this.#visibleText;
    this.#visible = visible;
    this.#visibleText = text;
    return changed;
  }
}

/** What a failed walk's messages start with (the session file records the words after it). */
const WALK_FAILED = "Cannot walk the upstream's tools: ";

/**
 * Why a walk failed, as calls are denied with it and as the client's `tools/list` is answered: the
 * upstream's JSON-RPC error as it sent it (code and message); a local failure the user can fix (a
 * corrupt pin file names the file) as `-32002`; anything else as an internal error.
 * @param error - What the walk threw.
 * @param message - Its message.
 * @returns The failure.
 */
function walkFailure(error: unknown, message: string): WalkFailure {
  const code: unknown = error instanceof Error ? Reflect.get(error, "code") : undefined;
  return {
    message: `${WALK_FAILED}${message}`,
    error:
      typeof code === "number"
        ? { code, message }
        : isBouncerError(error)
          ? {
              code: RPC_ERROR.localStateFailed,
              message: `Cannot list the upstream's tools: ${message}`,
              data: { code: error.code },
            }
          : { code: RPC_ERROR.internalError, message: `Bouncer internal error: ${message}` },
  };
}
