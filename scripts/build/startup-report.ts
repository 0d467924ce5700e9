/**
 * The start-up part of `dist/build-report.json`: compiles the fixture mail server of
 * `tests/fixtures/compiled/` for the host, then times `bouncer --version`, `initialize` answered by the
 * fixture directly, and `initialize` answered through `bouncer run` wrapping it — all with an environment
 * that holds no Node or Bun. With `compareBytecode`, the host target is also compiled the other way
 * (with bytecode if the release is without, and the reverse) and timed the same way, the two
 * executables taking turns run by run so that a change in machine load hits both alike. A measurement that
 * fails is reported as an error string, not thrown: the executables are valid either way, and the tests
 * and smoke tests are what gate a release. Edge (build tooling).
 *
 * Source: SPEC §6–§7, issue 5 item 4.
 * @module
 */

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { compileTarget } from "./compile.ts";
import { summarise, type Timing, timeCommandOnce, timeInitializeOnce } from "./startup.ts";
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

/** A summary, or the error that stopped the measurement. */
export type Measured = Timing | { readonly error: string };

/** Timings of one executable. */
export interface ExecutableTimings {
  readonly bytecode: boolean;
  readonly bytes: number;
  /** Wall time of `bouncer --version`. */
  readonly version: Measured;
  /** CPU time (user + system) of `bouncer --version`: the steadiest start-up figure. */
  readonly versionCpu: Measured;
  /** Spawn to the answer to `initialize`, through `bouncer run` wrapping the fixture. */
  readonly initializeThroughBouncer: Measured;
}

/** The `startup` section of the build report. */
export interface StartupReport {
  readonly host: string;
  readonly note: string;
  readonly initializeDirect: Measured;
  readonly release: ExecutableTimings;
  readonly comparison?: ExecutableTimings;
}

/** Samples of one measurement, or the first error it hit. */
class Series {
  readonly samples: number[] = [];
  error: string | null = null;

  /**
   * Adds a sample unless an earlier run failed; records the failure otherwise.
   * @param take - Takes one sample.
   */
  async add(take: () => Promise<number>): Promise<void> {
    if (this.error !== null) return;
    try {
      this.samples.push(await take());
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    }
  }

  /**
   * The summary, or the error.
   * @returns What the report shows.
   */
  result(): Measured {
    if (this.error !== null || this.samples.length === 0) return { error: this.error ?? "no runs" };
    return summarise(this.samples);
  }
}

/** One executable under measurement. */
interface Candidate {
  readonly binary: string;
  readonly bytecode: boolean;
  readonly bytes: number;
  readonly version: Series;
  readonly versionCpu: Series;
  readonly initialize: Series;
}

/**
 * A candidate with empty series.
 * @param binary - The executable.
 * @param bytecode - Whether it was built with bytecode.
 * @returns The candidate.
 */
function candidate(binary: string, bytecode: boolean): Candidate {
  const bytes = Bun.file(binary).size;
  return {
    binary,
    bytecode,
    bytes,
    version: new Series(),
    versionCpu: new Series(),
    initialize: new Series(),
  };
}

/**
 * The report row of a candidate.
 * @param row - The candidate.
 * @returns Its timings.
 */
function timings(row: Candidate): ExecutableTimings {
  return {
    bytecode: row.bytecode,
    bytes: row.bytes,
    version: row.version.result(),
    versionCpu: row.versionCpu.result(),
    initializeThroughBouncer: row.initialize.result(),
  };
}

/**
 * Measures the host executable's start-up (see the module doc).
 * @param options - See {@link StartupOptions}.
 * @returns The report section.
 * @throws {Error} When the fixture server (or the comparison executable) cannot be compiled.
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
  const rows = [candidate(options.binary, options.bytecode)];
  if (options.compareBytecode) {
    const other = await compileTarget(options.host, {
      entry: options.entry,
      outDir: options.scratch,
      file: "bouncer-comparison",
      bytecode: !options.bytecode,
      cwd: options.root,
    });
    rows.push(candidate(other.path, !options.bytecode));
  }
  const env = { PATH: bin, HOME: home, BOUNCER_HOME: home, BOUNCER_SESSION: "build-startup" };
  const spawn = { env, cwd: options.scratch };
  const direct = new Series();
  for (let run = 0; run < options.runs; run += 1) {
    await direct.add(() => timeInitializeOnce([fixture.path], spawn));
    for (const row of rows) {
      let cpu = Number.NaN;
      await row.version.add(async () => {
        const sample = await timeCommandOnce([row.binary, "--version"], spawn);
        cpu = sample.cpuMs;
        return sample.wallMs;
      });
      if (!Number.isNaN(cpu)) await row.versionCpu.add(async () => cpu);
      const wrap = [row.binary, "run", "--upstream-name", "mail", "--", fixture.path];
      await row.initialize.add(() => timeInitializeOnce(wrap, spawn));
    }
  }
  const note =
    "Milliseconds (median, min, max over runs) on the build machine, in an environment without Node or Bun: " +
    "spawn to exit for --version (wall and CPU), spawn to the initialize answer for the fixture server " +
    "alone and through bouncer run";
  const report: StartupReport = {
    host: options.host.name,
    note,
    initializeDirect: direct.result(),
    release: timings(rows[0]!),
  };
  return rows[1] === undefined ? report : { ...report, comparison: timings(rows[1]) };
}
