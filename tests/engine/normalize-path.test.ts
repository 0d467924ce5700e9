import { describe, expect, test } from "bun:test";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
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
    ["decodes percent-encoded dots before collapsing", "file:///work/out/%2e%2e/%2E%2E/etc", "/etc"],
    ["accepts file:/ with one slash", "file:/tmp/x", "/tmp/x"],
    [
      "refuses file: without a slash (a URL from the root, a path from the cwd)",
      "file:etc/passwd",
      undefined,
    ],
    ["refuses file:./ (a URL from the root, a path from the cwd)", "file:./etc/passwd", undefined],
    ["refuses an encoded slash (URL parsers keep one segment)", "file:///work/out/..%2F..%2Fetc", undefined],
    ["refuses an empty segment before .. (URL parsers count it)", "file:///srv/data//../x", undefined],
    ["refuses a backslash (URL parsers read it as /)", "file:/\\evil/x", undefined],
    ["refuses a tab (URL parsers drop it)", "file:///srv/data/.\t./x", undefined],
    ["refuses outer spaces (URL parsers strip them)", " file:///etc/x", undefined],
    ["refuses a trailing space (URL parsers strip it)", "file:///srv/data/.. ", undefined],
    ["refuses a drive segment on POSIX (URL parsers keep it through ..)", "file:///C:/../etc", undefined],
    ["refuses a host with a port", "file://localhost:80/x", undefined],
    ["refuses a file URI naming another host", "file://evil.example/x", undefined],
    ["refuses an invalid percent-encoding", "file:///%E0%A4%A", undefined],
    ["refuses a NUL character", "out/a\0b", undefined],
    ["refuses a decoded NUL character", "file:///out/a%00b", undefined],
    ["keeps backslashes as ordinary characters", "a\\b", "/work/a\\b"],
    ["keeps Windows device names as ordinary names", "/work/NUL/con.txt", "/work/NUL/con.txt"],
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
    ["refuses a drive written C| (URL parsers read C:)", "file:///C|/x", undefined],
    ["refuses an encoded C| drive", "file:///C%7C/x", undefined],
    ["refuses a drive as the host (URL parsers read it as the drive)", "file://C:/x", undefined],
    ["refuses a drive after a . (URL parsers take it as the drive)", "file:///./C:/x", undefined],
    [
      "refuses a .. that leaves the host's share (URL parsers go to another share)",
      "file://srv/share/../other/x",
      undefined,
    ],
    ["refuses an encoded backslash", "file:///C:/a%5C..%5Cb", undefined],
    ["keeps .. inside the host's share", "file://srv/share/a/../x", "\\\\srv\\share\\x"],
    ["reads file:/ with a drive", "file:/C:/a/../x", "C:\\x"],
    ["expands ~\\ to the home directory", "~\\notes", "C:\\Users\\u\\notes"],
    ["refuses a device name (NUL)", "C:\\work\\NUL", undefined],
    ["refuses a device name with an extension", "nul.txt", undefined],
    ["refuses a device name in a folder's place", "C:\\work\\aux\\x", undefined],
    ["refuses COM1 with an extension", "C:\\work\\COM1.txt", undefined],
    ["refuses a device name with trailing spaces", "C:\\work\\LPT9 .log", undefined],
    ["refuses a device name with a stream", "C:\\work\\con:x", undefined],
    ["refuses COM with a superscript digit", "C:\\work\\COM\u00B9", undefined],
    ["refuses the console names", "C:\\work\\CONOUT$", undefined],
    [
      "keeps names that only start like a device",
      "C:\\work\\console\\COM10\\null.txt",
      "C:\\work\\console\\COM10\\null.txt",
    ],
  ])("normalizePath() %s", (_rule, value, expected) => {
    expect(normalizePath(value, win)).toBe(expected);
  });
});

describe("normalizePath() on file: URIs against a WHATWG URL reader", () => {
  const starts = [
    "/",
    "//",
    "///",
    "////",
    "//localhost/",
    "//srv/",
    "//srv:1/",
    "",
    "///C:/",
    "///c|/",
    "/C:/",
  ];
  const segments = ["a", "etc", "..", ".", "%2e%2e", "%2E", ".%2e", "", "C:", "C|", "c:..", "C:a", "a:b"];
  const more = ["x y", "%20", "a%2Fb", "%5C", "?q", "#f", "\u017F", "%C3%A9", "...", "\\", " ", "\t"];
  const uri = fc
    .tuple(fc.constantFrom(...starts), fc.array(fc.constantFrom(...segments, ...more), { maxLength: 6 }))
    .map(([start, parts]) => `file:${start}${parts.join("/")}`);

  test.each<[string, PathContext, typeof path.posix]>([
    ["POSIX", posix, path.posix],
    ["Windows", { ...win, cwd: "D:\\work" }, path.win32],
  ])(
    "normalizePath() on %s reads a file: URI as fileURLToPath(new URL(…)) does, or refuses it (property)",
    (_os, ctx, flavour) => {
      fc.assert(
        fc.property(uri, (value) => {
          const ours = normalizePath(value, ctx);
          if (ours === undefined) return true;
          let theirs: string;
          try {
            theirs = fileURLToPath(new URL(value), { windows: ctx.platform === "win32" });
          } catch {
            return true; // a reader that throws opens nothing
          }
          const trim = (p: string): string => p.replace(/(?<=.)[\\/]$/, "");
          return trim(flavour.resolve(ctx.cwd, theirs)) === trim(ours);
        }),
        { numRuns: 20000 },
      );
    },
  );
});
