/**
 * Starts the appender fixture (tests/fixtures/audit-appender.ts): another process writing audit
 * records into the same log, for the rotation and follow tests.
 */

import { join } from "node:path";

/**
 * Starts the appender fixture, resolving once it has opened the log.
 * @param args - LOG SESSION COUNT MAX_BYTES KEEP.
 * @returns The running process (its stdin ends it).
 * @throws {Error} When it exits before it is ready (its stderr in the message).
 */
export async function startAppender(
  args: readonly string[],
): Promise<Bun.Subprocess<"pipe", "pipe", "pipe">> {
  const fixture = join(import.meta.dir, "..", "..", "fixtures", "audit-appender.ts");
  const child = Bun.spawn([process.execPath, fixture, ...args], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = child.stdout.getReader();
  let seen = "";
  while (!seen.includes("ready\n")) {
    const { value, done } = await reader.read();
    if (done)
      throw new Error(`appender exited before it was ready: ${await new Response(child.stderr).text()}`);
    seen += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return child;
}
