import { describe, expect, test } from "bun:test";
import { normalizePath, type PathContext } from "../../src/engine/index.ts";

const posix: PathContext = { cwd: "/work", home: "/home/u", platform: "posix" };
const win: PathContext = { cwd: "C:\\work", home: "C:\\Users\\u", platform: "win32" };

describe("normalizePath() on POSIX", () => {
  test.each<[string, string, string | undefined]>([
    ["resolves relative values against the working directory", "out/x", "/work/out/x"],
    ["collapses . and ..", "./out/../out/./x", "/work/out/x"],
    ["stops .. at the root", "/a/../../../b", "/b"],
    ["expands ~ to the home directory", "~/notes/a", "/home/u/notes/a"],
    ["expands a bare ~", "~", "/home/u"],
    ["refuses the ~user form", "~root/.ssh", undefined],
    ["decodes file:// URIs", "file:///tmp/a%20b", "/tmp/a b"],
    ["accepts file://localhost", "file://localhost/tmp/x", "/tmp/x"],
    ["decodes encoded slashes before collapsing", "file:///work/out/..%2F..%2Fetc", "/etc"],
    ["refuses a file URI naming another host", "file://evil.example/x", undefined],
    ["refuses an invalid percent-encoding", "file:///%E0%A4%A", undefined],
    ["refuses a NUL character", "out/a\0b", undefined],
    ["refuses a decoded NUL character", "file:///out/a%00b", undefined],
    ["keeps backslashes as ordinary characters", "a\\b", "/work/a\\b"],
  ])("normalizePath() %s", (_rule, value, expected) => {
    expect(normalizePath(value, posix)).toBe(expected);
  });

  test("normalizePath() refuses relative values when the working directory is not absolute", () => {
    expect(normalizePath("x", { ...posix, cwd: "work" })).toBeUndefined();
  });
});

describe("normalizePath() on Windows", () => {
  test.each<[string, string, string | undefined]>([
    ["normalises forward slashes and the drive letter", "c:/Users/u/out/x", "C:\\Users\\u\\out\\x"],
    ["resolves relative values against the working directory", "out\\x", "C:\\work\\out\\x"],
    ["resolves root-relative values on the working drive", "\\x", "C:\\x"],
    ["resolves drive-relative values on the working drive", "c:x", "C:\\work\\x"],
    ["refuses drive-relative values on another drive", "D:x", undefined],
    [
      "collapses .. in UNC paths without leaving the share",
      "\\\\srv\\share\\a\\..\\..\\b",
      "\\\\srv\\share\\b",
    ],
    ["strips the \\\\?\\ prefix", "\\\\?\\C:\\x\\y", "C:\\x\\y"],
    ["strips the \\\\?\\UNC\\ prefix", "\\\\?\\UNC\\srv\\share\\x", "\\\\srv\\share\\x"],
    ["refuses a \\\\?\\ path with ..", "\\\\?\\C:\\x\\..\\y", undefined],
    ["refuses a \\\\?\\ path with .. at its root", "\\\\?\\C:\\..\\UNC\\attacker\\share\\x", undefined],
    ["refuses a \\\\?\\ path with .", "\\\\?\\C:\\x\\.\\y", undefined],
    ["refuses a //?/ path with ..", "//?/C:/../D:/secret.txt", undefined],
    ["refuses a \\\\?\\UNC\\ path with ..", "\\\\?\\UNC\\srv\\share\\..\\..\\x", undefined],
    ["keeps names that only start with dots in a \\\\?\\ path", "\\\\?\\C:\\x\\...\\..y", "C:\\x\\...\\..y"],
    ["refuses device paths", "\\\\.\\PhysicalDrive0", undefined],
    ["refuses \\\\?\\ forms it cannot place", "\\\\?\\GLOBALROOT\\Device\\x", undefined],
    ["decodes file:// URIs with a drive", "file:///C:/a%20b", "C:\\a b"],
    ["maps a file URI with a host to UNC", "file://srv/share/x", "\\\\srv\\share\\x"],
    ["expands ~\\ to the home directory", "~\\notes", "C:\\Users\\u\\notes"],
  ])("normalizePath() %s", (_rule, value, expected) => {
    expect(normalizePath(value, win)).toBe(expected);
  });
});
