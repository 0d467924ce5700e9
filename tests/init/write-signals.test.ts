import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { tryAcquireLock } from "../../src/platform/lock-file.ts";
import { REPO } from "../run-cli.ts";

const root = mkdtempSync(path.join(tmpdir(), "bouncer-write-signals-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const CLI = path.join(REPO, "src", "cli.ts");

/** A new folder holding one config `c.json` with one stdio server. */
function configDir(): { dir: string; file: string; text: string } {
  const dir = path.join(root, `d${counter++}`);
  mkdirSync(dir);
  const file = path.join(dir, "c.json");
  const text = '{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "srv"]}}, "numStartups": 5}\n';
  writeFileSync(file, text);
  return { dir, file, text };
}

/** What {@link signalWhen} saw. */
interface Signalled {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The folder's names when the marker was printed, before the signal. */
  readonly before: readonly string[];
}

/**
 * Spawns `bun ARGV...`, reads one of its streams until it prints `marker`, lists `dir`, sends
 * `signal`, and waits for the exit.
 * @param argv - The script and its arguments.
 * @param options - The folder to list, the stream and marker to wait for, the signal to send.
 * @returns The exit code, the output and the folder's names before the signal.
 */
async function signalWhen(
  argv: readonly string[],
  options: {
    readonly dir: string;
    readonly stream: "stdout" | "stderr";
    readonly marker: string;
    readonly signal: NodeJS.Signals;
  },
): Promise<Signalled> {
  const child = Bun.spawn([process.execPath, ...argv], {
    cwd: options.dir,
    env: { ...process.env, NO_COLOR: "1", BOUNCER_HOME: path.join(REPO, "tests", "fixtures", "no-home") },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [watched, other] =
    options.stream === "stdout" ? [child.stdout, child.stderr] : [child.stderr, child.stdout];
  const otherText = new Response(other).text();
  const decoder = new TextDecoder();
  const reader = watched.getReader();
  let text = "";
  let before: string[] = [];
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    text += decoder.decode(chunk.value, { stream: true });
    if (before.length === 0 && text.includes(options.marker)) {
      before = readdirSync(options.dir).sort();
      child.kill(options.signal);
    }
  }
  const code = await child.exited;
  const rest = await otherText;
  return options.stream === "stdout"
    ? { code, stdout: text, stderr: rest, before }
    : { code, stdout: rest, stderr: text, before };
}

test("writeConfigFile() stopped by SIGTERM once its temp file is written removes the temp file and the backup, releases its lock and writes nothing", async () => {
  const { dir, file, text } = configDir();
  const script = path.join(REPO, "tests", "fixtures", "interrupted-write.ts");
  const run = await signalWhen([script, file], { dir, stream: "stdout", marker: "ready", signal: "SIGTERM" });
  // At the signal: the lock, the backup and the whole temp file were there.
  expect(run.before.map((name) => name.replace(/(bouncer-(?:backup|tmp))-.*$/, "$1"))).toEqual([
    "c.json",
    "c.json.bouncer-backup",
    "c.json.bouncer-lock",
    "c.json.bouncer-tmp",
  ]);
  expect(run.stdout).toBe("ready\nINTERRUPTED\n");
  expect(run.code).toBe(143);
  expect(readFileSync(file, "utf8")).toBe(text);
  expect(readdirSync(dir)).toEqual(["c.json"]);
});

test("bouncer init --yes stopped by SIGINT while another run holds the lock exits 130, writes nothing and leaves that run's lock", async () => {
  const { dir, file, text } = configDir();
  const lock = `${file}.bouncer-lock`;
  const other = tryAcquireLock(lock); // this test process: a live run
  try {
    const run = await signalWhen([CLI, "init", "--config", file, "--yes"], {
      dir,
      stream: "stderr",
      marker: "Waiting for another bouncer init",
      signal: "SIGINT",
    });
    expect(run.stderr).toContain(
      `Waiting for another bouncer init to finish with "${file}" (lock file "${lock}")`,
    );
    expect(run.stderr).toContain(`bouncer: Cannot write "${file}": stopped by a signal: not written`);
    expect(run.stderr).toEndWith("bouncer: Stopped by SIGINT\n");
    expect(run.stderr).not.toContain("Wrote");
    expect(run.code).toBe(130);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(readdirSync(dir).sort()).toEqual(["c.json", "c.json.bouncer-lock"]);
    expect(readFileSync(lock, "utf8")).toBe(`${other?.token}\n`);
  } finally {
    other?.release();
  }
});
