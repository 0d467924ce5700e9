/**
 * The MCP methods Bouncer knows, for `--unknown-methods deny` (default `relay`: methods and fields
 * Bouncer does not know are relayed unchanged in both directions). Edge (pure data).
 *
 * Source: SPEC §3.1 ("Everything else … is relayed unchanged … --unknown-methods relay|deny"); the
 * method list of MCP 2025-11-25 (as in `@modelcontextprotocol/sdk` types) plus `server/discover` of
 * 2026-07-28.
 * @module
 */

/** Request methods of MCP, both directions. */
const REQUEST_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "sampling/createMessage",
  "elicitation/create",
  "roots/list",
  "tasks/get",
  "tasks/result",
  "tasks/list",
  "tasks/cancel",
]);

/** Notification methods of MCP, both directions. */
const NOTIFICATION_METHODS: ReadonlySet<string> = new Set([
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/message",
  "notifications/resources/updated",
  "notifications/resources/list_changed",
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/roots/list_changed",
  "notifications/elicitation/complete",
  "notifications/tasks/status",
]);

/**
 * Whether Bouncer knows a method.
 *
 * Source: SPEC §3.1.
 * @param method - The method name.
 * @param kind - Whether it came as a request or a notification.
 * @returns True for an MCP method of that kind.
 */
export function isKnownMethod(method: string, kind: "request" | "notification"): boolean {
  return kind === "request" ? REQUEST_METHODS.has(method) : NOTIFICATION_METHODS.has(method);
}

/** The methods Bouncer decides or rewrites itself; a near spelling of one is never relayed. */
const GATED_METHODS: readonly string[] = ["initialize", "tools/list", "tools/call"];

/**
 * A method name reduced to its letters, case folded after NFKC (`Tools/Call`, `tools/call\u0000`,
 * `tools\u200B/call`, `tools_call`, fullwidth `ｔｏｏｌｓ／ｃａｌｌ` all give `toolscall`).
 * @param method - A method name.
 * @returns Its lowercase ASCII letters.
 */
function letters(method: string): string {
  return method
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^a-z]/g, "");
}

/** {@link GATED_METHODS} reduced to their letters. */
const GATED_LETTERS: ReadonlySet<string> = new Set(GATED_METHODS.map(letters));

/**
 * Whether a method is a near spelling of one Bouncer gates (`initialize`, `tools/list`,
 * `tools/call`) without being it: relayed, it would pass ungated to an upstream that folds case,
 * trims or stops at a NUL. Such a request is refused and such a notification dropped, whatever
 * `--unknown-methods` says.
 *
 * Source: SPEC §3.1 (every `tools/call` is decided; fail closed where a method is ambiguous).
 * @param method - The method name as sent.
 * @returns True for a near spelling, false for the exact names and every other method.
 * @example nearGatedMethod("Tools/Call") // => true
 */
export function nearGatedMethod(method: string): boolean {
  if (GATED_METHODS.includes(method)) return false;
  return GATED_LETTERS.has(letters(method));
}

/**
 * Whether a method is a near spelling of `tools/call` (see {@link nearGatedMethod}): as a
 * notification, it is a call without an id, dropped and audited as one.
 * @param method - The method name as sent.
 * @returns True for a near spelling of `tools/call`.
 */
export function nearToolsCall(method: string): boolean {
  return method !== "tools/call" && letters(method) === "toolscall";
}
