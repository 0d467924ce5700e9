/**
 * Local errors of the edges (STYLE #11): a {@link BouncerError} carries a stable string `code`, a
 * message written to the house grammar (STYLE #12) and an optional `cause`. Only `src/cli.ts` turns
 * one into an exit status: codes of usage and policy errors give 2, every other code gives 1
 * (SPEC §5 "Exit codes"). Wire errors (JSON-RPC) are a separate family and never use this class. Edge.
 *
 * Source: SPEC §5, STYLE #11–#12.
 * @module
 */

// A deep import on purpose (STYLE #9 otherwise): loaded by every command at start-up: not the whole engine.
import { errorText } from "../engine/error-text.ts";
import { escapeControls } from "../engine/render.ts";

/**
 * Codes that mean "usage or policy error" (exit 2, SPEC §5). Any other code, and any code not listed
 * here that does not end in `_INVALID`, is a runtime failure (exit 1). A file named on the command
 * line that is missing or cannot be read is a usage error (`POLICY_UNREADABLE`, `SESSION_UNREADABLE`,
 * `AUDIT_NAMED_UNREADABLE`, and `SCHEMA_INVALID` for `--schema`; `init`, `doctor` and `run` give 2
 * for their `--config` themselves); a file Bouncer keeps itself (the audit log at its default path,
 * the pin store), or one that turns unreadable while a command runs, is a runtime failure.
 *
 * Source: SPEC §5; README "Commands" (the rule for files).
 */
export const USAGE_ERROR_CODES: ReadonlySet<string> = new Set([
  "USAGE",
  "UNKNOWN_FLAG",
  "UNKNOWN_COMMAND",
  "MISSING_ARGUMENT",
  "POLICY_INVALID",
  "SESSION_INVALID",
  "CONFIG_INVALID",
  "SCHEMA_INVALID",
  "POLICY_UNREADABLE",
  "SESSION_UNREADABLE",
  "AUDIT_NAMED_UNREADABLE",
  "PACK_UNKNOWN",
]);

/** Options of a {@link BouncerError}. */
export interface BouncerErrorOptions {
  /** The underlying error, kept for diagnostics (never shown as the main message). */
  readonly cause?: unknown;
}

/**
 * An expected failure at an edge (bad flag, unreadable file, invalid policy, spawn failure).
 *
 * Source: STYLE #11.
 * @example new BouncerError("POLICY_INVALID", 'Cannot load policy "bouncer.yaml": line 4: unknown key "alow"')
 */
export class BouncerError extends Error {
  /** Stable upper-snake-case code, e.g. `POLICY_INVALID`, `CONFIG_UNREADABLE`, `UPSTREAM_SPAWN_FAILED`. */
  readonly code: string;

  /**
   * @param code - The stable error code.
   * @param message - Sentence case, no final period, values quoted (STYLE #12).
   * @param options - The cause, if any.
   */
  constructor(code: string, message: string, options: BouncerErrorOptions = {}) {
    super(message, Object.hasOwn(options, "cause") ? { cause: options.cause } : undefined);
    this.name = "BouncerError";
    this.code = code;
  }
}

/**
 * Whether an error is a {@link BouncerError} (also across module copies: checks the name and code).
 *
 * Source: STYLE #11.
 * @param error - Anything caught.
 * @returns True for a Bouncer error.
 */
export function isBouncerError(error: unknown): error is BouncerError {
  return (
    error instanceof BouncerError ||
    (error instanceof Error &&
      error.name === "BouncerError" &&
      typeof Reflect.get(error, "code") === "string")
  );
}

/**
 * The stable code an error carries: a {@link BouncerError}'s, or the `code` string of another error
 * that follows the same convention (the policy module's `PolicyError` has `POLICY_INVALID`).
 *
 * Source: STYLE #11.
 * @param error - Anything caught.
 * @returns The code, or undefined.
 */
export function errorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code: unknown = Reflect.get(error, "code");
  return typeof code === "string" ? code : undefined;
}

/**
 * What a `JSON.parse` failure says, without the runtime's own prefix (Bun's `JSON Parse error: `),
 * for messages that already say "invalid JSON"; control and invisible characters (the runtime quotes
 * the offending token of the text) escaped as `\u{…}`.
 *
 * Source: STYLE #11 (one clear sentence per error).
 * @param error - What `JSON.parse` threw.
 * @returns e.g. `Unexpected EOF`.
 */
export function jsonParseDetail(error: unknown): string {
  const message = errorText(error);
  // The runtime quotes the offending token from the text: untrusted, so escaped.
  return escapeControls(message.replace(/^JSON Parse error:\s*/i, ""));
}

/**
 * An error message as the line the CLI prints on stderr, `bouncer: MESSAGE`: its control and
 * invisible characters escaped as `\u{…}` (as `bouncer check` shows names), so that a file name or
 * another value the message quotes from the command line or a file (`x<ESC>[2J.yaml`) cannot act on
 * the terminal. Already escaped text is left as it is. The one place the offline commands' error
 * messages are rendered, whichever module built them.
 *
 * Source: SPEC §3.4 (rendering untrusted strings); STYLE #12 (one line per message).
 * @param message - The message (one line, STYLE #12).
 * @returns The line, ending in a newline.
 * @example errorLine('Cannot read policy "x\u001b[2J.yaml": no such file') // 'bouncer: Cannot read policy "x\\u{1b}[2J.yaml": no such file\n'
 */
export function errorLine(message: string): string {
  return `bouncer: ${escapeControls(message)}\n`;
}

/**
 * The exit status an error maps to (SPEC §5): 2 for usage and policy errors (the codes of
 * {@link USAGE_ERROR_CODES}, or any code ending in `_INVALID`, on a {@link BouncerError} or any error
 * with such a `code`), 1 for everything else.
 *
 * Source: SPEC §5 (exit codes).
 * @param error - Anything caught at the top level.
 * @returns 1 or 2.
 */
export function exitCodeFor(error: unknown): 1 | 2 {
  const code = errorCode(error);
  if (code === undefined) return 1;
  return USAGE_ERROR_CODES.has(code) || code.endsWith("_INVALID") ? 2 : 1;
}
