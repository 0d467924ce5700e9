/**
 * The floor under any stdio proxy on this machine: a line relay that does nothing but copy each line
 * from its stdin to a child's stdin and back, with the same runtime and the same I/O layer as `bouncer
 * run` (Bun, `process.stdin`/`process.stdout`, `node:child_process`). The performance bench runs it
 * in Bouncer's place to show how much of Bouncer's added cost is the relay hop itself. Never shipped.
 *
 * Run: `bun scripts/bench/perf/minimal-relay.ts [ignored flags] -- COMMAND [ARG]...`.
 *
 * Source: SPEC §7 (ratios against a baseline in the same run); issue 6 part 2.
 * @module
 */

import { spawn } from "node:child_process";

const argv = process.argv.slice(2);
const [command, ...args] = argv.slice(argv.indexOf("--") + 1);
if (command === undefined) {
  process.stderr.write("Cannot relay: no command after --\n");
  process.exit(2);
}
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });

/**
 * Splits a byte stream into lines.
 * @param onLine - Called with each complete line, without its newline.
 * @returns The `data` listener.
 */
function lines(onLine: (line: string) => void): (chunk: Buffer) => void {
  let pending = "";
  return (chunk) => {
    pending += chunk.toString("utf8");
    for (let at = pending.indexOf("\n"); at !== -1; at = pending.indexOf("\n")) {
      onLine(pending.slice(0, at));
      pending = pending.slice(at + 1);
    }
  };
}

process.stdin.on(
  "data",
  lines((line) => child.stdin.write(`${line}\n`)),
);
child.stdout.on(
  "data",
  lines((line) => process.stdout.write(`${line}\n`)),
);
process.stdin.on("end", () => child.stdin.end());
process.on("SIGTERM", () => child.kill("SIGTERM"));
child.on("exit", (code) => process.exit(code ?? 0));
