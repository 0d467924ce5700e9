/**
 * Helpers for the compiled-executable tests: build Bouncer and the fixture mail server for the host
 * into a scratch folder, run them under `env -i` (an environment holding only what the test gives, with
 * a `PATH` that holds no `node`, `bun` or `npx`), and talk raw JSON-RPC to a stdio server. Test support.
 *
 * Source: SPEC §6, issue 5.
 * @module
 */

import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compileTarget, DEFAULT_BYTECODE, describeHost } from "../../scripts/build/compile.ts";
import { type BuildTarget, hostTarget } from "../../scripts/build/targets.ts";

/** The repository root. */
export const ROOT: string = resolve(import.meta.dir, "../..");

/** The fixture folder shared by these tests and the release smoke test. */
export const FIXTURES: string = join(ROOT, "tests/fixtures/compiled");

/** Name of the compiled fixture server on the test PATH. */
export const FIXTURE_COMMAND = "bouncer-fixture-mail";

/** What {@link buildExecutables} produced. */
export interface Built {
  /** Scratch root (removed by the caller). */
  readonly scratch: string;
  /** The only folder on the test PATH: holds the fixture server and nothing else. */
  readonly bin: string;
  /** `BOUNCER_HOME` and `HOME` of the runs. */
  readonly home: string;
  /** The compiled Bouncer (outside `bin`, so PATH does not find it by name). */
  readonly bouncer: string;
  /** The compiled fixture server, inside `bin`. */
  readonly fixture: string;
  /** Compile times, for the test log. */
  readonly ms: { readonly bouncer: number; readonly fixture: number };
}

/**
 * The host's release target.
 * @returns The target.
 * @throws {Error} When Bouncer ships no executable for this machine.
 */
export function requireHostTarget(): BuildTarget {
  const target = hostTarget(describeHost());
  if (target === null)
    throw new Error(`Cannot test the compiled executable on "${process.platform}-${process.arch}"`);
  return target;
}

/**
 * Compiles `src/cli.ts` for the host exactly as `npm run build` does (minified, bytecode as released,
 * autoloading off), and the fixture mail server (autoloading off too), into a new scratch folder.
 * @returns Paths and compile times.
 * @throws {Error} When a compilation fails.
 */
export async function buildExecutables(): Promise<Built> {
  const target = requireHostTarget();
  const scratch = mkdtempSync(join(tmpdir(), "bouncer-compiled-"));
  const bin = join(scratch, "bin");
  const home = join(scratch, "home");
  mkdirSync(bin);
  mkdirSync(home);
  const exe = target.os === "windows" ? ".exe" : "";
  const [bouncer, fixture] = await Promise.all([
    compileTarget(target, {
      entry: join(ROOT, "src/cli.ts"),
      outDir: scratch,
      file: `bouncer${exe}`,
      bytecode: DEFAULT_BYTECODE,
      cwd: ROOT,
    }),
    compileTarget(target, {
      entry: join(FIXTURES, "mail-server.ts"),
      outDir: bin,
      file: `${FIXTURE_COMMAND}${exe}`,
      cwd: ROOT,
    }),
  ]);
  return {
    scratch,
    bin,
    home,
    bouncer: bouncer.path,
    fixture: fixture.path,
    ms: { bouncer: Math.round(bouncer.ms), fixture: Math.round(fixture.ms) },
  };
}

/**
 * The `env -i` prefix giving a process only PATH, HOME, BOUNCER_HOME and BOUNCER_SESSION.
 * @param built - The scratch layout.
 * @param session - The BOUNCER_SESSION value (one per test keeps taint apart).
 * @returns `["/usr/bin/env", "-i", "PATH=...", ...]`.
 */
export function cleanEnv(built: Built, session: string): string[] {
  return [
    "/usr/bin/env",
    "-i",
    `PATH=${built.bin}`,
    `HOME=${built.home}`,
    `BOUNCER_HOME=${built.home}`,
    `BOUNCER_SESSION=${session}`,
  ];
}

/** The result of running a command to completion. */
export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a command to completion, with a hang guard.
 * @param command - The command line.
 * @param options - Working folder.
 * @returns Exit status and output.
 */
export async function runToEnd(command: readonly string[], options: { cwd: string }): Promise<Ran> {
  const child = Bun.spawn([...command], {
    cwd: options.cwd,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(guard);
  }
}

/**
 * Sends JSON-RPC requests to a stdio server one line each, waits for a response to every one that has
 * an id, then closes its stdin and waits for it to exit.
 * @param command - The server's command line.
 * @param messages - Requests and notifications, in order.
 * @param options - Working folder.
 * @returns Responses by id.
 * @throws {Error} When the server closes stdout first, or after the 30 s hang guard.
 */
export async function exchange(
  command: readonly string[],
  messages: readonly Record<string, unknown>[],
  options: { cwd: string },
): Promise<Map<unknown, Record<string, unknown>>> {
  const child = Bun.spawn([...command], {
    cwd: options.cwd,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const waiting = new Set(
    messages.filter((message) => Object.hasOwn(message, "id")).map((message) => message.id),
  );
  const responses = new Map<unknown, Record<string, unknown>>();
  for (const message of messages) child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  await child.stdin.flush();
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    while (waiting.size > 0) {
      const chunk = await reader.read();
      if (chunk.done)
        throw new Error(`"${command.join(" ")}" closed stdout with ${waiting.size} requests unanswered`);
      buffered += decoder.decode(chunk.value, { stream: true });
      for (let at = buffered.indexOf("\n"); at !== -1; at = buffered.indexOf("\n")) {
        const response = JSON.parse(buffered.slice(0, at)) as Record<string, unknown>;
        buffered = buffered.slice(at + 1);
        responses.set(response.id, response);
        waiting.delete(response.id);
      }
    }
  } finally {
    clearTimeout(guard);
    reader.releaseLock();
    child.stdin.end();
    await child.exited;
  }
  return responses;
}

/**
 * The text of a tool result's first content block.
 * @param response - A JSON-RPC response to `tools/call`.
 * @returns The text, or an empty string.
 */
export function resultText(response: Record<string, unknown> | undefined): string {
  const result: unknown = response?.result;
  if (typeof result !== "object" || result === null) return "";
  const content: unknown = Reflect.get(result, "content");
  if (!Array.isArray(content)) return "";
  const first: unknown = content[0];
  return typeof first === "object" && first !== null ? String(Reflect.get(first, "text") ?? "") : "";
}
