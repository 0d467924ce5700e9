import { expect, test } from "bun:test";
import { splitPowerShellCommand, splitShellCommand } from "../../src/policy/shell-words.ts";

test.each<[string, string, string[] | undefined]>([
  ["plain words", "npx -y pkg /data", ["npx", "-y", "pkg", "/data"]],
  ["single quotes", "npx pkg '/my dir' 'a\"b'", ["npx", "pkg", "/my dir", 'a"b']],
  ["double quotes and their escapes", 'npx pkg "/my \\"dir\\"" "a\\b"', ["npx", "pkg", '/my "dir"', "a\\b"]],
  ["a backslash outside quotes", "npx pkg /my\\ dir", ["npx", "pkg", "/my dir"]],
  ["a variable, kept as written", "exec npx pkg $HOME/data", ["exec", "npx", "pkg", "$HOME/data"]],
  ["an empty quoted word", "npx pkg ''", ["npx", "pkg", ""]],
  ["a comment", "npx pkg /d # note", ["npx", "pkg", "/d"]],
  ["two commands", "cd /data && npx pkg .", undefined],
  ["a redirection", "npx pkg /d 2>/tmp/log", undefined],
  ["a pipe", "npx pkg /d | tee x", undefined],
  ["a semicolon", "npx pkg /d; echo", undefined],
  ["a line break", "npx pkg\n/d", undefined],
  ["a command substitution", "npx pkg $(pwd)", undefined],
  ["a backquoted substitution in double quotes", 'npx pkg "`pwd`"', undefined],
  ["an unclosed quote", "npx pkg '/d", undefined],
  ["nothing", "  ", undefined],
])("splitShellCommand() splits %s", (_name, text, expected) => {
  expect(splitShellCommand(text)).toEqual(expected);
});

test.each<[string, string, string[] | undefined]>([
  ["plain words", "npx -y pkg C:\\data", ["npx", "-y", "pkg", "C:\\data"]],
  [
    "the call operator and single quotes",
    "& 'C:\\Program Files\\nodejs\\npx.cmd' -y pkg",
    ["C:\\Program Files\\nodejs\\npx.cmd", "-y", "pkg"],
  ],
  ["doubled quotes", 'npx pkg \'it\'\'s\' "say ""hi"""', ["npx", "pkg", "it's", 'say "hi"']],
  ["backtick escapes", 'npx pkg C:\\my` dir "a`"b"', ["npx", "pkg", "C:\\my dir", 'a"b']],
  ["two commands", "cd C:\\data; npx pkg .", undefined],
  ["a redirection", "npx pkg C:\\d > C:\\log", undefined],
  ["a subexpression", 'npx pkg "$(Get-Location)"', undefined],
  ["stop-parsing", "npx --% pkg C:\\d", undefined],
  ["a script block", "& { npx pkg }", undefined],
])("splitPowerShellCommand() splits %s", (_name, text, expected) => {
  expect(splitPowerShellCommand(text)).toEqual(expected);
});
