import { expect, test } from "bun:test";
import { commandWords } from "../../src/policy/command-words.ts";

const FS = "@modelcontextprotocol/server-filesystem";

test.each<[string, readonly string[], readonly string[]]>([
  ["a plain command line, unchanged", ["npx", "-y", FS, "/d"], ["npx", "-y", FS, "/d"]],
  ["cmd /c with one string", ["cmd", "/c", `npx -y ${FS} C:\\d`], ["cmd", "npx", "-y", FS, "C:\\d"]],
  ["sh -c", ["sh", "-c", `npx -y ${FS} "/my dir"`], ["sh", "npx", "-y", FS, "/my dir"]],
  [
    "bash -lc with $0 after",
    ["/bin/bash", "-lc", `exec npx ${FS} /d`, "srv"],
    ["/bin/bash", "exec", "npx", FS, "/d"],
  ],
  ["zsh -e -o pipefail -c", ["zsh", "-e", "-o", "pipefail", "-c", `npx ${FS} /d`], ["zsh", "npx", FS, "/d"]],
  ["sh -c -- string", ["sh", "-c", "--", `npx ${FS} /d`], ["sh", "npx", FS, "/d"]],
  ["sh running a script, unchanged", ["sh", "run.sh", "/d"], ["sh", "run.sh", "/d"]],
  [
    "sh -c with two commands, unchanged",
    ["sh", "-c", `cd /d && npx ${FS} .`],
    ["sh", "-c", `cd /d && npx ${FS} .`],
  ],
  [
    "powershell -NoProfile -ExecutionPolicy Bypass -Command",
    [
      "powershell.exe",
      "-NoProfile",
      "-ExecutionPolicy",
      "Bypass",
      "-Command",
      `npx -y '${FS}' 'C:\\My Docs'`,
    ],
    ["powershell.exe", "npx", "-y", FS, "C:\\My Docs"],
  ],
  [
    "pwsh -c with the command in several arguments",
    ["pwsh", "-c", "npx", FS, "C:\\d"],
    ["pwsh", "npx", FS, "C:\\d"],
  ],
  ["pwsh -File, unchanged", ["pwsh", "-File", "run.ps1", "C:\\d"], ["pwsh", "-File", "run.ps1", "C:\\d"]],
  ["pwsh -Command - (stdin), unchanged", ["pwsh", "-Command", "-"], ["pwsh", "-Command", "-"]],
])("commandWords() reads %s", (_name, command, expected) => {
  expect(commandWords(command)).toEqual(expected);
});
