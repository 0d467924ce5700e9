/**
 * Command lines for `cmd.exe /d /s /c "…"`, used to start `.cmd` and `.bat` upstreams on Windows
 * (Node refuses to spawn batch files directly since its batch-file hardening). Each original argument
 * becomes exactly one argument of the batch file, spaces, `&`, `^`, `%` and non-ASCII included. Edge
 * (pure string work, kept apart so it can be tested on any OS).
 *
 * The escaping follows `cross-spawn` (lib/util/escape.js, after https://qntm.org/cmd): arguments are
 * quoted the MSVCRT way, then every cmd.exe metacharacter is caret-escaped — twice for npm's
 * `node_modules/.bin/*.cmd` shims, whose `%*` makes cmd.exe parse the line a second time.
 *
 * Source: SPEC §3.3, field case F09.
 * @module
 */

/** Characters cmd.exe interprets; a caret makes each literal. */
const CMD_META = /([()\][%!^"`<>&|;, *?])/g;

/** npm's command shims, whose `%*` re-parses the arguments (cross-spawn `isCmdShimRegExp`). */
const CMD_SHIM = /node_modules[\\/]\.bin[\\/][^\\/]+\.cmd$/i;

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
 * @param options - `doubleEscape` for npm command shims.
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
 * The argument list for `cmd.exe` that runs a batch file with the given arguments: `/d /s /c "…"`,
 * to be passed with `windowsVerbatimArguments: true` so Node adds no quoting of its own.
 *
 * Source: SPEC §3.3, F09.
 * @param batchFile - The resolved absolute path of the `.cmd` or `.bat` file.
 * @param args - The original arguments, one element each.
 * @returns The arguments for `cmd.exe`.
 */
export function cmdExeArguments(batchFile: string, args: readonly string[]): string[] {
  const doubleEscape = CMD_SHIM.test(batchFile);
  const line = [
    escapeCmdCommand(batchFile),
    ...args.map((arg) => escapeCmdArgument(arg, { doubleEscape })),
  ].join(" ");
  return ["/d", "/s", "/c", `"${line}"`];
}
