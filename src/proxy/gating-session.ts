/**
 * The start of one gated session: the policy — the files `bouncer run` validated before the spawn,
 * or read and validated here (an invalid one refuses the session) — with the packs, then the gate
 * with its pin store (`$BOUNCER_HOME/pins`, or memory with `--pins off`) and the file-system path
 * walk, the audit log, the `--record` session file, the tool list and the asker — everything a gated
 * call needs. Edge.
 *
 * Source: SPEC §3.2 (never run ungated), §2.2 (pins), §2.4 (path walk), §3.4 (asks), §3.5, §3.6.
 * @module
 */

import { isAbsolute, join, resolve } from "node:path";
import { createAuditWriter, createSessionRecorder, type SessionRecorder } from "../audit/index.ts";
import type { JsonObject } from "../engine/index.ts";
import { errorText } from "../engine/index.ts";
import { userHome } from "../platform/home-dir.ts";
import { builtinPacks } from "../platform/packs.ts";
import { resolvePathSteps } from "../platform/path-walk.ts";
import {
  type ConfinementWarning,
  confinementWarnings,
  createPolicy,
  type MatchedPack,
  type Policy,
  type PolicyFile,
} from "../policy/index.ts";
import { createAsker } from "./asker.ts";
import { elicitationSupport } from "./elicitation-support.ts";
import { createFilePinStore, type FilePinStore } from "./file-pin-store.ts";
import { Gate, type ServerContext } from "./gate.ts";
import type { CallGate } from "./gated-call.ts";
import type { RpcErrorObject } from "./jsonrpc.ts";
import { listedToolWarnings } from "./listed-tool-warnings.ts";
import { createMemoryPinStore } from "./memory-pin-store.ts";
import { ownPaths } from "./own-paths.ts";
import type { RelayContext } from "./relay-hooks.ts";
import type { RunOptions } from "./run-args.ts";
import { checkRunPolicy, SESSION_REFUSED_CODE } from "./run-policy.ts";
import { SessionAudit } from "./session-audit.ts";
import { sessionId } from "./session-id.ts";
import { ToolListState } from "./tool-list-state.ts";

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
  /** The values of the upstream's secret-named environment variables, hidden in audit records. */
  readonly upstreamSecrets?: readonly string[];
  /** The upstream's stderr redaction, for diagnostic lines that quote the upstream. */
  readonly hideUpstreamSecrets?: (text: string) => string;
  /** One diagnostic line to stderr. */
  readonly log: (message: string) => void;
  /**
   * The `--policy` files, already validated (`bouncer run` checks them before the spawn); when
   * absent, the session reads and validates `run.policies` itself.
   */
  readonly policyFiles?: readonly PolicyFile[];
  /**
   * The `--record` session file, already open (`bouncer run` opens it before the spawn); when
   * absent and `run.record` is set, the session opens it itself.
   */
  readonly recorder?: SessionRecorder;
}

export { SESSION_REFUSED_CODE } from "./run-policy.ts";

/** A session that can gate. */
export interface LiveSession {
  readonly kind: "live";
  readonly calls: CallGate;
  readonly context: ServerContext;
  /** The user's files with the packs (for the start-up warnings). */
  readonly policy: Policy;
}

/** A session refused at start-up (invalid policy, unwritable session file). */
export interface RefusedSession {
  readonly kind: "refused";
  readonly error: RpcErrorObject;
  readonly exitCode: number;
}

/**
 * Combines the policy files with the packs and builds the session's parts; nothing here waits for
 * the upstream.
 *
 * Source: SPEC §3.2 step 1–2.
 * @param context - The relay context (Bouncer's own requests and notifications).
 * @param setup - Flags, upstream, home and logger.
 * @returns The live session, or why it is refused (with the exit status).
 */
export async function startGatingSession(
  context: RelayContext,
  setup: GatingSetup,
): Promise<LiveSession | RefusedSession> {
  const { run, upstream, log } = setup;
  const checked =
    setup.policyFiles === undefined
      ? await checkRunPolicy(run.policies, process.cwd())
      : { ok: true as const, files: setup.policyFiles };
  if (!checked.ok) return { kind: "refused", error: checked.error, exitCode: 2 };
  const policy = createPolicy(checked.files, builtinPacks());
  const server: ServerContext = {
    name: upstream.name,
    command: [upstream.command, ...upstream.args],
    cwd: upstream.cwd,
  };
  // Set once the store finds its file removed (`bouncer pins forget`): reasons then name a restart.
  let forgotten = false;
  const pinsForgotten = (): boolean => forgotten;
  const filePins: FilePinStore | undefined =
    run.pins === "off"
      ? undefined
      : createFilePinStore({
          home: setup.home,
          onGone: (path) => {
            forgotten = true;
            log(
              `The pins "${path}" were removed while this session runs: it keeps deciding on the pins it had, until it restarts`,
            );
          },
        });
  const pins = filePins ?? createMemoryPinStore();
  const gate = new Gate(policy, {
    pins,
    pinMode: run.pins,
    pinsForgotten,
    home: userHome(),
    cwd: upstream.cwd,
    platform: process.platform === "win32" ? "win32" : "posix",
    resolvePath: resolvePathSteps,
    protectedPaths: ownPaths({
      home: setup.home,
      cwd: process.cwd(),
      policies: setup.run.policies,
      auditLog: auditPath(setup),
      ...(setup.run.record === undefined ? {} : { record: setup.run.record }),
      ...(setup.run.config === undefined ? {} : { config: setup.run.config }),
    }),
  });
  gate.registerServer(server);
  const writer = createAuditWriter(auditPath(setup), {
    warn: setup.log,
    ...(setup.upstreamSecrets === undefined ? {} : { secrets: setup.upstreamSecrets }),
  });
  try {
    writer.open();
  } catch (error) {
    log(`${errorText(error)}: every tools/call will be blocked`);
  }
  let recorder = setup.recorder;
  if (recorder === undefined && run.record !== undefined) {
    try {
      recorder = createSessionRecorder(resolve(process.cwd(), run.record));
    } catch (error) {
      return refuse({ message: errorText(error), data: {} }, 1);
    }
  }
  const audit = new SessionAudit({
    session: sessionId({ env: process.env, ppid: process.ppid }),
    server: upstream.name,
    writer,
    ...(recorder === undefined ? {} : { recorder }),
    mode: run.mode,
    log,
  });
  const tools = new ToolListState({
    gate,
    pins,
    ...(filePins === undefined ? {} : { filePins }),
    server,
    audit,
    requestUpstream: (method, params, options) => context.requestUpstream(method, params, options),
    notifyClient: (method, params) => context.notifyClient(method, params),
    log,
    ...(setup.hideUpstreamSecrets === undefined ? {} : { hideUpstreamSecrets: setup.hideUpstreamSecrets }),
    mode: run.mode,
    onListed: listedToolWarnings({
      policy,
      server: upstream.name,
      rulesFor: (tool) => gate.rulesFor(upstream.name, tool),
      log,
    }),
  });
  const asker = createAsker({
    requestClient: (method, params, options) => context.requestClient(method, params, options),
    clientCapabilities: () => elicitationSupport(context.session()),
    now: () => performance.now(),
    askTimeoutMs: run.askTimeoutSeconds * 1000,
    maxAsks: run.maxAsks,
    humanMinMs: run.humanMinMs,
    pinsOff: run.pins === "off",
    pinsForgotten,
    sendProgress: (progressToken, progress, message) =>
      context.notifyClient("notifications/progress", { progressToken, progress, message }),
    log,
  });
  const calls: CallGate = { server: upstream.name, gate, tools, audit, asker, mode: run.mode, log };
  return { kind: "live", calls, context: server, policy };
}

/**
 * The user's path prefixes that confine nothing on this server (a written `[]`, or no `write_params`
 * in any layer), once its packs are known: said on stderr at start, the session decides as before.
 *
 * Source: SPEC §2.4, §4.1, §4.3.
 * @param session - The live session.
 * @param server - The server as registered (command line, serverInfo).
 * @param packs - The packs that matched it.
 * @returns The warnings, for every tool the files name at the top level or under `servers.<name>`.
 */
export function startConfinementWarnings(
  session: LiveSession,
  server: ServerContext,
  packs: readonly MatchedPack[],
): ConfinementWarning[] {
  const { command } = server;
  return confinementWarnings(session.policy, {
    server: server.name,
    packs,
    packsKnown: true,
    ...(command === undefined ? {} : { command }),
  });
}

/**
 * A refused session: the `initialize` error and the exit status.
 *
 * Source: SPEC §3.2 ("answer with a JSON-RPC error carrying the policy error and exit 2").
 * @param error - Message and data.
 * @param exitCode - The exit status.
 * @returns The refusal.
 */
export function refuse(
  error: { readonly message: string; readonly data: JsonObject },
  exitCode: number,
): RefusedSession {
  return { kind: "refused", error: { code: SESSION_REFUSED_CODE, ...error }, exitCode };
}

/**
 * The audit log's path: `--audit-log` (relative to Bouncer's working directory) or
 * `$BOUNCER_HOME/audit.jsonl`.
 * @param setup - Flags and home.
 * @returns An absolute path.
 */
function auditPath(setup: GatingSetup): string {
  const flag = setup.run.auditLog;
  if (flag === undefined) return join(setup.home, "audit.jsonl");
  return isAbsolute(flag) ? flag : resolve(process.cwd(), flag);
}
