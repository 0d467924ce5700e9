/**
 * Asks: one form elicitation per gated call, put to the client's human and read back (SPEC §3.4,
 * channel 1). One asker per `bouncer run` instance: its asks are serialised (one question on screen
 * at a time) and identical pending questions are merged (calls waiting on the same questions share
 * one answer). A client cancel of the gated call withdraws the elicitation; an unanswered ask times
 * out; after `maxAsks` asks every further ask is refused; an answer faster than a person can read is
 * treated as automatic. Time comes from the injected clock and scheduler, never from the asker itself.
 * Edge.
 *
 * The asker never decides and never touches the session state: the caller applies an outcome's
 * `answer` (approvals, remembered declines) through the gate and decides again.
 *
 * Source: SPEC §3.4 (channels, life cycle), §3.5 (outcomes), §2.5 ("Approvals"); field cases F20
 * (cancel while waiting for approval), F23 (clients that decline on their own).
 * @module
 */

import {
  confirmsOneCall,
  errorText,
  type JsonObject,
  type JsonValue,
  type Question,
} from "../engine/index.ts";
import { askReasons, type RemedyContext } from "./ask-reasons.ts";
import { askSchema, readAskAnswer, renderAskMessage } from "./asker-render.ts";
import type { Asker, AskerOptions, AskOutcome, AskRequest } from "./asker-types.ts";

export type { AskDecision, Asker, AskerOptions, AskOutcome, AskRequest, Schedule } from "./asker-types.ts";

/** The progress message sent while a call waits. */
export const WAITING_MESSAGE = "Waiting for a person to approve this call in the client";

/** The largest delay `setTimeout` takes. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The default scheduler: `setTimeout`, chained for delays beyond its limit.
 * @param ms - The delay.
 * @param run - What to run.
 * @returns A cancel function.
 */
function realSchedule(ms: number, run: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (left: number): void => {
    timer = setTimeout(
      () => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : run()),
      Math.min(left, MAX_TIMER_MS),
    );
  };
  arm(Math.max(0, ms));
  return () => clearTimeout(timer);
}

/** A call waiting for an answer. */
interface Waiter {
  readonly request: AskRequest;
  readonly finish: (outcome: AskOutcome) => void;
}

/** One elicitation, queued or on screen, and the calls waiting for it. */
interface Entry {
  readonly key: string;
  readonly remedy: RemedyContext;
  readonly questions: readonly Question[];
  readonly waiters: Set<Waiter>;
  /** The gated call's arguments, shown when a question confirms the call itself. */
  readonly args: JsonObject | undefined;
  /** Replaced when the entry is asked again for the calls an answer did not cover. */
  controller: AbortController;
  active: boolean;
  timedOut: boolean;
}

/**
 * Whether an answer covers only the call it was asked for — identical calls merged into the question
 * are asked again: an approval or decline the human chose not to remember ("Accept to allow this
 * call"), and any approval of an `action: ask` question, which confirms one call whatever `remember`
 * says (SPEC §2.4: it asks on every call; its decline is remembered, so it covers them all).
 */
function coversOneCall(outcome: AskOutcome, questions: readonly Question[]): boolean {
  if (outcome.kind !== "approved" && outcome.kind !== "declined") return false;
  if (outcome.answer?.remember === false) return true;
  return outcome.kind === "approved" && questions.some(confirmsOneCall);
}

/**
 * The merge key of an ask: its questions, order-free (each names server, tool, parameter, identity).
 * @param questions - The questions.
 * @returns A collision-free string.
 */
function mergeKey(questions: readonly Question[], args: JsonObject | undefined): string {
  const parts = questions.map((q) =>
    JSON.stringify([q.kind, q.key.server, q.key.tool, q.key.param, q.key.identity, q.origin ?? null]),
  );
  // A question about the call itself covers exactly these arguments: never merge across others.
  const perCall = questions.some((q) => q.kind === "action") ? JSON.stringify(args ?? {}) : null;
  return JSON.stringify([[...new Set(parts)].sort(), perCall]);
}

/**
 * Creates the asker of one `bouncer run` instance.
 *
 * Source: SPEC §3.4, §3.5.
 * @param options - The relay's request function, the client's support, clock, limits, progress, log.
 * @returns The asker.
 * @throws Never.
 * @example
 * const asker = createAsker({ requestClient: context.requestClient, clientCapabilities: () =>
 *   elicitationSupport(context.session()), now: () => performance.now(), log });
 * const outcome = await asker.ask({ server: "mail", tool: "send_email", decision, signal: call.signal });
 */
export function createAsker(options: AskerOptions): Asker {
  const schedule = options.schedule ?? realSchedule;
  const askTimeoutMs = options.askTimeoutMs ?? 600_000;
  const maxAsks = options.maxAsks ?? 20;
  const humanMinMs = options.humanMinMs ?? 300;
  const progressIntervalMs = options.progressIntervalMs ?? 5000;
  const pending = new Map<string, Entry>();
  const queue: Entry[] = [];
  let active: Entry | undefined;
  let asked = 0;

  function settle(entry: Entry, outcome: AskOutcome): void {
    if (pending.get(entry.key) === entry) pending.delete(entry.key);
    for (const waiter of [...entry.waiters]) waiter.finish(outcome);
    entry.waiters.clear();
  }

  function interpret(entry: Entry, result: JsonValue, elapsedMs: number): AskOutcome {
    const read = readAskAnswer(result, entry.questions);
    if (read.action === "malformed") {
      options.log(`The client's answer to an ask was not usable: ${read.detail}`);
      return { kind: "declined", reason: askReasons.malformed(read.detail) };
    }
    if (humanMinMs > 0 && elapsedMs < humanMinMs) {
      const ms = Math.max(0, Math.floor(elapsedMs));
      return read.action === "accept"
        ? { kind: "auto_accepted", reason: askReasons.autoAccepted(ms, humanMinMs, entry.remedy) }
        : { kind: "auto_declined", reason: askReasons.autoDeclined(ms, humanMinMs, entry.remedy) };
    }
    if (read.action === "accept") return { kind: "approved", answer: read.answer };
    if (read.action === "cancel") return { kind: "declined", reason: askReasons.dismissed() };
    return {
      kind: "declined",
      reason: askReasons.declined(),
      answer: { accepted: false, remember: read.remember },
    };
  }

  async function send(entry: Entry): Promise<void> {
    entry.active = true;
    const params: JsonObject = {
      message: renderAskMessage({ ...entry.remedy, questions: entry.questions, arguments: entry.args }),
      requestedSchema: askSchema(entry.questions),
    };
    const started = options.now();
    const stopTimer = schedule(askTimeoutMs, () => {
      entry.timedOut = true;
      entry.controller.abort();
    });
    let outcome: AskOutcome;
    try {
      const result = await options.requestClient("elicitation/create", params, {
        signal: entry.controller.signal,
      });
      outcome = interpret(entry, result, options.now() - started);
    } catch (error) {
      if (entry.timedOut) {
        outcome = {
          kind: "timeout",
          // Whole seconds as such; `--ask-timeout 1.5` is not rounded to "2 s" (three decimals at most).
          reason: askReasons.timeout(Math.round(askTimeoutMs) / 1000, entry.remedy),
        };
      } else if (entry.controller.signal.aborted) {
        outcome = { kind: "cancelled", reason: askReasons.cancelled() };
      } else {
        const message = errorText(error);
        options.log(`The client answered an ask with an error: ${JSON.stringify(message)}`);
        outcome = { kind: "no_channel", reason: askReasons.clientError(message, entry.remedy) };
      }
    } finally {
      stopTimer();
    }
    active = undefined;
    if (coversOneCall(outcome, entry.questions) && entry.waiters.size > 1) {
      // The first call is the one the question was sent for; the rest wait for their own answer.
      const [first] = entry.waiters;
      if (first !== undefined) {
        entry.waiters.delete(first);
        first.finish(outcome);
      }
      entry.active = false;
      entry.controller = new AbortController();
      queue.unshift(entry);
    } else settle(entry, outcome);
    pump();
  }

  function pump(): void {
    while (active === undefined && queue.length > 0) {
      const entry = queue.shift()!;
      if (entry.waiters.size === 0) {
        if (pending.get(entry.key) === entry) pending.delete(entry.key);
        continue;
      }
      if (asked >= maxAsks) {
        settle(entry, { kind: "limit", reason: askReasons.limit(maxAsks, entry.remedy) });
        continue;
      }
      asked += 1;
      active = entry;
      void send(entry);
    }
  }

  function withdraw(entry: Entry, waiter: Waiter): void {
    entry.waiters.delete(waiter);
    waiter.finish({ kind: "cancelled", reason: askReasons.cancelled(waiter.request.signal.reason) });
    if (entry.waiters.size > 0) return;
    if (entry.active) entry.controller.abort();
    else {
      const at = queue.indexOf(entry);
      if (at >= 0) queue.splice(at, 1);
      if (pending.get(entry.key) === entry) pending.delete(entry.key);
    }
  }

  function join(entry: Entry, request: AskRequest): Promise<AskOutcome> {
    return new Promise<AskOutcome>((resolve) => {
      let done = false;
      let progress = 0;
      let stopProgress = (): void => {};
      const token = request.progressToken;
      const tick = (): void => {
        if (done || token === undefined || options.sendProgress === undefined) return;
        progress += 1;
        options.sendProgress(token, progress, WAITING_MESSAGE);
        stopProgress = schedule(progressIntervalMs, tick);
      };
      const waiter: Waiter = {
        request,
        finish: (outcome) => {
          if (done) return;
          done = true;
          stopProgress();
          request.signal.removeEventListener("abort", onAbort);
          resolve(outcome);
        },
      };
      const onAbort = (): void => withdraw(entry, waiter);
      entry.waiters.add(waiter);
      request.signal.addEventListener("abort", onAbort, { once: true });
      tick();
    });
  }

  function ask(request: AskRequest): Promise<AskOutcome> {
    const { questions } = request.decision;
    const remedyContext: RemedyContext = {
      server: request.server,
      tool: request.tool,
      questions,
      approveCommand: options.approveCommand ?? false,
      pinsOff: options.pinsOff ?? false,
      pinsForgotten: options.pinsForgotten?.() ?? false,
    };
    if (request.signal.aborted) {
      return Promise.resolve({ kind: "cancelled", reason: askReasons.cancelled(request.signal.reason) });
    }
    const support = options.clientCapabilities();
    if (!support.form) {
      return Promise.resolve({
        kind: "no_channel",
        reason: askReasons.noChannel(support.why, remedyContext),
      });
    }
    const key = mergeKey(questions, request.arguments);
    let entry = pending.get(key);
    if (entry === undefined) {
      entry = {
        key,
        remedy: remedyContext,
        questions,
        waiters: new Set(),
        args: request.arguments,
        controller: new AbortController(),
        active: false,
        timedOut: false,
      };
      pending.set(key, entry);
      queue.push(entry);
    }
    const outcome = join(entry, request);
    pump();
    return outcome;
  }

  return {
    ask,
    get asked() {
      return asked;
    },
  };
}
