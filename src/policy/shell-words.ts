/**
 * Splitting the one command string a POSIX shell (`sh -c "…"`) or PowerShell (`-Command "…"`) is
 * given into the words of the command it runs, as that shell splits them: quotes removed, escapes
 * applied, variables (`$HOME`) kept as written (their values are the shell's). A string that is not
 * one simple command — more than one command (`;`, `&&`, `|`, a line break), a redirection (`>`,
 * `<`), a subshell or substitution (`(`, `` ` ``) — gives no words: which of its commands is the
 * server is not known. Pure.
 *
 * Source: SPEC §4.3 (patterns on the package in the command line; `$COMMAND_LINE_DIRS`).
 * @module
 */

/** Characters that, outside quotes, end a simple command in a POSIX shell or start a substitution. */
const SHELL_OPERATOR = new Set([";", "&", "|", "<", ">", "(", ")", "`", "\n", "\r"]);

/** The same for PowerShell (its escape character is `` ` ``; `{`, `}` open and close a block). */
const POWERSHELL_OPERATOR = new Set([";", "&", "|", "<", ">", "(", ")", "{", "}", "\n", "\r"]);

/**
 * The words of a POSIX shell command string: split at spaces and tabs outside quotes; `'…'` taken
 * as written; in `"…"` a backslash escapes only `$`, `` ` ``, `"` and `\`; outside quotes a backslash
 * escapes the next character; a `#` starting a word begins a comment.
 *
 * Source: SPEC §4.3; POSIX Shell Command Language §2.2 (quoting), §2.3 (token recognition).
 * @param text - The string after `-c`.
 * @returns The words, or undefined when it is not one simple command.
 * @example splitShellCommand(`npx -y pkg "/my dir"`) // ["npx", "-y", "pkg", "/my dir"]
 */
export function splitShellCommand(text: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (c === " " || c === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "#" && word === undefined) {
      break;
    } else if (SHELL_OPERATOR.has(c) || (c === "$" && text[i + 1] === "(")) {
      return undefined;
    } else if (c === "\\") {
      i++;
      if (i < text.length) word = (word ?? "") + text[i];
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) return undefined;
      word = (word ?? "") + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let quoted = "";
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === "\\" && '$`"\\'.includes(text[i + 1] ?? "x")) i++;
        else if (text[i] === "`" || (text[i] === "$" && text[i + 1] === "(")) return undefined;
        quoted += text[i];
      }
      if (i >= text.length) return undefined;
      word = (word ?? "") + quoted;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words.length === 0 ? undefined : words;
}

/**
 * The words of a PowerShell command: split at spaces and tabs outside quotes; `'…'` taken as written
 * (`''` is one `'`); in `"…"` a backtick escapes the next character (`""` is one `"`); outside quotes
 * a backtick escapes the next character; a leading `&` (the call operator) is dropped; `--%` (stop
 * parsing) gives no words.
 *
 * Source: SPEC §4.3; PowerShell's about_Quoting_Rules and about_Parsing.
 * @param text - The command after `-Command`.
 * @returns The words, or undefined when it is not one simple command.
 * @example splitPowerShellCommand(`& 'C:\\Program Files\\nodejs\\npx.cmd' -y pkg`) // ["C:\\Program Files\\nodejs\\npx.cmd", "-y", "pkg"]
 */
export function splitPowerShellCommand(text: string): string[] | undefined {
  const body = text.replace(/^[ \t]*&[ \t]+/u, "");
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? "";
    if (c === " " || c === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "#" && word === undefined) {
      break;
    } else if (POWERSHELL_OPERATOR.has(c) || (c === "$" && body[i + 1] === "(")) {
      return undefined;
    } else if (c === "`") {
      i++;
      if (i < body.length) word = (word ?? "") + body[i];
    } else if (c === "'" || c === '"') {
      let quoted = "";
      for (i++; i < body.length; i++) {
        if (body[i] === c && body[i + 1] === c) i++;
        else if (body[i] === c) break;
        else if (c === '"' && body[i] === "`") i++;
        else if (c === '"' && body[i] === "$" && body[i + 1] === "(") return undefined;
        quoted += body[i] ?? "";
      }
      if (i >= body.length) return undefined;
      word = (word ?? "") + quoted;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words.length === 0 || words.includes("--%") ? undefined : words;
}
