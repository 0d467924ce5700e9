/**
 * What Bouncer's one elicitation per call looks like, and how its answer is read: the message (the
 * `[bouncer]` marker, server, tool and every question), the form (`remember`, and `scope` when a
 * question is about a URL), and the strict reading of the client's `ElicitResult`. Edge (pure).
 *
 * Source: SPEC §3.4 (channel 1: elicitation; rendering untrusted strings), §2.5 ("Approvals").
 * @module
 */

import {
  type AskAnswer,
  argumentLines,
  confirmsOneCall,
  escapeControls,
  type JsonObject,
  type JsonValue,
  type Question,
  renderUntrusted,
} from "../engine/index.ts";
import { BOUNCER_MARKER } from "./bouncer-marker.ts";
import { isJsonObject } from "./jsonrpc.ts";

/** The `scope` choices, as the client shows them. */
export const SCOPE_THIS_URL = "this URL";
export const SCOPE_WHOLE_SITE = "whole site";

/**
 * Makes an engine sentence safe to show: its untrusted parts are already rendered (SPEC §3.4), so
 * this only escapes any stray control or invisible character as `\u{…}` (line feeds kept: a changed
 * tool's description diff is one line per change).
 * @param text - A question message from the engine.
 * @returns The same text with unsafe characters escaped.
 */
function safeSentence(text: string): string {
  return escapeControls(text, { keepNewlines: true });
}

/**
 * Whether a `scope` field is offered: when any question is about a URL destination.
 * @param questions - The ask's questions.
 * @returns True when one has an `origin`.
 */
export function offersScope(questions: readonly Question[]): boolean {
  return questions.some((question) => question.origin !== undefined);
}

/**
 * Whether a `remember` field is offered: unless every question is an `action: ask` confirmation, whose
 * approval is never remembered (that rule asks before every call; SPEC §2.4) — offering it there would
 * say an accept is remembered when it is not.
 * @param questions - The ask's questions.
 * @returns False when only `action: ask` questions are asked.
 */
function offersRemember(questions: readonly Question[]): boolean {
  return !questions.every(confirmsOneCall);
}

/**
 * The elicitation message: the marker, the server and tool (rendered as untrusted strings), how many
 * destinations it asks about when more than one, and every question, numbered, each on its own
 * line(s).
 *
 * Source: SPEC §3.4 ("a form elicitation whose message names server, tool and every question").
 * @param call - The server and tool of the gated call, and the ask's questions.
 * @returns The message text, starting with `[bouncer]`.
 * @throws Never.
 */
export function renderAskMessage(call: {
  readonly server: string;
  readonly tool: string;
  readonly questions: readonly Question[];
  /** Shown, one argument a line, when a question confirms the call itself and does not list them. */
  readonly arguments?: JsonObject | undefined;
}): string {
  const { questions } = call;
  // An `action: ask` question lists the arguments itself; any other question about the call (an
  // unclassified tool) is followed by them.
  const listed = questions.some(confirmsOneCall);
  const perCall = !listed && questions.some((question) => question.kind === "action");
  const shownArgs =
    perCall && call.arguments !== undefined ? [`This call's arguments:${argumentLines(call.arguments)}`] : [];
  const head = `${BOUNCER_MARKER} Approval needed: tool ${renderUntrusted(call.tool)} on server ${renderUntrusted(call.server)}.`;
  // How many destinations one accept approves, before the first of them (an ask can hold thousands).
  const destinations = questions.filter((question) => question.kind === "destination").length;
  const count =
    destinations > 1
      ? [
          `This call has ${destinations} destinations needing approval (not trusted), all listed below; accepting approves all ${destinations}.`,
        ]
      : [];
  const lines = questions.map((question, index) =>
    questions.length === 1
      ? safeSentence(question.message)
      : `${index + 1}. ${safeSentence(question.message)}`,
  );
  const scope = offersScope(questions)
    ? ` "Approve for" chooses this exact URL or the whole site (${questions
        .flatMap((question) => (question.origin === undefined ? [] : [renderUntrusted(question.origin)]))
        .join(", ")}).`
    : "";
  const tail = offersRemember(questions)
    ? `Accept to allow this call, decline to block it.${scope}`
    : "Accept to allow this call only (the policy asks before every call of this tool), decline to block it and identical calls in this session.";
  return [head, ...count, ...lines, ...shownArgs, tail].join("\n");
}

/**
 * The form: `remember` (boolean, default true; not offered when only `action: ask` questions are
 * asked, see {@link offersRemember}) and, for URL destinations, `scope` (this URL | whole site). Only
 * primitive top-level properties, as MCP form elicitation allows; nothing is required.
 *
 * Source: SPEC §3.4 (fields `remember` and `scope`); MCP 2025-06-18 / 2025-11-25 `requestedSchema`.
 * @param questions - The ask's questions.
 * @returns The `requestedSchema`.
 * @throws Never.
 */
export function askSchema(questions: readonly Question[]): JsonObject {
  const properties: JsonObject = {};
  if (offersRemember(questions)) {
    properties.remember = {
      type: "boolean",
      title: "Remember for this session",
      description: questions.some(confirmsOneCall)
        ? "Answer the questions about destinations and tools the same way for the rest of this session, and block identical calls after a decline; an accept of the call itself is never remembered (action: ask)"
        : "Answer the same question the same way for the rest of this session without asking again",
      default: true,
    };
  }
  if (offersScope(questions)) {
    properties.scope = {
      type: "string",
      title: "Approve for",
      description: "This exact URL (with its query), or every URL of the same site (scheme, host and port)",
      enum: [SCOPE_THIS_URL, SCOPE_WHOLE_SITE],
      default: SCOPE_THIS_URL,
    };
  }
  return { type: "object", properties };
}

/** The client's answer, read strictly. */
export type ReadAnswer =
  | { readonly action: "accept"; readonly answer: AskAnswer }
  /** `remember` as the form said (absent content: the decline is remembered). */
  | { readonly action: "decline"; readonly remember: boolean }
  | { readonly action: "cancel" }
  /** Not an `ElicitResult` matching the form Bouncer sent (F23: deny). */
  | { readonly action: "malformed"; readonly detail: string };

/** The form's fields as answered: `remember` when given, the URL scope (default this URL). */
type ReadContent =
  | { readonly ok: true; readonly remember: boolean | undefined; readonly scope: "url" | "site" }
  | { readonly ok: false; readonly detail: string };

function readContent(
  content: JsonObject,
  offered: { readonly scope: boolean; readonly remember: boolean },
): ReadContent {
  let remember: boolean | undefined;
  let scope: "url" | "site" = "url";
  for (const key of Object.keys(content)) {
    const value = content[key];
    if (key === "remember" && offered.remember && typeof value === "boolean") remember = value;
    else if (key === "scope" && offered.scope && (value === SCOPE_THIS_URL || value === SCOPE_WHOLE_SITE)) {
      scope = value === SCOPE_WHOLE_SITE ? "site" : "url";
    } else {
      return {
        ok: false,
        detail: `the answer's field ${renderUntrusted(key)} is not in the form or has a wrong value`,
      };
    }
  }
  return { ok: true, remember, scope };
}

/**
 * Reads an `ElicitResult` against the form Bouncer sent. Accept without `content` (yes/no clients)
 * is a plain accept without remembering; accept with content remembers only when `remember` is
 * `true` (an approval is never widened by a missing field); a decline is remembered unless
 * `remember` is `false` (fail closed); an unknown field (`remember` or `scope` where the form had
 * none), a wrong type or an unknown action is malformed (deny).
 *
 * Source: SPEC §3.4 ("Missing content … counts as a plain accept without remembering"); field case
 * F23 ("Only accept answers that match the schema Bouncer sent").
 * @param result - The client's result.
 * @param questions - The ask's questions: which fields the form had (`scope`, `remember`).
 * @returns The answer.
 * @throws Never.
 */
export function readAskAnswer(result: JsonValue, questions: readonly Question[]): ReadAnswer {
  const scopeOffered = offersScope(questions);
  if (!isJsonObject(result)) return { action: "malformed", detail: "the answer is not an object" };
  const action = Object.hasOwn(result, "action") ? result.action : undefined;
  const content = Object.hasOwn(result, "content") ? result.content : undefined;
  if (action === "cancel") return { action: "cancel" };
  if (action !== "accept" && action !== "decline") {
    return { action: "malformed", detail: "the answer has no action accept, decline or cancel" };
  }
  if (content === undefined || content === null) {
    return action === "accept"
      ? { action: "accept", answer: { accepted: true, remember: false } }
      : { action: "decline", remember: true };
  }
  if (!isJsonObject(content)) return { action: "malformed", detail: "the answer's content is not an object" };
  const read = readContent(content, { scope: scopeOffered, remember: offersRemember(questions) });
  if (!read.ok) return { action: "malformed", detail: read.detail };
  if (action === "decline") return { action: "decline", remember: read.remember ?? true };
  return {
    action: "accept",
    answer: {
      accepted: true,
      remember: read.remember === true,
      ...(scopeOffered ? { scope: read.scope } : {}),
    },
  };
}
