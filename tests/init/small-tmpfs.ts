/**
 * Runs `bouncer init` on a config kept in a tiny tmpfs (32 KiB), for the full-disk cases: the tmpfs
 * is mounted in a private mount namespace of an unprivileged user namespace (`unshare -rm`), so no
 * root is needed, and it vanishes with the run. Where the system has no `unshare` or forbids user
 * namespaces, {@link smallTmpfsAvailable} is false and the tests that need it are skipped (the
 * injected-write tests in `write-config.test.ts` cover the same code). Test helper, not a test.
 * @module
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO } from "../run-cli.ts";

/** Whether a 32 KiB tmpfs can be mounted here without privileges (Linux with user namespaces). */
export const smallTmpfsAvailable: boolean = probe();

/**
 * Tries to mount a tmpfs in a throw-away namespace.
 * @returns True when it worked.
 */
function probe(): boolean {
  if (process.platform !== "linux") return false;
  const dir = mkdtempSync(path.join(tmpdir(), "bouncer-tmpfs-probe-"));
  try {
    const result = spawnSync("unshare", ["-rm", "sh", "-c", 'mount -t tmpfs -o size=32k tmpfs "$0"', dir], {
      timeout: 10_000,
    });
    return result.status === 0;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What a run on the tmpfs left behind. */
export interface TmpfsRun {
  readonly code: number;
  readonly stderr: string;
  /** The names in the tmpfs folder after the run. */
  readonly files: readonly string[];
  /** Whether the config still holds exactly the bytes it started with. */
  readonly intact: boolean;
}

/**
 * Copies `config` to `c.json` in a fresh 32 KiB tmpfs and runs `bouncer init --config c.json ARGS...`
 * there (the real CLI, HOME and BOUNCER_HOME in a temp folder).
 * @param config - The config's text.
 * @param args - More arguments (e.g. `--yes`).
 * @returns Exit status, stderr, what the folder holds, and whether the config is unchanged.
 */
export function initOnSmallTmpfs(config: string, args: readonly string[]): TmpfsRun {
  const out = mkdtempSync(path.join(tmpdir(), "bouncer-tmpfs-"));
  try {
    const mount = path.join(out, "m");
    const home = path.join(out, "home");
    mkdirSync(mount);
    mkdirSync(home);
    const source = path.join(out, "source.json");
    writeFileSync(source, config);
    const script = [
      'mount -t tmpfs -o size=32k tmpfs "$M" || exit 97',
      'cp "$SRC" "$M/c.json" || exit 98',
      '"$BUN" "$CLI" init --config "$M/c.json" "$@" >/dev/null 2>"$OUT/stderr"; echo $? >"$OUT/rc"',
      'ls -A "$M" >"$OUT/ls"',
      'if cmp -s "$SRC" "$M/c.json"; then echo yes; else echo no; fi >"$OUT/intact"',
    ].join("\n");
    const result = spawnSync("unshare", ["-rm", "sh", "-c", script, "sh", ...args], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        BOUNCER_HOME: path.join(home, ".bouncer"),
        NO_COLOR: "1",
        M: mount,
        SRC: source,
        OUT: out,
        BUN: process.execPath,
        CLI: path.join(REPO, "src", "cli.ts"),
      },
      timeout: 60_000,
    });
    if (result.status !== 0) throw new Error(`The tmpfs run failed (${result.status}): ${result.stderr}`);
    const read = (name: string): string => readFileSync(path.join(out, name), "utf8");
    return {
      code: Number(read("rc").trim()),
      stderr: read("stderr"),
      files: read("ls")
        .split("\n")
        .filter((name) => name !== ""),
      intact: read("intact").trim() === "yes",
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * A config of `count` stdio servers, two-space indented (about 100 bytes per server).
 * @param count - How many servers.
 * @returns The JSON text.
 */
export function manyServers(count: number): string {
  const servers = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`server-${i}`, { command: "node", args: [`server-${i}.js`] }]),
  );
  return `${JSON.stringify({ mcpServers: servers }, undefined, 2)}\n`;
}
