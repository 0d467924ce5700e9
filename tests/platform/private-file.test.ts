import { afterEach, beforeEach, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keepPrivate } from "../../src/platform/private-file.ts";

const posix = process.platform !== "win32";
let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bouncer-private-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

test.if(posix)("keepPrivate() narrows a regular file that others may read to its owner", () => {
  const file = join(dir, "log.jsonl");
  writeFileSync(file, "");
  chmodSync(file, 0o644);
  const fd = openSync(file, "a");
  expect(keepPrivate(fd)).toBe(true);
  closeSync(fd);
  expect(statSync(file).mode & 0o777).toBe(0o600);
});

test.if(posix)(
  "keepPrivate() leaves anything but a regular file alone (a FIFO, as a device would be)",
  () => {
    const fifo = join(dir, "pipe");
    expect(spawnSync("mkfifo", ["-m", "0644", fifo]).status).toBe(0);
    // O_RDWR opens a FIFO without waiting for the other end (Linux, macOS).
    const fd = openSync(fifo, constants.O_RDWR);
    expect(keepPrivate(fd)).toBe(false);
    closeSync(fd);
    expect(statSync(fifo).mode & 0o777).toBe(0o644);
  },
);
