/**
 * The denies the proxy decides itself, live and in replay alike — a call whose JSON is ambiguous, a
 * call aborted before it was forwarded, a failure while deciding — and the tool result a blocked
 * call gets. Pure.
 *
 * Source: SPEC §2.1 (verdicts, "[bouncer blocked] <reason>"), §3.1, §3.5 (fail closed).
 * @module
 */

import type { AmbiguousJson } from "../audit/index.ts";
import type { Decision, JsonObject, Reason } from "../engine/index.ts";
import { type AbortWhy, abortPhrase } from "./relay-support.ts";
import { MAX_NESTING } from "./strict-json.ts";

/**
 * The deny of a call whose JSON is ambiguous: the upstream's parser might read other arguments than
 * the ones Bouncer decided on (a repeated key, a rounded integer). Live and in replay alike.
 *
 * Source: README "Behaviour chosen where the specification is silent" (STYLE: fail closed).
 * @param why - What was ambiguous.
 * @returns The `ambiguous_json` deny (contract `default`).
 */
export function ambiguousJsonDeny(why: AmbiguousJson): Decision {
  if (why === "too_deep") {
    return proxyDeny({
      code: "ambiguous_json",
      message: `The call's JSON nests deeper than ${MAX_NESTING} levels, more than Bouncer decides on`,
    });
  }
  const what =
    why === "duplicate_keys"
      ? "repeats an object key (or spells one twice in different letter case)"
      : "holds an integer beyond ±2^53";
  return proxyDeny({
    code: "ambiguous_json",
    message: `The call's JSON ${what}, so the upstream might read other arguments than Bouncer decided on`,
  });
}

/**
 * The tool result of a blocked call (SPEC §2.1).
 *
 * Source: SPEC §2.1 ("one text block `[bouncer blocked] <reason>`").
 * @param reason - Why.
 * @returns The `tools/call` result.
 */
export function blockedResult(reason: string): JsonObject {
  return { content: [{ type: "text", text: `[bouncer blocked] ${reason}` }], isError: true };
}

/**
 * The record of a call aborted while it was being decided: never forwarded, whatever the decision.
 * @param why - What aborted it.
 * @returns A `not_forwarded` deny (contract `default`) saying why.
 */
export function notForwardedDeny(why: AbortWhy): Decision {
  return proxyDeny({
    code: "not_forwarded",
    message: `${abortPhrase(why)} while the call was being decided: it was not forwarded`,
  });
}

/**
 * A deny the proxy itself decides (the message could not be decided on as sent, or deciding failed).
 * @param reason - Code and message.
 * @returns A deny decision with one `default` reason.
 */
export function proxyDeny(reason: { readonly code: string; readonly message: string }): Decision {
  const only: Reason = { ...reason, source: "default" };
  return { verdict: "deny", contract: "default", reasons: [only] };
}
