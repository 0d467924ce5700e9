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
import { keepPrivate, openPrivateAppend, syncWhereSupported } from "../../src/platform/private-file.ts";

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
  "openPrivateAppend() refuses a FIFO that is read too (its writes would stall once the reader stops)",
  async () => {
    const fifo = join(dir, "audit.jsonl");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const reader = Bun.spawn(["sh", "-c", 'cat "$1" > /dev/null', "sh", fifo]);
    try {
      let message = "";
      for (let tries = 0; tries < 500; tries++) {
        try {
          closeSync(openPrivateAppend(fifo));
          message = "opened";
          break;
        } catch (error) {
          message = String(error);
          if ((error as { code?: string }).code !== "ENXIO") break;
          await Bun.sleep(10); // cat has not opened its end yet
        }
      }
      expect(message).toContain("it is a FIFO, not a file");
    } finally {
      reader.kill();
    }
  },
);

test.if(posix)("syncWhereSupported() passes over a device that cannot be synced (/dev/null)", () => {
  const fd = openPrivateAppend("/dev/null");
  try {
    expect(() => syncWhereSupported(fd)).not.toThrow();
  } finally {
    closeSync(fd);
  }
});
