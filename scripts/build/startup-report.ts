/**
 * The start-up part of `dist/build-report.json`: compiles the fixture mail server of
 * `tests/fixtures/compiled/` for the host, then times `bouncer --version`, `initialize` answered by the
 * fixture directly, and `initialize` answered through `bouncer run` wrapping it — all with an environment
 * that holds no Node or Bun. With `compareBytecode`, the host target is also compiled the other way
 * (with bytecode if the release is without, and the reverse) and timed the same way. A measurement that
 * fails is reported as an error string, not thrown: the executables are valid either way, and the tests
 * and smoke tests are what gate a release. Edge (build tooling).
 *
 * Source: SPEC §6–§7, issue 5 item 4.
 * @module
 */

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { compileTarget } from "./compile.ts";
import { measureCommand, measureInitialize, type Timing } from "./startup.ts";
import type { BuildTarget } from "./targets.ts";

/** Inputs of {@link measureStartup}. */
export interface StartupOptions {
  /** The repository root (for the fixture's source). */
  readonly root: string;
  /** A scratch folder this function may fill (the caller removes it). */
  readonly scratch: string;
  /** The CLI entry (for the comparison build). */
  readonly entry: string;
  /** The host's target. */
  readonly host: BuildTarget;
  /** The release executable for the host. */
  readonly binary: string;
  /** Whether `binary` was built with bytecode. */
  readonly bytecode: boolean;
  /** Also build and time the other bytecode setting. */
  readonly compareBytecode: boolean;
  /** Runs per measurement. */
  readonly runs: number;
}

/** Timings of one executable, each a summary or the error that stopped it. */
export interface ExecutableTimings {
  readonly bytecode: boolean;
  readonly bytes: number;
  readonly version: Timing | { readonly error: string };
  readonly initializeThroughBouncer: Timing | { readonly error: string };
}

/** The `startup` section of the build report. */
export interface StartupReport {
  readonly host: string;
  readonly note: string;
  readonly initializeDirect: Timing | { readonly error: string };
  readonly release: ExecutableTimings;
  readonly comparison?: ExecutableTimings;
}

/**
 * Runs a measurement, turning a failure into an error value.
 * @param measure - The measurement.
 * @returns Its timing or `{ error }`.
 */
async function attempt(measure: () => Promise<Timing>): Promise<Timing | { error: string }> {
  try {
    return await measure();
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Times one Bouncer executable.
 * @param binary - The executable.
 * @param context - Fixture path, environment, folder, runs, and the build's bytecode flag and size.
 * @returns Its timings.
 */
async function timeExecutable(
  binary: string,
  context: {
    fixture: string;
    env: Record<string, string>;
    cwd: string;
    runs: number;
    bytecode: boolean;
    bytes: number;
  },
): Promise<ExecutableTimings> {
  const options = { env: context.env, cwd: context.cwd, runs: context.runs };
  const run = [binary, "run", "--upstream-name", "mail", "--", context.fixture];
  return {
    bytecode: context.bytecode,
    bytes: context.bytes,
    version: await attempt(() => measureCommand([binary, "--version"], options)),
    initializeThroughBouncer: await attempt(() => measureInitialize(run, options)),
  };
}

/**
 * Measures the host executable's start-up (see the module doc).
 * @param options - See {@link StartupOptions}.
 * @returns The report section.
 * @throws {Error} When the fixture server cannot be compiled.
 */
export async function measureStartup(options: StartupOptions): Promise<StartupReport> {
  const bin = join(options.scratch, "bin");
  const home = join(options.scratch, "home");
  mkdirSync(bin, { recursive: true });
  mkdirSync(home, { recursive: true });
  const fixture = await compileTarget(options.host, {
    entry: join(options.root, "tests/fixtures/compiled/mail-server.ts"),
    outDir: bin,
    file: "mail-server",
    cwd: options.root,
  });
  const env = { PATH: bin, HOME: home, BOUNCER_HOME: home, BOUNCER_SESSION: "build-startup" };
  const context = { fixture: fixture.path, env, cwd: options.scratch, runs: options.runs };
  const size = Bun.file(options.binary).size;
  const release = await timeExecutable(options.binary, {
    ...context,
    bytecode: options.bytecode,
    bytes: size,
  });
  const initializeDirect = await attempt(() =>
    measureInitialize([fixture.path], { env, cwd: options.scratch, runs: options.runs }),
  );
  const note =
    "Milliseconds from spawn to the answer (median of runs), on the build machine, env without Node or Bun";
  if (!options.compareBytecode) return { host: options.host.name, note, initializeDirect, release };
  const other = await compileTarget(options.host, {
    entry: options.entry,
    outDir: options.scratch,
    file: "bouncer-comparison",
    bytecode: !options.bytecode,
    cwd: options.root,
  });
  const comparison = await timeExecutable(other.path, {
    ...context,
    bytecode: !options.bytecode,
    bytes: other.bytes,
  });
  return { host: options.host.name, note, initializeDirect, release, comparison };
}
