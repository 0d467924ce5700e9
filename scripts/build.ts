/**
 * `bun run build`: compiles `src/cli.ts` into `dist/bouncer-<os>-<arch>[-musl][.exe]` for every release
 * target, then writes `dist/SHA256SUMS`, the Homebrew formula `dist/bouncer.rb`, the scoop manifest
 * `dist/bouncer.json` and `dist/build-report.json` (sizes, compile times, and the host executable's
 * start-up cost: `--version` and the time to answer `initialize` through `bouncer run`). Edge (build
 * tooling).
 *
 * Flags: see {@link USAGE} (`--help` prints it).
 *
 * Source: SPEC §6, issue 5.
 * @module
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { errorCode } from "../src/platform/errors.ts";
import { type CompileResult, compileTarget, DEFAULT_BYTECODE, describeHost } from "./build/compile.ts";
import {
  formatSha256Sums,
  homebrewFormula,
  type ReleaseInfo,
  scoopManifest,
  sha256File,
} from "./build/release-files.ts";
import { measureStartup, type StartupReport } from "./build/startup-report.ts";
import { type BuildTarget, hostTarget, selectTargets, TARGETS } from "./build/targets.ts";

const ROOT = resolve(import.meta.dir, "..");
const FALLBACK_REPO = "OWNER/bouncer";

/** What `--help` prints: the flags. */
export const USAGE = `Build the Bouncer executables and release files (bun scripts/build.ts [FLAGS])

FLAGS
  --target NAME        a target to build, repeatable (default: all): ${TARGETS.map((row) => row.name).join(", ")}
  --out DIR            output folder (default: dist)
  --entry FILE         the CLI to compile (default: src/cli.ts)
  --repo OWNER/NAME    repository the formula and manifest point at (default: $GITHUB_REPOSITORY)
  --bytecode           compile to bytecode (default: ${DEFAULT_BYTECODE ? "on" : "off"}); --no-bytecode turns it off
  --no-measure         skip the host executable's start-up measurement
  --compare-bytecode   also build the host target the other way and measure both
  --runs N             start-up runs to measure (default: 15)
  -h, --help           print this and exit
`;

/** One row of the report's `targets`. */
interface TargetReport {
  readonly name: string;
  readonly file: string;
  readonly bunTarget: string;
  readonly bytes: number;
  readonly mib: number;
  readonly compileMs: number;
  readonly sha256: string;
}

/**
 * Reads the package manifest's version and description.
 * @returns The fields the release files need.
 * @throws {TypeError} When package.json lacks a version.
 */
function readPackage(): { version: string; description: string; license: string } {
  const pkg: unknown = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const field = (key: string): string => {
    const value: unknown = typeof pkg === "object" && pkg !== null ? Reflect.get(pkg, key) : undefined;
    return typeof value === "string" ? value : "";
  };
  if (field("version") === "") throw new TypeError('Cannot build: "package.json" has no version');
  return { version: field("version"), description: field("description"), license: field("license") || "MIT" };
}

/**
 * Rounds milliseconds or mebibytes to one decimal.
 * @param value - The number.
 * @returns The rounded number.
 */
function tenth(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * Compiles the targets one after the other, printing a line per target.
 * @param targets - What to build.
 * @param options - Entry, output folder, bytecode.
 * @returns The per-target results.
 * @throws {Error} When a compilation fails.
 */
async function compileAll(
  targets: readonly BuildTarget[],
  options: { entry: string; outDir: string; bytecode: boolean },
): Promise<TargetReport[]> {
  const rows: TargetReport[] = [];
  for (const target of targets) {
    const result: CompileResult = await compileTarget(target, { ...options, cwd: ROOT });
    const row: TargetReport = {
      name: target.name,
      file: target.file,
      bunTarget: target.bunTarget,
      bytes: result.bytes,
      mib: tenth(result.bytes / 2 ** 20),
      compileMs: Math.round(result.ms),
      sha256: sha256File(result.path),
    };
    process.stdout.write(`build: ${row.file}  ${row.mib} MiB  ${(row.compileMs / 1000).toFixed(1)} s\n`);
    rows.push(row);
  }
  return rows;
}

/**
 * Writes the release files that the built targets allow: SHA256SUMS always, the formula and manifest
 * when their targets are among them.
 * @param outDir - The output folder.
 * @param release - The built rows, their targets, and the version and repository.
 * @returns The names of the files written.
 */
function writeReleaseFiles(
  outDir: string,
  release: { rows: readonly TargetReport[]; targets: readonly BuildTarget[]; info: ReleaseInfo },
): string[] {
  const { rows, targets, info } = release;
  const written = ["SHA256SUMS"];
  writeFileSync(
    join(outDir, "SHA256SUMS"),
    formatSha256Sums(rows.map((row) => ({ sha256: row.sha256, file: row.file }))),
  );
  const assets = { sums: new Map(rows.map((row): [string, string] => [row.file, row.sha256])), targets };
  const has = (names: readonly string[]): boolean =>
    names.every((name) => rows.some((row) => row.name === name));
  if (has(["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64"])) {
    writeFileSync(join(outDir, "bouncer.rb"), homebrewFormula(info, assets));
    written.push("bouncer.rb");
  }
  if (has(["windows-x64"])) {
    writeFileSync(join(outDir, "bouncer.json"), scoopManifest(info, assets));
    written.push("bouncer.json");
  }
  return written;
}

/** The release files a build writes besides the executables. */
const RELEASE_FILES: readonly string[] = ["SHA256SUMS", "bouncer.rb", "bouncer.json", "build-report.json"];

/**
 * Removes what an earlier build wrote to the output folder (every target's executable and the release
 * files, nothing else), so a partial build never leaves a formula or checksum of another build beside
 * its own executables.
 * @param outDir - The output folder.
 */
function removeEarlierOutput(outDir: string): void {
  for (const name of [...TARGETS.map((row) => row.file), ...RELEASE_FILES]) {
    rmSync(join(outDir, name), { force: true });
  }
}

/**
 * Runs the build from command-line flags.
 * @param argv - The flags (without `bun scripts/build.ts`).
 * @returns The exit status.
 */
async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowNegative: true,
    options: {
      target: { type: "string", multiple: true, default: [] },
      out: { type: "string", default: "dist" },
      entry: { type: "string", default: "src/cli.ts" },
      repo: { type: "string" },
      bytecode: { type: "boolean", default: DEFAULT_BYTECODE },
      measure: { type: "boolean", default: true },
      "compare-bytecode": { type: "boolean", default: false },
      runs: { type: "string", default: "15" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const started = performance.now();
  const pkg = readPackage();
  const repo = values.repo ?? process.env.GITHUB_REPOSITORY ?? FALLBACK_REPO;
  if (repo === FALLBACK_REPO) {
    process.stderr.write(`build: no --repo and no GITHUB_REPOSITORY: release files point at "${repo}"\n`);
  }
  const info: ReleaseInfo = { ...pkg, repo };
  let targets: readonly BuildTarget[];
  try {
    targets = selectTargets(values.target);
  } catch (error) {
    // An unknown target is a usage error (exit 2, as the CLI's).
    if (!(error instanceof RangeError)) throw error;
    process.stderr.write(`build: ${error.message}${FLAGS_HINT}\n`);
    return 2;
  }
  const outDir = resolve(ROOT, values.out);
  const entry = resolve(ROOT, values.entry);
  mkdirSync(outDir, { recursive: true });
  removeEarlierOutput(outDir);
  const rows = await compileAll(targets, { entry, outDir, bytecode: values.bytecode });
  const written = writeReleaseFiles(outDir, { rows, targets, info });
  const buildMs = Math.round(performance.now() - started);

  let startup: StartupReport | { skipped: string } = { skipped: "--no-measure" };
  const host = hostTarget(describeHost());
  const hostRow = rows.find((row) => row.name === host?.name);
  if (values.measure && host !== null && hostRow !== undefined) {
    const scratch = mkdtempSync(join(tmpdir(), "bouncer-build-"));
    try {
      startup = await measureStartup({
        root: ROOT,
        scratch,
        entry,
        host,
        binary: join(outDir, hostRow.file),
        bytecode: values.bytecode,
        compareBytecode: values["compare-bytecode"],
        runs: Number.parseInt(values.runs, 10),
      });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  } else if (values.measure) {
    startup = { skipped: "the host's own target was not built" };
  }
  const report = {
    version: pkg.version,
    bun: Bun.version,
    repo,
    flags: {
      minify: true,
      bytecode: values.bytecode,
      autoload: "dotenv, bunfig, tsconfig, package.json off",
    },
    buildMs,
    targets: rows,
    startup,
    files: [...written, "build-report.json"],
  };
  writeFileSync(join(outDir, "build-report.json"), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(
    `build: wrote ${[...written, "build-report.json"].join(", ")} to "${outDir}" in ${(buildMs / 1000).toFixed(1)} s\n`,
  );
  return 0;
}

/** Where a usage error points. */
const FLAGS_HINT = ' (run "npm run build -- --help" for the flags)';

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // A flag parseArgs refused: a usage error (exit 2, as the CLI's), with where the flags are listed.
      const usage = errorCode(error)?.startsWith("ERR_PARSE_ARGS") === true;
      const hint = usage ? FLAGS_HINT : "";
      process.stderr.write(`build: ${error instanceof Error ? error.message : String(error)}${hint}\n`);
      process.exitCode = usage ? 2 : 1;
    },
  );
}
