import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  breakMarkerPath,
  readLockSnapshot,
  removeStaleLock,
  sameLock,
} from "../../src/platform/stale-lock.ts";

let dir = "";
let lock = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bouncer-stale-lock-"));
  lock = join(dir, "c.json.bouncer-lock");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Sets a file's modification time to `ageMs` ago. */
function age(path: string, ageMs: number): void {
  const when = (Date.now() - ageMs) / 1000;
  utimesSync(path, when, when);
}

/** Options of a removal by this test's process, 10 s stale age. */
const removal = { own: "1 feed host", now: Date.now, staleMs: 10_000 } as const;

test("readLockSnapshot() reads a lock's identity, age and token from one file, and undefined when none is there", () => {
  writeFileSync(lock, "42 abc host\n");
  const seen = readLockSnapshot(lock);
  expect(seen?.token).toBe("42 abc host\n");
  expect(seen === undefined ? false : sameLock(seen, readLockSnapshot(lock) ?? seen)).toBe(true);
  expect(readLockSnapshot(join(dir, "none"))).toBeUndefined();
});

test("sameLock() tells apart a lock replaced by one of the same content", () => {
  writeFileSync(lock, "");
  age(lock, 60_000);
  const stale = readLockSnapshot(lock);
  rmSync(lock);
  writeFileSync(lock, "");
  const fresh = readLockSnapshot(lock);
  expect(stale !== undefined && fresh !== undefined && sameLock(stale, fresh)).toBe(false);
});

test("removeStaleLock() removes the stale lock and leaves no marker or moved file", () => {
  writeFileSync(lock, "999999 dead\n");
  age(lock, 60_000);
  const stale = readLockSnapshot(lock);
  if (stale === undefined) throw new Error("no lock");
  expect(removeStaleLock(lock, { ...removal, stale })).toBe(true);
  expect(readdirSync(dir)).toEqual([]);
});

test("removeStaleLock() waits while another process's break marker of that lock is fresh", () => {
  writeFileSync(lock, "999999 dead\n");
  age(lock, 60_000);
  const stale = readLockSnapshot(lock);
  if (stale === undefined) throw new Error("no lock");
  const marker = breakMarkerPath(lock, stale);
  writeFileSync(marker, "2 other host\n");
  expect(removeStaleLock(lock, { ...removal, stale })).toBe(false);
  expect(readFileSync(lock, "utf8")).toBe("999999 dead\n");
  expect(readFileSync(marker, "utf8")).toBe("2 other host\n");
});

test("removeStaleLock() removes a break marker older than the stale age (its process died), then the lock", () => {
  writeFileSync(lock, "999999 dead\n");
  age(lock, 60_000);
  const stale = readLockSnapshot(lock);
  if (stale === undefined) throw new Error("no lock");
  const marker = breakMarkerPath(lock, stale);
  writeFileSync(marker, "2 dead host\n");
  age(marker, 11_000);
  expect(removeStaleLock(lock, { ...removal, stale })).toBe(false);
  expect(readdirSync(dir)).toEqual(["c.json.bouncer-lock"]);
  expect(removeStaleLock(lock, { ...removal, stale })).toBe(true);
  expect(readdirSync(dir)).toEqual([]);
});

test("removeStaleLock() leaves in place a lock that is no longer the one judged stale", () => {
  writeFileSync(lock, "999999 dead\n");
  age(lock, 60_000);
  const stale = readLockSnapshot(lock);
  if (stale === undefined) throw new Error("no lock");
  rmSync(lock);
  writeFileSync(lock, "999999 dead\n");
  expect(removeStaleLock(lock, { ...removal, stale })).toBe(false);
  expect(readdirSync(dir)).toEqual(["c.json.bouncer-lock"]);
});
