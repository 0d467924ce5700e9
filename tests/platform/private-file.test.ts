import { afterEach, beforeEach, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keepPrivate, openPrivateAppend } from "../../src/platform/private-file.ts";

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

test.if(posix)("openPrivateAppend() creates a missing file with mode 0600 and its folder with 0700", () => {
  const file = join(dir, "new", "audit.jsonl");
  const fd = openPrivateAppend(file);
  closeSync(fd);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(join(dir, "new")).mode & 0o777).toBe(0o700);
});

test.if(posix)("openPrivateAppend() appends to an existing file and narrows it to its owner", () => {
  const file = join(dir, "audit.jsonl");
  writeFileSync(file, "first\n");
  chmodSync(file, 0o644);
  const fd = openPrivateAppend(file);
  writeSync(fd, "second\n");
  closeSync(fd);
  expect(readFileSync(file, "utf8")).toBe("first\nsecond\n");
  expect(statSync(file).mode & 0o777).toBe(0o600);
});

test.if(posix)(
  "openPrivateAppend() refuses a FIFO that nobody reads at once (ENXIO), not by blocking",
  () => {
    const fifo = join(dir, "audit.jsonl");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expect(() => openPrivateAppend(fifo)).toThrow(expect.objectContaining({ code: "ENXIO" }));
  },
);

test.if(posix)(
  "openPrivateAppend() writes to a FIFO that is read, with writes that wait for the reader",
  async () => {
    const fifo = join(dir, "audit.jsonl");
    const out = join(dir, "read.txt");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const reader = Bun.spawn(["sh", "-c", 'cat "$1" > "$2"', "sh", fifo, out]);
    let fd: number | undefined;
    for (let tries = 0; fd === undefined && tries < 500; tries++) {
      try {
        fd = openPrivateAppend(fifo);
      } catch {
        await Bun.sleep(10); // cat has not opened its end yet
      }
    }
    if (fd === undefined) throw new Error("the FIFO never opened");
    // 1 MiB is 16 pipe buffers: a non-blocking descriptor would fail with EAGAIN or write part of it.
    const big = Buffer.alloc(1024 * 1024, 0x61);
    expect(writeSync(fd, big)).toBe(big.length);
    closeSync(fd);
    expect(await reader.exited).toBe(0);
    expect(statSync(out).size).toBe(big.length);
  },
);
