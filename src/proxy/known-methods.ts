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
