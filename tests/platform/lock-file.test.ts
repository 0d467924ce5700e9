import { afterEach, beforeEach, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  type Stats,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { acquireLockWaiting, LOCK_STALE_MS, tryAcquireLock } from "../../src/platform/lock-file.ts";
import { breakMarkerPath, readLockSnapshot } from "../../src/platform/stale-lock.ts";
import { smallTmpfsAvailable } from "../init/small-tmpfs.ts";
import { REPO } from "../run-cli.ts";

let dir = "";
let lock = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bouncer-lock-"));
  lock = join(dir, "audit.jsonl.lock");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Sets a file's modification time to `ageMs` ago. */
function age(path: string, ageMs: number): void {
  const when = (Date.now() - ageMs) / 1000;
  utimesSync(path, when, when);
}

test("tryAcquireLock() creates the lock file with this process's token and release() removes it", () => {
  const held = tryAcquireLock(lock);
  if (held === undefined) throw new Error("tryAcquireLock() did not take over the dead holder's lock");
  expect(readFileSync(lock, "utf8")).toBe(`${held.token}\n`);
  expect(held?.token).toStartWith(`${process.pid} `);
  held?.release();
  expect(existsSync(lock)).toBe(false);
});

test("tryAcquireLock() returns undefined while another holder's lock is fresh", () => {
  const first = tryAcquireLock(lock);
  expect(tryAcquireLock(lock)).toBeUndefined();
  first?.release();
  expect(tryAcquireLock(lock)).toBeDefined();
});

test("tryAcquireLock() takes over a lock older than 10 s and leaves no stray file", () => {
  writeFileSync(lock, "999999 dead\n");
  age(lock, LOCK_STALE_MS + 5_000);
  const held = tryAcquireLock(lock);
  if (held === undefined) throw new Error("tryAcquireLock() did not take over the dead holder's lock");
  expect(readFileSync(lock, "utf8")).toBe(`${held.token}\n`);
  expect(readdirSync(dir)).toEqual(["audit.jsonl.lock"]);
});

/**
 * Takes `lock` in a child process that then dies by SIGKILL (no release), as a killed run does.
 * @returns The token the dead holder left.
 */
function lockOfDeadHolder(): string {
  const child = spawnSync(process.execPath, [join(REPO, "tests", "fixtures", "lock-and-die.ts"), lock], {
    encoding: "utf8",
  });
  expect(child.signal).toBe("SIGKILL");
  const token = child.stdout.trim();
  expect(readFileSync(lock, "utf8")).toBe(`${token}\n`);
  return token;
}

test("tryAcquireLock() takes over at once a fresh lock whose holder, on this host, no longer runs", () => {
  lockOfDeadHolder();
  const held = tryAcquireLock(lock);
  if (held === undefined) throw new Error("tryAcquireLock() did not take over the dead holder's lock");
  expect(readFileSync(lock, "utf8")).toBe(`${held.token}\n`);
  expect(readdirSync(dir)).toEqual(["audit.jsonl.lock"]);
});

test("tryAcquireLock() waits out a fresh lock of a gone process id recorded on another host or in the older form", () => {
  const [pid, nonce] = lockOfDeadHolder().split(" ");
  for (const token of [`${pid} ${nonce} elsewhere%2F`, `${pid} ${nonce}`]) {
    writeFileSync(lock, `${token}\n`);
    expect(tryAcquireLock(lock)).toBeUndefined();
    expect(readFileSync(lock, "utf8")).toBe(`${token}\n`);
  }
});

test("tryAcquireLock() waits out a fresh lock of this host name and PID namespace written under another boot", () => {
  // Every host's initial PID namespace reads the same `pid:[4026531836]`: a live holder on another
  // machine of this name, sharing the folder (NFS, a shared volume), differs only by its boot id.
  const namespace = readlinkSync("/proc/self/ns/pid");
  const [pid, nonce] = lockOfDeadHolder().split(" ");
  const otherBoot = "00000000-0000-4000-8000-000000000000";
  for (const where of [`${hostname()}/${namespace}/${otherBoot}`, `${hostname()}/${namespace}`]) {
    const token = `${pid} ${nonce} ${encodeURIComponent(where)}`;
    writeFileSync(lock, `${token}\n`);
    expect(tryAcquireLock(lock)).toBeUndefined();
    expect(readFileSync(lock, "utf8")).toBe(`${token}\n`);
  }
});

test("tryAcquireLock() judges staleness with the injected clock", () => {
  writeFileSync(lock, "999999 dead\n");
  expect(tryAcquireLock(lock, { now: () => Date.now() + 1_000 })).toBeUndefined();
  expect(tryAcquireLock(lock, { now: () => Date.now() + LOCK_STALE_MS + 60_000 })).toBeDefined();
});

test("tryAcquireLock() release() of a lock taken over by another holder leaves the new lock alone", () => {
  const first = tryAcquireLock(lock);
  age(lock, LOCK_STALE_MS + 5_000);
  const second = tryAcquireLock(lock);
  expect(second).toBeDefined();
  first?.release();
  expect(readFileSync(lock, "utf8")).toBe(`${second?.token}\n`);
  second?.release();
  expect(existsSync(lock)).toBe(false);
});

test("release() leaves the lock to a process that holds its break marker (it is taking the lock over)", () => {
  const held = tryAcquireLock(lock);
  if (held === undefined) throw new Error("no lock");
  const seen = readLockSnapshot(lock);
  if (seen === undefined) throw new Error("no lock file");
  // Another process judged this lock stale and is removing it: it holds the marker, and will put
  // its own lock in place; a release that deleted the file now could delete that successor's lock.
  const marker = breakMarkerPath(lock, seen);
  writeFileSync(marker, "2 other host\n");
  held.release();
  expect(readFileSync(lock, "utf8")).toBe(`${held.token}\n`);
  rmSync(marker);
  held.release();
  expect(existsSync(lock)).toBe(false);
  expect(readdirSync(dir)).toEqual([]);
});

test("tryAcquireLock() throws when the lock folder does not exist", () => {
  expect(() => tryAcquireLock(join(dir, "missing", "audit.jsonl.lock"))).toThrow(/ENOENT/);
});

test("acquireLockWaiting() takes the lock once its holder releases it, within the wait", async () => {
  const held = tryAcquireLock(lock);
  setTimeout(() => held?.release(), 30);
  const taken = await acquireLockWaiting(lock, { waitMs: 5_000 });
  expect(taken).toBeDefined();
  expect(readFileSync(lock, "utf8").trim()).toBe(taken?.token ?? "");
  taken?.release();
});

test("acquireLockWaiting() gives up after the wait while another holder keeps the lock", async () => {
  const held = tryAcquireLock(lock);
  expect(await acquireLockWaiting(lock, { waitMs: 40 })).toBeUndefined();
  expect(readFileSync(lock, "utf8").trim()).toBe(held?.token ?? "");
  held?.release();
});

test("tryAcquireLock() leaves alone a fresh lock taken in place of the stale one it judged, though both read empty", () => {
  // A run killed between creating its lock and writing its token leaves an empty lock; a fresh lock
  // another run has just created reads empty too. The clock is read between the look at the stale
  // lock and its removal: here another run removes it and creates its own meanwhile.
  writeFileSync(lock, "");
  age(lock, LOCK_STALE_MS + 5_000);
  let fresh: Stats | undefined;
  const now = (): number => {
    if (fresh === undefined) {
      rmSync(lock);
      closeSync(openSync(lock, "wx"));
      fresh = statSync(lock);
    }
    return Date.now();
  };
  expect(tryAcquireLock(lock, { now })).toBeUndefined();
  expect(statSync(lock).ino).toBe(fresh?.ino ?? -1);
  expect(statSync(lock).mtimeMs).toBe(fresh?.mtimeMs ?? -1);
  expect(readFileSync(lock, "utf8")).toBe("");
  expect(readdirSync(dir)).toEqual(["audit.jsonl.lock"]);
});

test.skipIf(!smallTmpfsAvailable)(
  "release() on a full disk removes the lock, throws nothing and leaves no break marker behind",
  () => {
    // In a 32 KiB tmpfs of a throw-away namespace: take the lock, fill the disk to the last byte, release.
    const script = [
      `import { openSync, readdirSync, writeSync } from "node:fs";`,
      `import { tryAcquireLock } from ${JSON.stringify(join(REPO, "src/platform/lock-file.ts"))};`,
      `const dir = process.argv[2];`,
      `const held = tryAcquireLock(dir + "/audit.jsonl.lock");`,
      `const fd = openSync(dir + "/filler", "w");`,
      `let full = "";`,
      `try { for (;;) writeSync(fd, new Uint8Array(512)); } catch (error) { full = error.code; }`,
      `let thrown = "";`,
      `try { held.release(); } catch (error) { thrown = error.code ?? String(error); }`,
      `console.log(JSON.stringify({ full, thrown, files: readdirSync(dir).sort() }));`,
    ].join("\n");
    writeFileSync(join(dir, "full-disk.ts"), script);
    const mount = join(dir, "m");
    const result = spawnSync(
      "unshare",
      [
        "-rm",
        "sh",
        "-c",
        'mkdir "$1" && mount -t tmpfs -o size=32k tmpfs "$1" && "$0" "$2" "$1"',
        process.execPath,
        mount,
        join(dir, "full-disk.ts"),
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({ full: "ENOSPC", thrown: "", files: ["filler"] });
  },
);
