/**
 * The replayable session file (SPEC §5.9): one JSON event per line — `server`, `tools`, `output` and
 * `call` — parsed strictly, every problem named with its line number (each line's event is checked
 * in `session-event.ts`). `bouncer run --record` writes this format (SPEC §3.6) and `bouncer replay`
 * reads it. Edge (pure parsing; the caller reads the file).
 *
 * Source: SPEC §5.9, §3.6.
 * @module
 */

import type { JsonValue } from "../engine/index.ts";
import { BouncerError, jsonParseDetail } from "../platform/errors.ts";
import type { SessionEvent } from "./replay-session-types.ts";
import { LineProblem, toEvent, withRun } from "./session-event.ts";
import { strictLine } from "./session-strict.ts";

export type {
  CallEvent,
  InstructionsEvent,
  OutputEvent,
  ServerEvent,
  SessionEvent,
  ToolsEvent,
} from "./replay-session-types.ts";

/** Options of {@link parseSession}. */
export interface ParseSessionOptions {
  /** The file name for messages. */
  readonly file?: string;
  /**
   * Told about a last line cut short — no newline after it, and not JSON — which is then skipped: a
   * recording whose write failed (a full disk) or whose process died mid-write leaves one. Without
   * it, such a line is an error like any other.
   */
  readonly onCutShort?: (message: string) => void;
}

/**
 * Parses a session file. Blank lines are skipped; anything else malformed is an error naming the
 * line, except a last line cut short when `onCutShort` is given (reported to it, skipped). A bad
 * line before the last, or a last line that ends with its newline, is always an error: it was
 * written whole.
 *
 * Source: SPEC §5.9; README "bouncer replay" (a cut last line).
 * @param text - The file's text (UTF-8 decoded; a leading BOM and `\r\n` are accepted).
 * @param options - The file name for messages, and where a cut last line is reported.
 * @returns The events in file order.
 * @throws {BouncerError} `SESSION_INVALID` (exit 2), e.g. `Cannot read session "s.jsonl": line 3: unknown event "cal"`.
 * @example parseSession('{"event":"tools","server":"mail","tools":[]}\n')[0].event // "tools"
 */
export function parseSession(text: string, options: ParseSessionOptions = {}): SessionEvent[] {
  const file = options.file ?? "<session>";
  const events: SessionEvent[] = [];
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    const source = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (source.trim() === "") continue;
    let value: JsonValue;
    try {
      value = JSON.parse(source) as JsonValue;
    } catch (error) {
      const detail = jsonParseDetail(error);
      // After the last newline: the write of this line never ended (a whole line ends with one).
      if (index === lines.length - 1 && options.onCutShort !== undefined) {
        options.onCutShort(
          `Skipped the last line of session "${file}" (line ${line}): it is cut short (no newline, invalid JSON: ${detail}), as a recording stopped in the middle of a write leaves it`,
        );
        continue;
      }
      throw new BouncerError(
        "SESSION_INVALID",
        `Cannot read session "${file}": line ${line}: invalid JSON: ${detail}`,
      );
    }
    try {
      const strict = strictLine(source, value);
      if (strict.kind === "malformed") throw new LineProblem(strict.problem);
      events.push(withRun(toEvent(value, line, strict.ambiguous), value));
    } catch (problem) {
      if (!(problem instanceof LineProblem)) throw problem;
      throw new BouncerError(
        "SESSION_INVALID",
        `Cannot read session "${file}": line ${line}: ${problem.message}`,
        {
          cause: problem,
        },
      );
    }
  }
  return events;
}
