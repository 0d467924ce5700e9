/**
 * Command lines for `cmd.exe /d /v:off /s /c "…"`, used to start `.cmd` and `.bat` upstreams on
 * Windows (Node refuses to spawn batch files directly since its batch-file hardening). Each original
 * argument becomes exactly one argument of the program the batch file runs with `%*`, spaces, `&`,
 * `^`, `%`, `!` and non-ASCII included. Edge (pure string work, kept apart so it can be tested on any
 * OS).
 *
 * The escaping follows `cross-spawn` (lib/util/escape.js, after https://qntm.org/cmd): arguments are
 * quoted the MSVCRT way, then every cmd.exe metacharacter is caret-escaped twice — once for the
 * `/c` line, once for the batch file's own line where `%*` (or `%1`) puts them back and cmd.exe
 * parses them again. Every batch file is escaped so, not only npm's `node_modules\.bin` shims: the
 * npm and npx of `C:\Program Files\nodejs` and the global shims of `%APPDATA%\npm` pass `%*` on
 * too. A `%` is followed by a caret, so that no `%NAME%`, `%NAME:~0,3%` or `%NAME:a=b%` of the
 * environment is expanded; `/v:off` turns delayed expansion (`!NAME!`) off, whatever the registry
 * says.
 *
 * Source: SPEC §3.3, field case F09.
 * @module
 */

/** Characters cmd.exe interprets; a caret makes each literal. */
const CMD_META = /([()\][%!^"`<>&|;, *?])/g;

/**
 * Escapes the command (the batch file path) for cmd.exe: metacharacters, spaces included, get a
 * caret; no quotes (cmd.exe `/s` would strip them).
 *
 * Source: F09 (paths under `C:\Program Files`).
 * @param command - The absolute path of the batch file.
 * @returns The escaped command.
 */
export function escapeCmdCommand(command: string): string {
  return command.replace(CMD_META, "^$1");
}

/**
 * Quotes one argument the MSVCRT way (backslashes before a quote doubled, the quote escaped) and
 * caret-escapes it for cmd.exe, once or twice.
 *
 * Source: F09.
 * @param argument - One original argument.
 * @param options - `doubleEscape` for a batch file that passes its arguments on (`%*`).
 * @returns The escaped argument.
 */
export function escapeCmdArgument(
  argument: string,
  options: { readonly doubleEscape?: boolean } = {},
): string {
  let quoted = argument.replace(/(\\*)"/g, '$1$1\\"');
  quoted = quoted.replace(/(\\*)$/, "$1$1");
  quoted = `"${quoted}"`;
  quoted = quoted.replace(CMD_META, "^$1");
  if (options.doubleEscape === true) quoted = quoted.replace(CMD_META, "^$1");
  return quoted;
}

/**
 * Puts a caret after every `%` that a character other than a caret follows: cmd.exe expands
 * `%NAME%` (and `%NAME:~1,2%`, `%NAME:a=b%`) before it reads carets, and a name starting with a
 * caret is never defined, while the caret itself is removed with the others.
 *
 * @param line - The escaped `/c` line.
 * @returns The line with no expandable variable in it.
 */
function guardPercent(line: string): string {
  return line.replace(/%(?=[^^])/g, "%^");
}

/**
 * The argument list for `cmd.exe` that runs a batch file with the given arguments:
 * `/d /v:off /s /c "…"` (no AutoRun, no delayed expansion), to be passed with
 * `windowsVerbatimArguments: true` so Node adds no quoting of its own.
 *
 * Source: SPEC §3.3, F09.
 * @param batchFile - The resolved absolute path of the `.cmd` or `.bat` file.
 * @param args - The original arguments, one element each.
 * @returns The arguments for `cmd.exe`.
 */
export function cmdExeArguments(batchFile: string, args: readonly string[]): string[] {
  const line = [
    escapeCmdCommand(batchFile),
    ...args.map((arg) => escapeCmdArgument(arg, { doubleEscape: true })),
  ].join(" ");
  return ["/d", "/v:off", "/s", "/c", `"${guardPercent(line)}"`];
}
