import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionRecorder } from "../../src/audit/session-recorder.ts";
import { ensureParentDir } from "../../src/platform/parent-dir.ts";

describe("ensureParentDir()", () => {
  test("ensureParentDir() creates the missing folders of a file with mode 0700", () => {
    const root = mkdtempSync(join(tmpdir(), "bouncer-parent-dir-"));
    ensureParentDir(join(root, "a", "b", "log.jsonl"));
    expect(statSync(join(root, "a", "b")).isDirectory()).toBe(true);
    if (process.platform !== "win32") expect(statSync(join(root, "a")).mode & 0o777).toBe(0o700);
  });

  test("ensureParentDir() leaves an existing folder as it is", () => {
    const root = mkdtempSync(join(tmpdir(), "bouncer-parent-dir-"));
    mkdirSync(join(root, "kept"), { mode: 0o755 });
    ensureParentDir(join(root, "kept", "log.jsonl"));
    if (process.platform !== "win32") expect(statSync(join(root, "kept")).mode & 0o777).toBe(0o755);
  });

  test("ensureParentDir() names the file standing where a folder must be (not EEXIST)", () => {
    const root = mkdtempSync(join(tmpdir(), "bouncer-parent-dir-"));
    writeFileSync(join(root, "plain"), "");
    for (const path of [join(root, "plain", "log.jsonl"), join(root, "plain", "deeper", "log.jsonl")]) {
      let thrown: unknown;
      try {
        ensureParentDir(path);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect((thrown as Error).message).toBe(`"${join(root, "plain")}" is not a folder`);
      expect((thrown as { code?: string }).code).toBe("ENOTDIR");
    }
  });

  test.skipIf(process.platform === "win32")(
    "ensureParentDir() names a dangling link standing where a folder must be, and follows a link to a folder",
    () => {
      const root = mkdtempSync(join(tmpdir(), "bouncer-parent-dir-"));
      symlinkSync(join(root, "nowhere"), join(root, "dangling"));
      expect(() => ensureParentDir(join(root, "dangling", "log.jsonl"))).toThrow(
        `"${join(root, "dangling")}" is not a folder`,
      );
      mkdirSync(join(root, "real"));
      symlinkSync(join(root, "real"), join(root, "linked"));
      ensureParentDir(join(root, "linked", "deeper", "log.jsonl"));
      expect(statSync(join(root, "real", "deeper")).isDirectory()).toBe(true);
    },
  );

  test("createSessionRecorder() under a file says which component is not a folder", () => {
    const root = mkdtempSync(join(tmpdir(), "bouncer-parent-dir-"));
    writeFileSync(join(root, "plain"), "");
    const path = join(root, "plain", "session.jsonl");
    expect(() => createSessionRecorder(path)).toThrow(
      `Cannot write session file "${path}": "${join(root, "plain")}" is not a folder`,
    );
  });
});
