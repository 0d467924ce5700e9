/**
 * The words of an upstream's command line as the server it starts sees them, for pack matching and
 * `$COMMAND_LINE_DIRS`: a command interpreter given one command to run (`cmd /c …`, `sh -c "…"`,
 * `powershell -Command …`) stands for that command, whose words follow the interpreter's name. A
 * command string that holds more than one command or a redirection (`;`, `&&`, `|`, `>`, a
 * subshell) is not read: which of its commands is the server is not known, and its words (a `>` and
 * a log file among the directories) would be taken for the server's. Pure.
 *
 * Source: SPEC §4.3 (patterns on the package in the command line; `$COMMAND_LINE_DIRS`); the review
 * of `sh -c` and `powershell -Command` lines (matched by `serverInfo.name` alone, no directories:
 * the filesystem server's writes were not confined).
 * @module
 */

import { splitPowerShellCommand, splitShellCommand } from "./shell-words.ts";

/** cmd.exe's switches before its command (`/d`, `/s`, `/q`, `/v:off`, `/e:on`, `/t:0a`, …). */
const CMD_SWITCH = /^\/[a-z](?::\S*)?$/iu;

/** POSIX shells whose `-c` takes the command string. */
const POSIX_SHELL = /^(?:sh|bash|dash|zsh|ksh|ash)$/iu;

/** PowerShell's switches before `-Command` that take a value. */
const POWERSHELL_VALUE_SWITCH =
  /^-(?:executionpolicy|ep|windowstyle|w|configurationname|workingdirectory|wd)$/iu;

/**
 * The words of a command line as the server sees them: the command line itself, except that
 * - `cmd /c …` (or `cmd.exe /d /s /c …`, any path to `cmd.exe`) is `cmd` followed by the words of its
 *   command — its switches dropped, and a command given as one string (`cmd /c "npx -y pkg C:\dir"`)
 *   split at spaces outside double quotes, the quotes removed;
 * - `sh -c "npx -y pkg /dir"` (`bash`, `zsh`, `dash`, `ksh`, `ash`; `-lc`, `-e -c`, any path) is the
 *   shell followed by the words of its command string, split as the shell splits them (quotes and
 *   backslashes removed, `$VAR` kept as written);
 * - `powershell -Command …` (`pwsh`, `-c`, `-NoProfile` and other switches before it; the rest of
 *   the line, joined with spaces, is the command) is PowerShell followed by the words of its
 *   command, quotes removed, a leading `&` dropped.
 * A command string with more than one command or a redirection is left as it is.
 *
 * Source: SPEC §4.3.
 * @param command - The upstream command line, command first.
 * @returns The words, command first.
 */
export function commandWords(command: readonly string[]): readonly string[] {
  const [program, ...rest] = command;
  const base = ((program ?? "").replaceAll("\\", "/").split("/").at(-1) ?? "").replace(/\.exe$/iu, "");
  let words: readonly string[] | undefined;
  if (/^cmd$/iu.test(base)) words = cmdWords(rest);
  else if (POSIX_SHELL.test(base)) words = shellWords(rest);
  else if (/^(?:powershell|pwsh)$/iu.test(base)) words = powerShellWords(rest);
  return words === undefined ? command : [program ?? "", ...words];
}

/** The words of `cmd`'s command after `/c` (or `/k`, `/r`), or undefined when it runs none. */
function cmdWords(rest: readonly string[]): readonly string[] | undefined {
  const run = rest.findIndex((arg) => /^\/[ckr]$/iu.test(arg));
  if (run === -1 || !rest.slice(0, run).every((arg) => CMD_SWITCH.test(arg))) return undefined;
  const words = rest.slice(run + 1);
  return words.length === 1 ? splitCmdString(words[0] ?? "") : words;
}

/** A command string split as cmd.exe hands it on: at spaces and tabs outside `"…"`, quotes removed. */
function splitCmdString(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quoted = false;
  for (const c of text) {
    if (c === '"') {
      quoted = !quoted;
      word ??= "";
    } else if (!quoted && (c === " " || c === "\t")) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * The words of a POSIX shell's `-c` string: options (`-e`, `-l`, `-o NAME`) may come before, `-c`
 * may be in a cluster (`-lc`), and the string is the first argument after the options (later ones
 * are `$0`, `$1`…, not the command).
 */
function shellWords(rest: readonly string[]): readonly string[] | undefined {
  let commandString = false;
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index] ?? "";
    if (arg === "--" || !/^[-+]/u.test(arg)) {
      const text = arg === "--" ? rest[index + 1] : arg;
      return commandString && text !== undefined ? splitShellCommand(text) : undefined;
    }
    if (/^[-+]o$/u.test(arg)) index++;
    else if (/^-[a-z]*c[a-z]*$/iu.test(arg)) commandString = true;
  }
  return undefined;
}

/**
 * The words of PowerShell's `-Command` (or `-c`, any case): switches may come
 * before (`-NoProfile`, `-ExecutionPolicy Bypass`); the rest of the line, joined with spaces, is the
 * command. `-Command -` (read from stdin), `-File` and `-EncodedCommand` give no words.
 */
function powerShellWords(rest: readonly string[]): readonly string[] | undefined {
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index] ?? "";
    if (/^[-/]c(?:ommand)?$/iu.test(arg)) {
      const text = rest.slice(index + 1).join(" ");
      return text.trim() === "" || text.trim() === "-" ? undefined : splitPowerShellCommand(text);
    }
    if (!arg.startsWith("-") || /^-(?:f|file|e|ec|encodedcommand)$/iu.test(arg)) return undefined;
    if (POWERSHELL_VALUE_SWITCH.test(arg)) index++;
  }
  return undefined;
}
