#!/usr/bin/env bun
/**
 * `npm run conformance`: runs the server scenarios of `@modelcontextprotocol/conformance` against a
 * fixture upstream (tests/fixtures/servers/conformance-upstream.ts) twice — directly, and through
 * `bouncer run` — each time behind `supergateway` (the suite speaks Streamable HTTP; Bouncer speaks
 * stdio), and checks that exactly the same scenarios pass both ways. Prints a table, writes
 * `dist/conformance.json`, and exits 1 when the pass sets differ or the fixture itself regressed.
 *
 * `--entry cli` (default): the real `src/cli.ts run`, gating every tool call with its default policy
 * (packs and heuristics), a temporary BOUNCER_HOME and audit log.
 * `--entry pass`: the pass-through test entry (tests/proxy/support/pass-through-entry.ts: the real
 * runProxy, framer, relay and life cycle, with pass-through hooks), to tell relay faults from gating.
 *
 * Source: issue 3 ("MCP conformance suite … the server scenarios that pass against an upstream
 * directly are exactly those that pass through Bouncer"), SPEC §3.1.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const BUN = process.execPath;
const FIXTURE = join(ROOT, "tests/fixtures/servers/conformance-upstream.ts");
const SUPERGATEWAY = join(ROOT, "node_modules/supergateway/dist/index.js");
const CONFORMANCE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
/** The share of scenarios the fixture must pass directly, or the comparison says little. */
const MIN_DIRECT_SHARE = 0.8;

type Entry = "pass" | "cli";

function parseEntry(argv: readonly string[]): Entry {
  const at = argv.indexOf("--entry");
  const value = at === -1 ? "cli" : argv[at + 1];
  if (value !== "pass" && value !== "cli") throw new Error(`--entry must be "pass" or "cli", got "${value}"`);
  return value;
}

function quote(arg: string): string {
  return /^[\w./:@=-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

async function waitForHealth(port: number, gateway: ChildProcess): Promise<void> {
  const end = performance.now() + 60_000;
  while (performance.now() < end) {
    if (gateway.exitCode !== null) throw new Error(`supergateway exited with code ${gateway.exitCode}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`supergateway did not listen on port ${port} within 60 s`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  const pid = child.pid;
  return new Promise((done) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // Gone.
      }
      done();
    }, 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      done();
    });
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      clearTimeout(timer);
      done();
    }
  });
}

function run(
  command: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; ms: number },
): Promise<number> {
  return new Promise((done) => {
    const child = spawn(command, [...args], {
      cwd: ROOT,
      env: options.env,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.ms);
    child.on("exit", (code) => {
      clearTimeout(timer);
      done(code ?? 1);
    });
  });
}

/** Scenario → passed (no check with status FAILURE). */
function readResults(dir: string): Map<string, boolean> {
  const results = new Map<string, boolean>();
  for (const name of readdirSync(dir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(name);
    const file = join(dir, name, "checks.json");
    if (match?.[1] === undefined || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, "utf8")) as { status: string }[];
    results.set(match[1], checks.length > 0 && checks.every((check) => check.status !== "FAILURE"));
  }
  return results;
}

async function scenarios(
  label: string,
  stdioCommand: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<Map<string, boolean>> {
  const port = await freePort();
  const out = mkdtempSync(join(tmpdir(), `bouncer-conformance-${label}-`));
  const gateway = spawn(
    BUN,
    [
      SUPERGATEWAY,
      "--stdio",
      stdioCommand.map(quote).join(" "),
      "--outputTransport",
      "streamableHttp",
      "--stateful",
      "--port",
      String(port),
      "--healthEndpoint",
      "/healthz",
      "--logLevel",
      "none",
    ],
    { cwd: ROOT, env, stdio: ["pipe", "ignore", "inherit"], detached: true },
  );
  try {
    await waitForHealth(port, gateway);
    process.stderr.write(`conformance: running the server scenarios ${label}…\n`);
    await run(BUN, [CONFORMANCE, "server", "--url", `http://127.0.0.1:${port}/mcp`, "-o", out], {
      env,
      ms: 600_000,
    });
    return readResults(out);
  } finally {
    await stop(gateway);
  }
}

async function main(): Promise<number> {
  const entry = parseEntry(process.argv.slice(2));
  const home = mkdtempSync(join(tmpdir(), "bouncer-conformance-home-"));
  const env = { ...process.env, BOUNCER_HOME: home };
  const upstream = [BUN, FIXTURE];
  const bouncer =
    entry === "cli"
      ? [BUN, join(ROOT, "src/cli.ts"), "run", "--upstream-name", "conformance", "--", ...upstream]
      : [
          BUN,
          join(ROOT, "tests/proxy/support/pass-through-entry.ts"),
          "--upstream-name",
          "conformance",
          "--",
          ...upstream,
        ];
  const direct = await scenarios("directly", upstream, env);
  const through = await scenarios(`through bouncer run (${entry})`, bouncer, env);

  const names = [...new Set([...direct.keys(), ...through.keys()])].sort();
  const mark = (passed: boolean | undefined): string =>
    passed === undefined ? "-" : passed ? "pass" : "FAIL";
  const width = Math.max(...names.map((n) => n.length), 8);
  const lines = [`${"scenario".padEnd(width)}  direct  bouncer`];
  const differing: string[] = [];
  for (const name of names) {
    const a = direct.get(name);
    const b = through.get(name);
    if (a !== b) differing.push(name);
    lines.push(`${name.padEnd(width)}  ${mark(a).padEnd(6)}  ${mark(b)}${a === b ? "" : "   <- differs"}`);
  }
  const directPassed = names.filter((n) => direct.get(n) === true).length;
  const throughPassed = names.filter((n) => through.get(n) === true).length;
  process.stdout.write(`${lines.join("\n")}\n\n`);
  process.stdout.write(
    `direct: ${directPassed}/${names.length} passed; through bouncer run (${entry}): ${throughPassed}/${names.length} passed\n`,
  );
  mkdirSync(join(ROOT, "dist"), { recursive: true });
  writeFileSync(
    join(ROOT, "dist/conformance.json"),
    `${JSON.stringify({ entry, scenarios: Object.fromEntries(names.map((n) => [n, { direct: direct.get(n) ?? null, bouncer: through.get(n) ?? null }])), differing }, null, 2)}\n`,
  );
  if (names.length === 0) {
    process.stdout.write("conformance: no scenario ran\n");
    return 1;
  }
  if (differing.length > 0) {
    process.stdout.write(`conformance: pass sets differ on ${differing.join(", ")}\n`);
    return 1;
  }
  if (directPassed < names.length * MIN_DIRECT_SHARE) {
    process.stdout.write(
      `conformance: the fixture passes only ${directPassed} of ${names.length} scenarios directly\n`,
    );
    return 1;
  }
  process.stdout.write("conformance: the same scenarios pass directly and through bouncer run\n");
  return 0;
}

process.exit(await main());
