/**
 * The error for a client config that cannot be read safely (syntax error, duplicate key): a
 * `SyntaxError` carrying the 1-based line and column (STYLE #12), so `bouncer init` can say where the
 * problem is, exit 2 and write nothing. Pure.
 *
 * Source: SPEC §5.2 ("A file that does not parse → line:column, exit 2, nothing written"), STYLE #12.
 * @module
 */

/** A config file that does not parse, or that Bouncer refuses to edit (duplicate keys). */
export class ConfigSyntaxError extends SyntaxError {
  /** Always `CONFIG_INVALID` (exit 2). */
  readonly code = "CONFIG_INVALID";
  /** 1-based line of the problem. */
  readonly line: number;
  /** 1-based column of the problem (in UTF-16 code units). */
  readonly column: number;
  /** What is wrong, without the position (e.g. `close brace expected`). */
  readonly detail: string;

  /**
   * @param detail - What is wrong, sentence case, no final period.
   * @param position - The 1-based line and column; `whole: true` for a problem of the whole file (an
   *   empty one), whose message then names no position.
   */
  constructor(
    detail: string,
    position: { readonly line: number; readonly column: number; readonly whole?: boolean },
  ) {
    super(position.whole === true ? detail : `line ${position.line}, column ${position.column}: ${detail}`);
    this.name = "ConfigSyntaxError";
    this.line = position.line;
    this.column = position.column;
    this.detail = detail;
  }
}

/**
 * The 1-based line and column of an offset (`\n`, `\r\n` and a lone `\r` end a line).
 *
 * Source: SPEC §5.2.
 * @param text - The whole text.
 * @param offset - A UTF-16 offset into it (clamped to the text).
 * @returns The position.
 */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const end = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < end; i++) {
    const char = text.charCodeAt(i);
    if (char === 10 || (char === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Whether an error is a {@link ConfigSyntaxError} (also across module copies).
 *
 * Source: SPEC §5.2.
 * @param error - Anything caught.
 * @returns True when it carries a line and a column.
 */
export function isConfigSyntaxError(error: unknown): error is ConfigSyntaxError {
  return error instanceof ConfigSyntaxError || (error instanceof Error && error.name === "ConfigSyntaxError");
}
