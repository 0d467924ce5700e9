/**
 * `npm run bench:perf`: what Bouncer costs, as ratios and differences against a baseline measured in
 * the same run on the same machine (SPEC §7):
 * - `tools/call` through `bouncer run` vs directly to the same upstream — the real filesystem server
 *   (`read_text_file` of a small file) and the echo fixture — sequential and with 8 concurrent
 *   callers: calls per second, p50/p99 latency, added milliseconds; and, as the floor under any stdio
 *   proxy here, a minimal line relay (perf/minimal-relay.ts) in Bouncer's place;
 * - time to answer `initialize`, spawn included (median of 20), from source and, when `dist/` has
 *   one for this machine, the compiled binary;
 * - decision time in process at 1 KiB, 1 MiB, 16 MiB and 64 MiB of recorded output, beside the
 *   machine's own jitter (a pure computation as long as a decision, timed between decisions);
 * - peak RSS of the bouncer process, idle and after 64 MiB of output passed through it.
 * Prints tables and each target met or missed, writes `dist/bench/perf.json`, exits 0 whether or not
 * targets are met (1 only when something could not be measured).
 *
 * The client is a raw JSON-RPC line client (perf/line-client.ts), the same for both sides, so its
 * cost cancels out of every difference and stays small (the SDK's `Client` validates every message).
 *
 * Flags: `--out FILE` (default `dist/bench/perf.json`), `--quick` (fewer calls and runs, 16 MiB: for
 * trying a change, not for the README), `--no-binary` (skip the compiled binary).
 *
 * Source: SPEC §7; issue 6 part 2.
 * @module
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, machine, release, tmpdir, totalmem, type } from "node:os";
import { dirname, join, resolve } from "node:path";
import { benchArgs } from "./bench-args.ts";
import { type CallComparison, compareCalls } from "./perf/call-bench.ts";
import { DECISION_SIZES, measureDecisions } from "./perf/decision-bench.ts";
import { compareInitialize, type InitializeComparison } from "./perf/initialize-bench.ts";
import { progressLine, renderPerf } from "./perf/render.ts";
import { checkTargets, type PerfRun, perfJson } from "./perf/report.ts";
import { measureRss, type RssResult } from "./perf/rss-bench.ts";
import { type BouncerLaunch, ROOT, relayLaunch, sourceLaunch, type Upstream } from "./perf/session.ts";
import { round } from "./perf/stats.ts";

/** What `--help` prints. */
/** Untimed calls per side before the steady-state comparison (both warm-up passes together). */
const STEADY_WARMUP = 20_000;

const USAGE = `Usage: npm run bench:perf -- [--out FILE] [--quick] [--no-binary]
Measures tools/call, initialize, decisions and peak RSS against same-run baselines and writes
dist/bench/perf.json (--quick: a short look, not for quoting).`;

/** A guard against a hung child, never a measurement. */
const HANG_GUARD_MS = 15 * 60 * 1000;

/** The bench's policy: the echo fixture's tools send nothing anywhere (the filesystem pack covers the rest). */
const POLICY = `# bench:perf — the echo fixture's tools send nothing anywhere.
echo: { exfiltrating: false }
generate: { exfiltrating: false }
`;

/**
 * The compiled binary for this machine, when `dist/` has one that runs.
 * @returns Its path, or undefined.
 */
function compiledBinary(): string | undefined {
  const arch = process.arch === "arm64" ? "arm64" : "x64";
  const name = `bouncer-${process.platform === "win32" ? "windows" : process.platform}-${arch}`;
  const path = join(ROOT, "dist", process.platform === "win32" ? `${name}.exe` : name);
  if (!existsSync(path)) return undefined;
  const version = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 10_000 });
  return version.status === 0 ? path : undefined;
}

/**
 * Facts about the machine, for the record.
 * @returns CPU, OS, runtimes and load.
 */
function machineInfo(): Record<string, unknown> {
  const node = spawnSync("node", ["--version"], { encoding: "utf8" });
  return {
    cpus: cpus().length,
    cpu: cpus()[0]?.model ?? "unknown",
    arch: machine(),
    os: `${type()} ${release()}`,
    memory_gb: round(totalmem() / 1024 ** 3, 1),
    bun: Bun.version,
    node: node.status === 0 ? node.stdout.trim() : "not found",
    loadStart: loadavg().map((l) => round(l, 2)),
  };
}

/**
 * Runs one step, timing it on stderr.
 * @param label - What it measures.
 * @param step - The work.
 * @returns Its result.
 */
async function step<T>(label: string, work: () => Promise<T>): Promise<T> {
  const begin = performance.now();
  const result = await work();
  process.stderr.write(progressLine(label, performance.now() - begin));
  return result;
}

/**
 * Runs the bench.
 * @param argv - The flags.
 * @returns The exit status.
 */
async function main(argv: readonly string[]): Promise<number> {
  const parsed = benchArgs(
    argv,
    { out: { type: "string" }, quick: { type: "boolean" }, "no-binary": { type: "boolean" } },
    USAGE,
  );
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const quick = values.quick === true;
  const outFile = resolve(values.out ?? join(ROOT, "dist/bench/perf.json"));
  const work = mkdtempSync(join(tmpdir(), "bouncer-bench-perf-"));
  const guard = setTimeout(() => {
    process.stderr.write(`[bench:perf] Hang guard: no result within ${HANG_GUARD_MS / 60000} minutes\n`);
    process.exit(1);
  }, HANG_GUARD_MS);
  guard.unref();
  try {
    const started = performance.now();
    const machineFacts = machineInfo();
    const files = join(work, "files");
    mkdirSync(files);
    writeFileSync(join(files, "note.txt"), "A small file the bench reads again and again.\n");
    const policy = join(work, "policy.yaml");
    writeFileSync(policy, POLICY);
    const env = { ...process.env, BOUNCER_HOME: join(work, "home"), BOUNCER_SESSION: "bench-perf" };
    const source = sourceLaunch({ policy, env });
    const binaryPath = values["no-binary"] === true ? undefined : compiledBinary();
    const binary: BouncerLaunch | undefined =
      binaryPath === undefined ? undefined : { kind: "binary", prefix: [binaryPath, "run"], policy, env };
    const callOf = (name: string, args: Record<string, unknown>): string =>
      `{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${JSON.stringify(args)}}}`;
    const filesystem: Upstream = {
      name: "filesystem",
      command: [join(ROOT, "node_modules/.bin/mcp-server-filesystem"), files],
      callTemplate: callOf("read_text_file", { path: join(files, "note.txt") }),
    };
    const echo: Upstream = {
      name: "echo",
      command: [process.execPath, join(ROOT, "tests/fixtures/servers/echo.ts")],
      callTemplate: callOf("echo", { text: "hello" }),
    };

    const callOptions = quick ? { calls: 400, warmup: 100 } : { calls: 2000 };
    const calls: CallComparison[] = [];
    for (const upstream of [filesystem, echo]) {
      calls.push(
        ...(await step(`calls ${upstream.name}`, () => compareCalls(upstream, source, callOptions))),
      );
    }
    calls.push(
      ...(await step("calls filesystem (minimal relay)", () =>
        compareCalls(filesystem, relayLaunch(source), callOptions),
      )),
    );
    if (!quick) {
      // The same comparison once JavaScriptCore's JIT has settled (it compiles through the first
      // ~25,000 calls of a process): reported beside the targets, never instead of them.
      calls.push(
        ...(await step("calls filesystem (after 20,000 warm-up calls)", () =>
          compareCalls(filesystem, source, { calls: 2000, warmup: STEADY_WARMUP / 2 }),
        )),
      );
    }
    const runs = quick ? 4 : 20;
    const initialize: InitializeComparison[] = [];
    for (const [upstream, launch] of [
      [filesystem, source],
      [echo, source],
      ...(binary === undefined ? [] : [[filesystem, binary] as const]),
    ] as const) {
      initialize.push(
        await step(`initialize ${upstream.name} (${launch.kind})`, () =>
          compareInitialize(upstream, launch, { runs }),
        ),
      );
    }
    const outputMiB = quick ? 16 : 64;
    const rss: RssResult[] = [];
    for (const launch of binary === undefined ? [source] : [source, binary]) {
      for (const density of ["dense", "sparse"] as const) {
        rss.push(
          await step(`rss (${launch.kind}, ${density})`, () =>
            measureRss(echo, launch, { outputMiB, density }),
          ),
        );
      }
    }
    const sizes = quick ? DECISION_SIZES.slice(0, 3) : DECISION_SIZES;
    const decisions = await step("decisions", () =>
      measureDecisions(quick ? { sizes, tokenIterations: 500, nonTokenIterations: 50 } : { sizes }),
    );
    const run: PerfRun = {
      date: new Date().toISOString(),
      machine: { ...machineFacts, loadEnd: loadavg().map((l) => round(l, 2)) },
      seconds: round((performance.now() - started) / 1000, 1),
      calls,
      initialize,
      decisions,
      rss,
      method: {
        client: "raw JSON-RPC line client over stdio (scripts/bench/perf/line-client.ts), same both ways",
        calls_per_side: callOptions.calls,
        concurrency: [1, 8],
        blocks: "8 alternating blocks per side (direct and bouncer sessions open side by side)",
        filesystem_call: "read_text_file of a 47-byte file",
        echo_call: 'echo {"text":"hello"}',
        initialize_runs: runs,
        rss_output: `${outputMiB} × 1 MiB results of synthetic prose (generate tool of tests/fixtures/servers/echo.ts), dense (destinations on every line) and sparse (one line in 16)`,
        decisions: "Gate.decideCall in process after recording synthetic output in 256 KiB results",
        binary: binaryPath === undefined ? null : binaryPath.replace(`${ROOT}/`, ""),
        binary_built: binaryPath === undefined ? null : statSync(binaryPath).mtime.toISOString(),
        quick,
      },
    };
    const checks = checkTargets(run);
    process.stdout.write(renderPerf(run, checks));
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, `${JSON.stringify(perfJson(run), null, 2)}\n`);
    process.stdout.write(`\nWrote ${outFile.replace(`${ROOT}/`, "")}\n`);
    return 0;
  } finally {
    clearTimeout(guard);
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(
    `[bench:perf] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
}
