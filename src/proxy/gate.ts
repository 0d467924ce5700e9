/**
 * The gate: Bouncer's per-call handler, shared by `bouncer replay` and the live proxy, callable
 * without stdio (STYLE #24). It owns one client session's {@link EngineState}, the policy and its
 * packs, the per-server context, the pins (through a {@link PinStore}), a {@link ToolRules} cache per
 * (server, tool, pinned definition) — compiled once, decided many — and the call sequence counter.
 * Every rule lives in the engine and the policy module; the gate only assembles their inputs. Edge.
 *
 * Use: `registerServer()` per upstream, `walkTools()` after each `tools/list` walk, `decideCall()` per
 * `tools/call` (and again with `countAttempt: false` after an approval), `answer()` with the human's
 * answer, `recordResult()` for each forwarded call's result or error. The engine state and the
 * recording of upstream output live in its base class, `GateRecords` (gate-records.ts).
 *
 * Source: SPEC §2 (the decision), §2.2 (pinning), §2.5 (untrusted text, approvals), §3.7, §5.9.
 * @module
 */

import {
  type AskAnswer,
  answerKey,
  applyAnswer,
  type CallInput,
  comparePins,
  decide,
  type IndexEntry,
  type JsonObject,
  type JsonValue,
  type PathResolver,
  type PinStatus,
  type Question,
  type ToolDefinition,
  type ToolRules,
} from "../engine/index.ts";
import { matchPacks } from "../policy/index.ts";
import type { MatchedPack, Policy } from "../policy/types.ts";
import {
  NO_PINS,
  type PinView,
  pendingOf,
  repinApproved,
  sha256,
  viewPins,
  walkEvents,
} from "./gate-pins.ts";
import { GateRecords } from "./gate-records.ts";
import { cachedRules, type ServerState, serverState, withClientRoots } from "./gate-server.ts";
import type {
  AnswerResult,
  DecideOptions,
  GateDecision,
  GateOptions,
  PinEvent,
  PinsRead,
  WalkResult,
} from "./gate-types.ts";
import { createMemoryPinStore, type PinStore, type ServerContext } from "./memory-pin-store.ts";
import { MAX_NESTING, valueNestsDeeperThan } from "./strict-json.ts";

export type {
  AnswerResult,
  DecideOptions,
  GateDecision,
  GateOptions,
  PinEvent,
  PinsRead,
  WalkResult,
} from "./gate-types.ts";
export type { PinStore, ServerContext } from "./memory-pin-store.ts";

/**
 * One client session's gate. See the module doc for the call order.
 *
 * Source: SPEC §2, §5.9; STYLE #24.
 * @example
 * const gate = new Gate(policy, { home: "/home/me", cwd: "/work" });
 * gate.registerServer({ name: "mail" });
 * await gate.walkTools("mail", tools);
 * const { decision, seq } = await gate.decideCall("mail", "send_email", { to: "boss@corp.example" });
 */
export class Gate extends GateRecords {
  readonly #policy: Policy;
  readonly #options: GateOptions;
  readonly #pins: PinStore;
  readonly #servers = new Map<string, ServerState>();

  /**
   * @param policy - The validated user files and the packs.
   * @param options - Pins, paths and session options.
   */
  constructor(policy: Policy, options: GateOptions) {
    super(options);
    this.#policy = policy;
    this.#options = options;
    this.#pins = options.pins ?? createMemoryPinStore();
  }

  /**
   * Registers (or re-registers) an upstream: its command, working directory and `serverInfo` select
   * the packs (SPEC §4.3), and its `serverInfo` is recorded as untrusted, field values at most. Calls
   * and walks of an unregistered server register it by name only.
   * @param context - The server's name (`--upstream-name`) and facts.
   * @param options - `resolvePath`: this server's path walk, in place of the gate's (replay walks the
   *   paths of a server it has a `server` event of, SPEC §5.9).
   * @returns The packs that matched, strongest first.
   */
  registerServer(
    context: ServerContext,
    options: { readonly resolvePath?: PathResolver } = {},
  ): readonly MatchedPack[] {
    const serverInfoName = context.serverInfo?.name;
    const packs = matchPacks(this.#policy.packs, {
      upstreamName: context.name,
      ...(context.command === undefined ? {} : { command: context.command }),
      ...(typeof serverInfoName === "string" ? { serverInfoName } : {}),
    });
    const { resolvePath } = options;
    const previous = this.#servers.get(context.name);
    const entry = serverState(context, packs, {
      ...this.#options,
      ...(resolvePath === undefined ? {} : { resolvePath }),
      ...(previous === undefined ? {} : { previous }),
    });
    this.#servers.set(context.name, entry);
    if (context.serverInfo !== undefined) this.recordServerInfo(context.name, context.serverInfo);
    return packs;
  }

  /**
   * Notes the roots the client gave a server (its answer to the server's `roots/list`): relative path
   * values must then stay inside the prefixes resolved against each of them too, for the rest of the
   * session.
   *
   * Source: SPEC §2.4 (relative values; stricter than its single base).
   * @param server - The server name.
   * @param roots - The roots' URIs or paths (see `clientRootDirs`).
   */
  noteClientRoots(server: string, roots: readonly string[]): void {
    const entry = this.#server(server);
    entry.paths = withClientRoots(entry.paths, roots);
  }

  /**
   * Takes a complete `tools/list` walk of a server (all pages): compares it with the pins, pins what
   * first sight pins, and records the definitions the client will see as untrusted (`definition`
   * kind: field values at most, SPEC §2.5).
   *
   * Source: SPEC §2.2.
   * @param server - The server name.
   * @param tools - Every tool the upstream lists now, as listed (extra fields are kept).
   * @param options - `showListed` under `--mode audit` (SPEC §3.8): the client sees the tools as
   *   listed, so those are what is recorded and returned as `visible`; pins and events as ever.
   * @returns The list for the client, the pin events since the previous walk and the definitions
   *   waiting for approval.
   * @throws {Error} When a definition nests deeper than 1,000 levels (the walk fails: calls deny),
   *   or the pin store fails.
   */
  async walkTools(
    server: string,
    tools: readonly ToolDefinition[],
    options: { readonly showListed?: boolean } = {},
  ): Promise<WalkResult> {
    for (const tool of tools) {
      // As a call's arguments (SPEC §3.1): deeper than any real schema, and a pin file of it would
      // cost time and memory growing with the square of its depth. The walk fails: calls deny.
      if (valueNestsDeeperThan(tool, MAX_NESTING))
        throw new Error(
          `the definition of tool ${JSON.stringify(String(tool.name).slice(0, 80))} nests JSON objects and arrays deeper than ${MAX_NESTING} levels`,
        );
    }
    const entry = this.#server(server);
    entry.listed = tools;
    entry.view = undefined;
    const stored = await this.#pins.load(entry.context);
    const mode = this.#options.pinMode ?? "tofu";
    const firstSight = stored === undefined;
    const first = comparePins(stored ?? NO_PINS, tools, { hash: sha256, firstSight, mode });
    let pinnedNow = new Set(first.pinNow.map((def) => def.name));
    if (first.pinNow.length > 0 || (firstSight && mode !== "strict")) {
      // Another session of this server may have pinned it since the load: the first writer wins,
      // and this walk is compared with its pins (a different definition is changed, SPEC §2.2).
      if (!(await this.#pins.pin(entry.context, first.pinNow, { firstSight }))) pinnedNow = new Set();
    }
    const view = await this.#view(entry);
    const events = walkEvents(server, view, { pinnedNow, lastEvents: entry.lastEvents });
    const visible = options.showListed === true ? tools : view.comparison.visible;
    const indexed: IndexEntry[] = [];
    for (const def of visible) {
      indexed.push(...this.recordDefinition(server, def.name, def as unknown as JsonValue));
    }
    return { visible, events, indexed, pending: pendingOf(view) };
  }

  /**
   * Decides one `tools/call` through the engine (SPEC §2): pin status from the last walk (re-reading
   * the pins first, so an accept from a terminal takes effect), the cached rules, the path context.
   *
   * Source: SPEC §2, §2.3 (count once per request).
   * @param server - The server name.
   * @param tool - The tool name as called.
   * @param args - The arguments exactly as they would be forwarded.
   * @param options - First evaluation or re-decision, one-time approvals, the request's seq.
   * @returns The decision, the request's seq, the rules and the pin status.
   */
  async decideCall(
    server: string,
    tool: string,
    args: JsonObject,
    options: DecideOptions = {},
  ): Promise<GateDecision> {
    const entry = this.#server(server);
    const seq = options.seq ?? this.nextSeq();
    // Pins the caller just read are compared at once (no turn of its own: this runs for every call).
    const view =
      options.pins === undefined ? await this.#view(entry) : this.#viewOf(entry, options.pins.pins);
    const pin: PinStatus = view.comparison.tools.get(tool)?.status ?? { kind: "unknown" };
    const rules = this.#rulesFor(entry, tool);
    const schema = view.effective.get(tool)?.definition.inputSchema;
    // Assigned field by field (no spreads: this runs for every call); the path context is per server.
    const input: { -readonly [K in keyof CallInput]: CallInput[K] } = {
      server,
      tool,
      arguments: args,
      rules,
      pin,
      paths: entry.paths,
      countAttempt: options.countAttempt ?? true,
    };
    if (schema !== undefined) input.schema = schema;
    if (this.#options.pinMode !== undefined) input.pinMode = this.#options.pinMode;
    if (this.#options.pinsForgotten?.() === true) input.pinsForgotten = true;
    if (options.oneTimeApprovals !== undefined) input.oneTimeApprovals = options.oneTimeApprovals;
    const { externalTaint } = this.#options;
    if (externalTaint !== undefined) input.externalTaint = externalTaint;
    return { decision: decide(input, this.state), seq, rules, pin };
  }

  /**
   * Applies the human's answer to an ask: remembered approvals and declines (SPEC §2.5), and an
   * accepted changed or new tool is re-pinned when the answer is remembered (SPEC §2.2). The re-pin
   * is written first: when it fails, nothing of the answer is kept (the next call asks again).
   * @param questions - The ask's questions (from the `ask` decision).
   * @param answer - Accepted or not, remember, URL scope.
   * @returns The one-time approvals for the re-decision and the tools re-pinned.
   * @throws {BouncerError} When a re-pin cannot be written: the approval is not kept.
   */
  async answer(questions: readonly Question[], answer: AskAnswer): Promise<AnswerResult> {
    if (!answer.accepted) {
      applyAnswer(this.state, questions, answer);
      return { oneTimeApprovals: [], events: [] };
    }
    const repinned = answer.remember
      ? await repinApproved(this.#pins, { servers: this.#servers, questions })
      : [];
    applyAnswer(this.state, questions, answer);
    const events: PinEvent[] = [];
    for (const { entry, tool, hash } of repinned) {
      await this.#view(entry);
      entry.lastEvents.set(tool, `accepted:${hash}`);
      events.push({ kind: "accepted", server: entry.context.name, tool, hash });
    }
    return { oneTimeApprovals: questions.map((question) => answerKey(question, answer.scope)), events };
  }

  /**
   * Whether the last walk of a server listed a tool (for the proxy's "re-walk once, then deny").
   * @param server - The server name.
   * @param tool - The tool name.
   * @returns True when the tool is listed (pinned, changed or new).
   */
  knowsTool(server: string, tool: string): boolean {
    return this.#servers.get(server)?.view?.comparison.tools.has(tool) === true;
  }

  /**
   * The effective rules of a tool as the gate would decide it now (for `explain`-like views).
   * @param server - The server name.
   * @param tool - The tool name.
   * @returns The cached or newly resolved rules.
   */
  override rulesFor(server: string, tool: string): ToolRules {
    return this.#rulesFor(this.#server(server), tool);
  }

  #server(name: string): ServerState {
    const existing = this.#servers.get(name);
    if (existing !== undefined) return existing;
    this.registerServer({ name });
    return this.#servers.get(name)!;
  }

  /** {@link #viewOf} the pins as the store has them now. */
  async #view(entry: ServerState): Promise<PinView> {
    return this.#viewOf(entry, await this.#pins.load(entry.context));
  }

  /**
   * The server's pin view, re-compared only when the walk or the pins changed.
   * @param entry - The server.
   * @param read - The pins as read from the store (undefined: never pinned).
   * @returns The view.
   */
  #viewOf(entry: ServerState, read: PinsRead["pins"]): PinView {
    const pins = read ?? NO_PINS;
    if (entry.view !== undefined && entry.view.pins === pins) return entry.view;
    entry.view = viewPins(pins, { listed: entry.listed ?? [], mode: this.#options.pinMode ?? "tofu" });
    return entry.view;
  }

  #rulesFor(entry: ServerState, tool: string): ToolRules {
    return cachedRules(this.#policy, entry, tool);
  }
}
