/**
 * The sentences that explain why an ask did not end in an approval (SPEC §3.4 life cycle), each with
 * what the human can do instead: trust a destination in policy, accept a tool's definition with
 * `bouncer pins accept`. Edge (pure).
 *
 * Source: SPEC §3.4 ("a fast decline denies with a reason saying the client may decline on its own and
 * how to trust the destination in policy or with `bouncer approve`"), §2.2 ("Without a way to ask,
 * every pinning ask denies, naming `bouncer pins accept SERVER TOOL`").
 * @module
 */

import {
  acceptCommand,
  PINS_FORGOTTEN_HINT,
  PINS_OFF_HINT,
  type Question,
  type Reason,
  renderUntrusted,
} from "../engine/index.ts";
import { abortPhrase } from "./relay-support.ts";

/** What a remedy sentence is built from. */
export interface RemedyContext {
  readonly server: string;
  readonly tool: string;
  readonly questions: readonly Question[];
  /** Whether `bouncer approve` exists in this build (SPEC §5.8; not built yet). */
  readonly approveCommand: boolean;
  /** `--pins off`: no pin file for `bouncer pins accept` (SPEC §2.2). */
  readonly pinsOff?: boolean;
  /** The pin file was removed while the session runs (`bouncer pins forget`): nothing to accept into. */
  readonly pinsForgotten?: boolean;
}

/**
 * What the human can do instead of answering an ask, one clause per kind of question.
 *
 * Source: SPEC §2.2, §3.4.
 * @param context - The call and its questions.
 * @returns E.g. `to send there without asking, add the destination to trusted_destinations of
 * "send_email" in your policy`.
 * @throws Never.
 */
export function remedy(context: RemedyContext): string {
  const kinds = new Set(context.questions.map((question) => question.kind));
  const tool = renderUntrusted(context.tool);
  const clauses: string[] = [];
  if (kinds.has("destination")) {
    clauses.push(
      `to send there without asking, add the destination to trusted_destinations of ${tool} in your policy`,
    );
  }
  const pinning = context.questions.find(
    (question) => question.kind === "changed_tool" || question.kind === "new_tool",
  );
  if (pinning !== undefined && context.pinsOff === true) clauses.push(PINS_OFF_HINT);
  else if (pinning !== undefined && context.pinsForgotten === true) clauses.push(PINS_FORGOTTEN_HINT);
  else if (pinning !== undefined) {
    // Bound to the definition the question showed: an accept of a later one is refused. It asks on
    // the controlling terminal, so the person runs it (an agent's shell tool is refused).
    const command = acceptCommand(context.server, { tool: context.tool, hash: pinning.key.identity });
    clauses.push(`to accept the tool's definition, a person at a terminal can run: ${command}`);
  }
  if (kinds.has("action")) {
    clauses.push(`the policy asks before every call of ${tool} (action: ask or unclassified: ask)`);
  }
  if (context.approveCommand) clauses.push("or approve it from a terminal with: bouncer approve");
  return clauses.join("; ");
}

/**
 * What a blocked ask's reason says it asked: its first question's reason, and how many questions it
 * held when more than one (one ask can hold thousands of destinations).
 *
 * Source: SPEC §2.5 ("Ask once per call"), §3.4.
 * @param reasons - The ask decision's reasons, one per question.
 * @returns E.g. `asked: Destination "x@y.example" in to is not trusted …`, or `asked 2001
 *   questions; the first: …`.
 * @throws Never.
 */
export function askedPhrase(reasons: readonly [Reason, ...Reason[]]): string {
  const first = reasons[0].message;
  return reasons.length === 1 ? `asked: ${first}` : `asked ${reasons.length} questions; the first: ${first}`;
}

function withRemedy(sentence: string, context: RemedyContext): string {
  const rest = remedy(context);
  return rest === "" ? sentence : `${sentence}; ${rest}`;
}

/**
 * The reason sentences, one per outcome.
 *
 * Source: SPEC §3.4, §3.5 (outcomes).
 */
export const askReasons = {
  declined(): string {
    return "The person declined the call";
  },
  dismissed(): string {
    return "The person dismissed the question without approving the call";
  },
  malformed(detail: string): string {
    return `The client's answer did not match the form Bouncer sent (${detail}), so the call is not approved`;
  },
  autoDeclined(elapsedMs: number, minMs: number, context: RemedyContext): string {
    return withRemedy(
      `The client declined after ${elapsedMs} ms, faster than a person can read the question (--human-min-ms ${minMs}): it may decline questions on its own without showing them`,
      context,
    );
  },
  autoAccepted(elapsedMs: number, minMs: number, context: RemedyContext): string {
    return withRemedy(
      `The client accepted after ${elapsedMs} ms, faster than a person can read the question (--human-min-ms ${minMs}): Bouncer relies on the client showing its questions to a person, so this is not an approval`,
      context,
    );
  },
  cancelled(why?: unknown): string {
    return `${abortPhrase(why)} while Bouncer was waiting for approval; nothing was forwarded`;
  },
  timeout(seconds: number, context: RemedyContext): string {
    return withRemedy(`Nobody answered the question within ${seconds} s (--ask-timeout)`, context);
  },
  noChannel(why: string, context: RemedyContext): string {
    return withRemedy(`Bouncer cannot ask a person to approve this call because ${why}`, context);
  },
  clientError(message: string, context: RemedyContext): string {
    return withRemedy(
      `The client answered Bouncer's question with an error (${renderUntrusted(message)})`,
      context,
    );
  },
  limit(maxAsks: number, context: RemedyContext): string {
    return withRemedy(
      `Bouncer has already asked ${maxAsks === 1 ? "1 question" : `${maxAsks} questions`} in this session, the most --max-asks allows`,
      context,
    );
  },
} as const;
