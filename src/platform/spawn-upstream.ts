/**
 * Spawns the upstream MCP server: Bouncer's full environment plus the configured overrides (not the
 * SDK's short whitelist), the configured cwd, its own process group on POSIX (so the whole tree can
 * be signalled), stdin/stdout piped for the relay and stderr drained at once (through the caller's
 * redaction of the environment's secrets, when given). Edge.
 *
 * Source: SPEC §3.3, STYLE #17, field cases F05, F06, F09, F10, F15.
 * @module
 */

import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
// A deep import on purpose (STYLE #9 otherwise): `bouncer run` loads this before it spawns the upstream: not the whole engine (SPEC §3.2 step 1).
import { errorText } from "../engine/error-text.ts";
import { BouncerError } from "./errors.ts";
import { type ResolveCommandOptions, resolveCommand } from "./resolve-command.ts";
import { drainStderr } from "./stderr-drain.ts";
import type { StderrFlow } from "./stderr-output.ts";

/** What to launch. */
export interface UpstreamSpec {
  /** The `--upstream-name` (prefix of its stderr lines). */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Absolute working directory. */
  readonly cwd: string;
  /** Overrides applied on top of the inherited environment (values `undefined` remove a variable). */
  readonly envOverrides?: Readonly<Record<string, string | undefined>>;
}

/** How the upstream ended. */
export interface UpstreamExit {
  readonly code: number | null;
  readonly signal: string | null;
  /** Set when the process could not be started at all (e.g. EACCES). */
  readonly error?: string;
}

/** A running upstream. */
export interface UpstreamProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** The absolute executable the command resolved to (F15). */
  readonly executable: string;
  readonly cwd: string;
  /** Resolves once, when the direct child has exited (or failed to start). */
  readonly exited: Promise<UpstreamExit>;
  /** Whether {@link exited} has resolved. */
  readonly hasExited: () => boolean;
  /** The last 8 KiB of its stderr (redacted as {@link SpawnUpstreamOptions.redactStderr} says). */
  readonly stderrTail: () => string;
  /**
   * What hides its environment's secrets in a text (built by {@link SpawnUpstreamOptions.redactStderr}
   * and used on its stderr), for other text it writes (a line on stdout that is not JSON); undefined
   * when there is nothing to hide.
   */
  readonly hideSecrets: ((text: string) => string) | undefined;
  /**
   * After a write to its stdin, pushes what the stream still holds to the OS and returns the error
   * that met (a closed pipe), or a promise that rejects with it; undefined where a write's own
   * callback tells (Node). Bun's child stdin reports a small write into a pipe the upstream closed
   * as a success and the next one too: only a flush of its sink meets the `EPIPE`.
   */
  readonly confirmStdin: (() => Error | Promise<unknown> | undefined) | undefined;
  /**
   * Closes Bouncer's ends of its stdin, stdout and stderr, once it is stopped: a descendant that
   * left its process group may hold the other ends open, and open pipes keep this process alive.
   */
  readonly releasePipes: () => void;
}

/** Options of {@link spawnUpstream}. */
export interface SpawnUpstreamOptions extends ResolveCommandOptions {
  /** Where the prefixed stderr goes (Bouncer's stderr). */
  readonly writeStderr: (text: string) => void;
  /**
   * Given the environment the upstream gets, what hides its secrets in the stderr written and kept
   * (`bouncer run` passes `environmentHider`: secret-named variables' values), or undefined for none.
   */
  readonly redactStderr?: (env: Readonly<Record<string, string>>) => ((text: string) => string) | undefined;
  /** The inherited environment (default `process.env`). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Bouncer's stderr back-pressure: its stderr is not drained while Bouncer's waits (default none). */
  readonly stderrFlow?: StderrFlow;
}

/**
 * The environment an upstream gets: everything Bouncer has, then the overrides.
 *
 * Source: SPEC §3.3, F10.
 * @param base - Bouncer's environment.
 * @param overrides - Configured `env` values (`undefined` removes a variable).
 * @returns A fresh environment object.
 */
export function upstreamEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  overrides: Readonly<Record<string, string | undefined>> = {},
): Record<string, string> {
  const env: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/**
 * Starts the upstream.
 *
 * Source: SPEC §3.3.
 * @param spec - Name, command, arguments, cwd, env overrides.
 * @param options - The stderr writer; platform and file check for resolution.
 * @returns The running process.
 * @throws {BouncerError} `UPSTREAM_NOT_FOUND` (command not found, naming the PATH searched) or
 *   `UPSTREAM_SPAWN_FAILED`.
 */
export function spawnUpstream(spec: UpstreamSpec, options: SpawnUpstreamOptions): UpstreamProcess {
  const env = upstreamEnvironment(options.baseEnv ?? process.env, spec.envOverrides);
  const resolved = resolveCommand({ command: spec.command, args: spec.args, cwd: spec.cwd, env }, options);
  const platform = options.platform ?? (process.platform === "win32" ? "win32" : "posix");
  // A missing working folder fails the spawn with the runtime's ENOENT naming the command, not the
  // folder (and in Bun, as an error event after the call): said in words first.
  if (!isFolder(spec.cwd)) {
    throw new BouncerError(
      "UPSTREAM_SPAWN_FAILED",
      `Cannot start upstream "${spec.command}": its working folder "${spec.cwd}" does not exist or is not a folder`,
    );
  }
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(resolved.file, [...resolved.args], {
      cwd: spec.cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: platform === "posix",
      windowsHide: true,
      windowsVerbatimArguments: resolved.windowsVerbatimArguments,
    });
  } catch (error) {
    throw new BouncerError(
      "UPSTREAM_SPAWN_FAILED",
      `Cannot start upstream "${spec.command}": ${errorText(error)}`,
      { cause: error },
    );
  }
  const { stdin, stdout, stderr } = child;
  if (stdin === null || stdout === null || stderr === null || child.pid === undefined) {
    // The spawn's own error event follows: without a listener it would end Bouncer.
    child.on("error", () => {});
    child.kill("SIGKILL");
    throw new BouncerError(
      "UPSTREAM_SPAWN_FAILED",
      `Cannot start upstream "${spec.command}": no process was created`,
    );
  }
  // What it prints of a secret it was given (a password in its environment) is not repeated.
  const redact = options.redactStderr?.(env);
  const drain = drainStderr(stderr, {
    name: spec.name,
    write: options.writeStderr,
    ...(redact === undefined ? {} : { redact }),
    ...(options.stderrFlow === undefined ? {} : { flow: options.stderrFlow }),
  });
  let done = false;
  const exited = new Promise<UpstreamExit>((resolve) => {
    child.on("exit", (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
    child.on("error", (error) => {
      if (done) return;
      done = true;
      resolve({ code: null, signal: null, error: error.message });
    });
  });
  stdin.on("error", () => {
    // EPIPE after the upstream died: its exit is reported through `exited`.
  });
  return {
    pid: child.pid,
    stdin,
    stdout,
    executable: resolved.executable,
    cwd: spec.cwd,
    exited,
    hasExited: () => done,
    stderrTail: drain.tail,
    hideSecrets: redact,
    confirmStdin: sinkFlush(stdin),
    releasePipes: () => {
      for (const stream of [stdin, stdout, stderr]) stream.destroy();
    },
  };
}

/**
 * Bun's child stdin is a `WriteStream` over the child's `FileSink`, which buffers a small write and
 * sends it later, dropping the error it meets; a flush of the sink sends it now and throws that error
 * (the sink's `flush()` is public, the property holding it is not: looked up by its description, so
 * another runtime, or a Bun without it, is simply not probed).
 *
 * Source: SPEC §3.3 ("never a hang"); README Limits (an upstream that closes its stdin).
 * @param stream - The child's stdin.
 * @returns What flushes the sink and returns its error or pending promise, or undefined.
 */
function sinkFlush(stream: Writable): (() => Error | Promise<unknown> | undefined) | undefined {
  const key = Object.getOwnPropertySymbols(stream).find(
    (symbol) => symbol.description === "kWriteStreamFastPath",
  );
  const sink: unknown = key === undefined ? undefined : Reflect.get(stream, key);
  if (typeof sink !== "object" || sink === null) return undefined;
  const flush: unknown = Reflect.get(sink, "flush");
  if (typeof flush !== "function") return undefined;
  return () => {
    try {
      const flushed: unknown = Reflect.apply(flush, sink, []);
      return flushed instanceof Promise ? flushed : undefined;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  };
}

/**
 * Whether a path is an existing folder.
 * @param path - An absolute path.
 * @returns True for a folder (a symlink to one included).
 */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
