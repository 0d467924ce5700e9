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

/**
 * Parses a session file. Blank lines are skipped; anything else malformed is an error naming the line.
 *
 * Source: SPEC §5.9.
 * @param text - The file's text (UTF-8 decoded; a leading BOM and `\r\n` are accepted).
 * @param options - The file name for messages.
 * @returns The events in file order.
 * @throws {BouncerError} `SESSION_INVALID` (exit 2), e.g. `Cannot read session "s.jsonl": line 3: unknown event "cal"`.
 * @example parseSession('{"event":"tools","server":"mail","tools":[]}\n')[0].event // "tools"
 */
export function parseSession(text: string, options: { readonly file?: string } = {}): SessionEvent[] {
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
