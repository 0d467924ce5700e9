import { afterEach, beforeEach, expect, test } from "bun:test";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  removeStaleTemps,
  replaceFile,
  STALE_TEMP_MS,
  type WriteChunk,
  writeNewFile,
  writeWhole,
} from "../../src/platform/replace-file.ts";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bouncer-replace-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

test("replaceFile() replaces the file with the new bytes and the mode given", async () => {
  const file = join(dir, "c.json");
  writeFileSync(file, "old");
  await replaceFile(file, bytes("new content"), { mode: 0o640 });
  expect(readFileSync(file, "utf8")).toBe("new content");
  expect(statSync(file).mode & 0o777).toBe(0o640);
  expect(readdirSync(dir)).toEqual(["c.json"]);
});

test("replaceFile() removes its temp file when the rename fails", async () => {
  const target = join(dir, "folder");
  mkdirSync(join(target, "inside"), { recursive: true });
  await expect(replaceFile(target, bytes("x"), { mode: 0o600 })).rejects.toBeInstanceOf(Error);
  expect(readdirSync(dir)).toEqual(["folder"]);
  expect(readdirSync(target)).toEqual(["inside"]);
});

test("replaceFile() runs beforeRename once the temp file is whole, and a throw there leaves the target and no temp file", async () => {
  const file = join(dir, "c.json");
  writeFileSync(file, "old");
  let temp: string[] = [];
  const beforeRename = async (): Promise<void> => {
    temp = readdirSync(dir)
      .filter((name) => name.startsWith("c.json.bouncer-tmp-"))
      .map((name) => readFileSync(join(dir, name), "utf8"));
    throw new Error("changed meanwhile");
  };
  await expect(replaceFile(file, bytes("new content"), { mode: 0o600, beforeRename })).rejects.toThrow(
    "changed meanwhile",
  );
  expect(temp).toEqual(["new content"]);
  expect(readFileSync(file, "utf8")).toBe("old");
  expect(readdirSync(dir)).toEqual(["c.json"]);
});

test("replaceFile() continues after short writes until the last byte is written", async () => {
  const file = join(dir, "c.json");
  writeFileSync(file, "old");
  const calls: number[] = [];
  // One byte per call, as a nearly full disk may take them.
  const write: WriteChunk = async (handle, chunk) => {
    calls.push(chunk.offset);
    return (await handle.write(chunk.buffer, chunk.offset, 1, chunk.position)).bytesWritten;
  };
  await replaceFile(file, bytes("abcdef"), { mode: 0o600, write });
  expect(readFileSync(file, "utf8")).toBe("abcdef");
  expect(calls).toEqual([0, 1, 2, 3, 4, 5]);
  expect(readdirSync(dir)).toEqual(["c.json"]);
});

test("writeWhole() refuses a write that claims more bytes than it was given", async () => {
  const handle = await open(join(dir, "f"), "w");
  const write: WriteChunk = async (_handle, chunk) => chunk.length + 1;
  try {
    await expect(writeWhole(handle, bytes("abc"), write)).rejects.toMatchObject({ code: "ESHORTWRITE" });
  } finally {
    await handle.close();
  }
});

test("writeNewFile() never writes over an existing file", async () => {
  const file = join(dir, "backup");
  writeFileSync(file, "earlier");
  await expect(writeNewFile(file, bytes("later"), { mode: 0o600 })).rejects.toMatchObject({ code: "EEXIST" });
  expect(readFileSync(file, "utf8")).toBe("earlier");
});

test("writeNewFile() removes the file it could not write in full", async () => {
  const file = join(dir, "backup");
  const write: WriteChunk = async (handle, chunk) =>
    chunk.offset === 0 ? (await handle.write(chunk.buffer, 0, 1, 0)).bytesWritten : 0;
  await expect(writeNewFile(file, bytes("abc"), { mode: 0o444, write })).rejects.toMatchObject({
    code: "ESHORTWRITE",
  });
  expect(readdirSync(dir)).toEqual([]);
});

test("replaceFile() removes the temp files a killed write of the same file left an hour ago or more, and nothing else", async () => {
  const file = join(dir, "c.json");
  writeFileSync(file, "old");
  const old = (name: string): void => {
    writeFileSync(join(dir, name), "left");
    const then = (Date.now() - STALE_TEMP_MS - 60_000) / 1000;
    utimesSync(join(dir, name), then, then);
  };
  old("c.json.bouncer-tmp-0123456789ab");
  old("c.json.bouncer-tmp-notours");
  old("d.json.bouncer-tmp-0123456789ab");
  old("c.json.bouncer-tmp-0123456789abc");
  writeFileSync(join(dir, "c.json.bouncer-tmp-ba9876543210"), "in progress");
  await replaceFile(file, bytes("new"), { mode: 0o600 });
  expect(readdirSync(dir).sort()).toEqual([
    "c.json",
    "c.json.bouncer-tmp-0123456789abc",
    "c.json.bouncer-tmp-ba9876543210",
    "c.json.bouncer-tmp-notours",
    "d.json.bouncer-tmp-0123456789ab",
  ]);
});

test("removeStaleTemps() goes by the clock it is given, and removes nothing in a folder that is gone", async () => {
  const file = join(dir, "p.json");
  writeFileSync(`${file}.bouncer-tmp-00000000000f`, "x");
  expect(await removeStaleTemps(file, { now: Date.now() })).toBe(0);
  expect(await removeStaleTemps(file, { now: Date.now() + STALE_TEMP_MS + 1000 })).toBe(1);
  expect(readdirSync(dir)).toEqual([]);
  expect(await removeStaleTemps(join(dir, "missing", "p.json"), { now: Date.now() })).toBe(0);
});
