/**
 * `init`'s `[y/N]` question through the real `readline` in terminal mode (SPEC §5.2; README exit
 * codes): yes only for an explicit yes, Ctrl+D a no, Ctrl+C an interruption (`init` exits 130).
 */

import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { askOnTerminal } from "../../src/init/init-environment.ts";

/** Asks once on a terminal-mode stream pair, typing `keys` once the question is written. */
async function ask(keys: string): Promise<{ answer: boolean | "interrupted"; shown: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => {
    shown += chunk.toString("utf8");
  });
  const pending = askOnTerminal("Write 1 file? [y/N] ", { input, output, terminal: true });
  input.write(keys);
  const answer = await pending;
  return { answer, shown };
}

test.each<[string, boolean | "interrupted", string]>([
  ["y and Enter", true, "y\r"],
  ["yes and Enter", true, " YES \r"],
  ["n and Enter", false, "n\r"],
  ["Enter alone", false, "\r"],
  ["Ctrl+D", false, "\x04"],
  ["Ctrl+C", "interrupted", "\x03"],
])("askOnTerminal() reads %s as %p", async (_label, expected, keys) => {
  const { answer, shown } = await ask(keys);
  expect(answer).toBe(expected);
  expect(shown).toContain("Write 1 file? [y/N] ");
});
