import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { backupPath, readConfigFile, writeConfigFile } from "../../src/init/write-config.ts";
import type { WriteChunk } from "../../src/platform/replace-file.ts";
import { initOnSmallTmpfs, manyServers, smallTmpfsAvailable } from "./small-tmpfs.ts";

const root = mkdtempSync(path.join(tmpdir(), "bouncer-write-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const NOW = new Date("2026-03-04T05:06:07.089Z");
let counter = 0;

/** A new config file with the given bytes and mode. */
function config(bytes: string | Uint8Array, mode = 0o600): string {
  const file = path.join(root, `c${counter++}.json`);
  writeFileSync(file, bytes);
  chmodSync(file, mode);
  return file;
}

describe("readConfigFile()", () => {
  test("readConfigFile() keeps the bytes, strips a byte-order mark from the text and reads the mode", async () => {
    const file = config("\uFEFF{}", 0o640);
    const read = await readConfigFile(file);
    expect(read).toMatchObject({ text: "{}", bom: true, mode: 0o640, realPath: file });
    expect(read.bytes.length).toBe(5);
  });

  test("readConfigFile() refuses a file that is not UTF-8", async () => {
    const file = config(new Uint8Array([0x7b, 0xff, 0x7d]));
    await expect(readConfigFile(file)).rejects.toThrow(
      `Cannot read client config "${file}": it is not UTF-8 text (line 1, column 2)`,
    );
  });

  test.skipIf(process.platform === "win32")(
    "readConfigFile() refuses a FIFO at once instead of waiting on it",
    async () => {
      const fifo = path.join(root, "fifo.json");
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
      await expect(readConfigFile(fifo)).rejects.toThrow(
        `Cannot read client config "${fifo}": it is not a regular file`,
      );
    },
  );

  test("readConfigFile() says in plain words why a file cannot be read", async () => {
    await expect(readConfigFile(root)).rejects.toThrow(
      `Cannot read client config "${root}": it is a folder, not a file (EISDIR)`,
    );
  });

  test("readConfigFile() says when the file does not exist", async () => {
    const missing = path.join(root, "missing.json");
    await expect(readConfigFile(missing)).rejects.toMatchObject({
      code: "CONFIG_NOT_FOUND",
      message: `Cannot read client config "${missing}": no such file`,
    });
  });

  test("readConfigFile() names the target of a dangling symbolic link", async () => {
    const link = path.join(root, "dangling.json");
    symlinkSync("gone/mcp.json", link);
    await expect(readConfigFile(link)).rejects.toMatchObject({
      code: "CONFIG_NOT_FOUND",
      message: `Cannot read client config "${link}": it is a symbolic link to "gone/mcp.json", which does not exist`,
    });
  });
});

describe("writeConfigFile()", () => {
  test("writeConfigFile() writes a timestamped backup with the original bytes and mode, then the new text", async () => {
    const file = config('{"a": 1}', 0o640);
    const read = await readConfigFile(file);
    const { backup } = await writeConfigFile(read, '{"a": 2}', { now: NOW });
    expect(backup).toBe(`${file}.bouncer-backup-20260304T050607089Z`);
    expect(readFileSync(backup, "utf8")).toBe('{"a": 1}');
    expect(statSync(backup).mode & 0o777).toBe(0o640);
    expect(readFileSync(file, "utf8")).toBe('{"a": 2}');
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(root).filter((name) => name.startsWith(path.basename(file)))).toHaveLength(2);
  });

  // `sudo bouncer init` on a user's config: the config keeps its owner, and so does its backup (it
  // was root's, mode 0600: the user could not read it).
  test.skipIf(process.platform === "win32" || process.getuid?.() !== 0)(
    "writeConfigFile() run as root gives the backup the config's owner, as the new config keeps it",
    async () => {
      const file = config('{"env": {"API_KEY": "k-123"}}', 0o600);
      const owner = { uid: 65534, gid: 65534 };
      chownSync(file, owner.uid, owner.gid);
      const { backup } = await writeConfigFile(await readConfigFile(file), "{}", { now: NOW });
      for (const written of [file, backup]) {
        expect(statSync(written)).toMatchObject(owner);
        expect(statSync(written).mode & 0o777).toBe(0o600);
      }
    },
  );

  test("writeConfigFile() never overwrites an earlier backup of the same instant", async () => {
    const file = config("1");
    const first = await writeConfigFile(await readConfigFile(file), "2", { now: NOW });
    const second = await writeConfigFile(await readConfigFile(file), "3", { now: NOW });
    expect(second.backup).toBe(`${backupPath(file, NOW)}-1`);
    expect(readFileSync(first.backup, "utf8")).toBe("1");
    expect(readFileSync(second.backup, "utf8")).toBe("2");
  });

  test("writeConfigFile() refuses, writing nothing, when the file changed since it was read", async () => {
    const file = config('{"a": 1}');
    const read = await readConfigFile(file);
    writeFileSync(file, '{"a": 1, "b": 2}');
    await expect(writeConfigFile(read, '{"a": 3}', { now: NOW })).rejects.toMatchObject({
      code: "CONFIG_CHANGED",
    });
    expect(readFileSync(file, "utf8")).toBe('{"a": 1, "b": 2}');
    expect(
      readdirSync(root).filter((name) => name.startsWith(`${path.basename(file)}.bouncer-backup`)),
    ).toEqual([]);
  });

  test("writeConfigFile() refuses, keeping the other write and no backup, when the file changes while the backup is written", async () => {
    const file = config('{"numStartups": 1}');
    const read = await readConfigFile(file);
    const afterBackup = async (): Promise<void> => writeFileSync(file, '{"numStartups": 999}');
    await expect(writeConfigFile(read, '{"wrapped": true}', { now: NOW, afterBackup })).rejects.toMatchObject(
      {
        code: "CONFIG_CHANGED",
      },
    );
    expect(readFileSync(file, "utf8")).toBe('{"numStartups": 999}');
    expect(
      readdirSync(root).filter((name) => name.startsWith(`${path.basename(file)}.bouncer-backup`)),
    ).toEqual([]);
  });

  // Root reads a file of mode 000 all the same.
  test.skipIf(process.platform === "win32" || process.getuid?.() === 0).each([
    ["before the backup", "before"],
    ["after the backup", "after"],
  ] as const)(
    "writeConfigFile() says permission denied, not changed, when the file cannot be read again %s",
    async (_when, when) => {
      const file = config('{"a": 1}');
      const read = await readConfigFile(file);
      const lock = (): void => chmodSync(file, 0o000);
      if (when === "before") lock();
      const afterBackup = async (): Promise<void> => lock();
      try {
        await expect(writeConfigFile(read, '{"a": 2}', { now: NOW, afterBackup })).rejects.toMatchObject({
          code: "CONFIG_UNREADABLE",
          message: `Cannot write "${file}": cannot read it again to check that it is unchanged: permission denied (EACCES)`,
        });
      } finally {
        chmodSync(file, 0o600);
      }
      expect(readFileSync(file, "utf8")).toBe('{"a": 1}');
      expect(
        readdirSync(root).filter((name) => name.startsWith(`${path.basename(file)}.bouncer-backup`)),
      ).toEqual([]);
    },
  );

  test("writeConfigFile() refuses, keeping the client's save and leaving no temp file or backup, when the file is saved while the temp file is written", async () => {
    const file = config('{"numStartups": 5}');
    const read = await readConfigFile(file);
    let saved = false;
    // The client saves (temp file and rename, as editors and Claude Code do) while Bouncer's temp
    // file is being written: the moment the review's racer found, 13-30 ms for a 7 MB config.
    const write: WriteChunk = async (handle, chunk) => {
      const temp = readdirSync(root).some((name) => name.startsWith(`${path.basename(file)}.bouncer-tmp-`));
      if (temp && !saved) {
        writeFileSync(`${file}.client`, '{"numStartups": 6}');
        renameSync(`${file}.client`, file);
        saved = true;
      }
      return (await handle.write(chunk.buffer, chunk.offset, chunk.length, chunk.position)).bytesWritten;
    };
    await expect(writeConfigFile(read, '{"wrapped": true}', { now: NOW, write })).rejects.toMatchObject({
      code: "CONFIG_CHANGED",
      message: `Cannot write "${file}": it changed since it was read: run bouncer init again`,
    });
    expect(saved).toBe(true);
    expect(readFileSync(file, "utf8")).toBe('{"numStartups": 6}');
    expect(readdirSync(root).filter((name) => name.startsWith(`${path.basename(file)}.`))).toEqual([]);
  });

  test("writeConfigFile() writes through a symlink to its target and keeps the link", async () => {
    const target = config("old");
    const link = path.join(root, "link.json");
    symlinkSync(target, link);
    const { backup } = await writeConfigFile(await readConfigFile(link), "new", { now: NOW });
    expect(readFileSync(target, "utf8")).toBe("new");
    expect(readFileSync(link, "utf8")).toBe("new");
    expect(backup.startsWith(target)).toBe(true);
  });

  test("writeConfigFile() puts the byte-order mark back", async () => {
    const file = config("\uFEFF{}");
    await writeConfigFile(await readConfigFile(file), '{"x": 1}', { now: NOW });
    expect(readFileSync(file, "utf8")).toBe('\uFEFF{"x": 1}');
  });
});

describe("writeConfigFile() when the disk fills up", () => {
  /** The names beside `file` that start with its name (backups, temp files). */
  const leftovers = (file: string): string[] =>
    readdirSync(root).filter((name) => name.startsWith(`${path.basename(file)}.`));

  test("writeConfigFile() goes on writing after a short write and writes the whole text", async () => {
    const file = config('{"a": 1}');
    const text = `{"a": "${"x".repeat(5000)}"}`;
    // At most 700 bytes per call, as a file system near its limit (or Bun's writeSync) returns.
    const write: WriteChunk = async (handle, chunk) =>
      (await handle.write(chunk.buffer, chunk.offset, Math.min(chunk.length, 700), chunk.position))
        .bytesWritten;
    await writeConfigFile(await readConfigFile(file), text, { now: NOW, write });
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  test.each([
    ["fails with ENOSPC after a short write", "no space left on the device (ENOSPC)"],
    ["takes no bytes at all", "the file system took only 4096 of 10009 bytes"],
  ])(
    "writeConfigFile() leaves the file, and no temp file or backup, when a write %s",
    async (how, reason) => {
      const file = config('{"a": 1}', 0o640);
      // The backup (8 bytes) is written; the new text gets 4096 bytes, then the disk is full.
      const write: WriteChunk = async (handle, chunk) => {
        if (chunk.buffer.length < 100 || chunk.offset === 0)
          return (
            await handle.write(chunk.buffer, chunk.offset, Math.min(chunk.length, 4096), chunk.position)
          ).bytesWritten;
        if (how.startsWith("fails"))
          throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
            code: "ENOSPC",
            syscall: "write",
          });
        return 0;
      };
      const read = await readConfigFile(file);
      const text = `{"a": "${"x".repeat(10_000)}"}`;
      await expect(writeConfigFile(read, text, { now: NOW, write })).rejects.toMatchObject({
        code: "CONFIG_UNWRITABLE",
        message: `Cannot write "${file}": ${reason}`,
      });
      expect(readFileSync(file, "utf8")).toBe('{"a": 1}');
      expect(statSync(file).mode & 0o777).toBe(0o640);
      expect(leftovers(file)).toEqual([]);
    },
  );

  test.skipIf(!smallTmpfsAvailable)(
    "bouncer init on a full tmpfs exits 1 naming the file, and leaves the config whole with no temp file",
    () => {
      // 60 servers (about 6 KiB) fit twice in 32 KiB (config and backup); the wrapped text does not.
      const original = manyServers(60);
      const run = initOnSmallTmpfs(original, ["--yes"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('c.json": no space left on the device (ENOSPC)');
      expect(run.stderr).not.toContain("Wrote");
      expect(run.intact).toBe(true);
      expect(run.files).toEqual(["c.json"]);
    },
  );
});

describe("writeConfigFile() with another run on the same file", () => {
  test("writeConfigFile() refuses, writing nothing, while another run holds the file between its last look and its rename", async () => {
    const file = config('{"a": 0}');
    const first = await readConfigFile(file);
    const second = await readConfigFile(file);
    let refusal: unknown;
    const beforeReplace = async (): Promise<void> => {
      refusal = await writeConfigFile(second, '{"a": 2}', { now: NOW, lockWaitMs: 0 }).catch((e) => e);
    };
    await writeConfigFile(first, '{"a": 1}', { now: NOW, beforeReplace });
    expect(refusal).toMatchObject({
      code: "CONFIG_LOCKED",
      message: expect.stringContaining(
        `another bouncer init is writing it (lock file "${file}.bouncer-lock")`,
      ),
    });
    expect(readFileSync(file, "utf8")).toBe('{"a": 1}');
    expect(existsSync(`${file}.bouncer-lock`)).toBe(false);
  });

  test("writeConfigFile() waits for the other run's lock, then refuses because the file changed", async () => {
    const file = config('{"a": 0}');
    const first = await readConfigFile(file);
    const second = await readConfigFile(file);
    let waiting: Promise<unknown> = Promise.resolve();
    const beforeReplace = async (): Promise<void> => {
      waiting = writeConfigFile(second, '{"a": 2}', { now: NOW }).catch((e) => e);
    };
    await writeConfigFile(first, '{"a": 1}', { now: NOW, beforeReplace });
    expect(await waiting).toMatchObject({ code: "CONFIG_CHANGED" });
    expect(readFileSync(file, "utf8")).toBe('{"a": 1}');
    expect(backups(file)).toHaveLength(1);
  });

  test("writeConfigFile() waits out a lock a slow run holds for a minute, and takes over one a crashed run left (older than 2 minutes)", async () => {
    const file = config('{"a": 0}');
    const lock = `${file}.bouncer-lock`;
    writeFileSync(lock, "4242 deadbeef\n");
    const minute = new Date(Date.now() - 60_000);
    utimesSync(lock, minute, minute);
    const held = writeConfigFile(await readConfigFile(file), '{"a": 1}', { now: NOW, lockWaitMs: 0 });
    await expect(held).rejects.toMatchObject({ code: "CONFIG_LOCKED" });
    expect(readFileSync(file, "utf8")).toBe('{"a": 0}');
    const old = new Date(Date.now() - 180_000);
    utimesSync(lock, old, old);
    await writeConfigFile(await readConfigFile(file), '{"a": 1}', { now: NOW, lockWaitMs: 0 });
    expect(readFileSync(file, "utf8")).toBe('{"a": 1}');
    expect(existsSync(lock)).toBe(false);
  });
});

/** The backups beside a file. */
function backups(file: string): string[] {
  return readdirSync(root).filter((name) => name.startsWith(`${path.basename(file)}.bouncer-backup`));
}

describe("writeConfigFile() when the backup cannot be written", () => {
  test("writeConfigFile() names the backup that failed and removes what it wrote of it", async () => {
    const file = config('{"a": 1}');
    const read = await readConfigFile(file);
    // The backup (the 8 bytes read) gets 3 of them, then the disk is full.
    const write: WriteChunk = async (handle, chunk) => {
      if (chunk.buffer.length === 8 && chunk.offset > 0)
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
          code: "ENOSPC",
          syscall: "write",
        });
      return (await handle.write(chunk.buffer, chunk.offset, Math.min(chunk.length, 3), chunk.position))
        .bytesWritten;
    };
    await expect(writeConfigFile(read, '{"a": 2}', { now: NOW, write })).rejects.toMatchObject({
      code: "CONFIG_UNWRITABLE",
      message: `Cannot write "${file}": cannot write its backup "${backupPath(file, NOW)}": no space left on the device (ENOSPC)`,
    });
    expect(readFileSync(file, "utf8")).toBe('{"a": 1}');
    expect(backups(file)).toEqual([]);
  });

  test("writeConfigFile() backs up and replaces a read-only (0444) config, both keeping its mode", async () => {
    const file = config('{"a": 1}', 0o444);
    const { backup } = await writeConfigFile(await readConfigFile(file), '{"a": 2}', { now: NOW });
    expect(readFileSync(file, "utf8")).toBe('{"a": 2}');
    expect(readFileSync(backup, "utf8")).toBe('{"a": 1}');
    expect(statSync(file).mode & 0o777).toBe(0o444);
    expect(statSync(backup).mode & 0o777).toBe(0o444);
    expect(backups(file)).toHaveLength(1);
  });

  test.skipIf(!smallTmpfsAvailable)(
    "bouncer init on a tmpfs too full for the backup exits 1 naming the backup, and leaves only the config",
    () => {
      // 170 servers (about 16 KiB) fit once in 32 KiB, not twice.
      const run = initOnSmallTmpfs(manyServers(170), ["--yes"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /cannot write its backup ".*c\.json\.bouncer-backup-\w+": no space left on the device \(ENOSPC\)/,
      );
      expect(run.intact).toBe(true);
      expect(run.files).toEqual(["c.json"]);
    },
  );
});
