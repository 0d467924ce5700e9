import { describe, expect, test } from "bun:test";
import type { PathContext } from "../../src/engine/index.ts";
import { checkProtectedPaths } from "../../src/engine/protected-paths.ts";

const guarded: PathContext = {
  cwd: "/home/u/proj",
  home: "/home/u",
  platform: "posix",
  protectedPaths: ["/home/u/.bouncer", "/home/u/proj/bouncer.yaml"],
};

describe("checkProtectedPaths()", () => {
  test.each<[string, string, "clear" | "protected" | "invalid"]>([
    ["finds a pin file inside Bouncer's home", "/home/u/.bouncer/pins/abc.json", "protected"],
    ["finds Bouncer's home itself", "/home/u/.bouncer", "protected"],
    ["finds a folder that holds Bouncer's home (moving it moves the pins)", "/home/u", "protected"],
    ["finds the root, which holds every protected path", "/", "protected"],
    ["finds a protected policy file", "/home/u/proj/bouncer.yaml", "protected"],
    ["finds a relative value resolved against the working directory", "bouncer.yaml", "protected"],
    ["finds a value that reaches the home through ..", "/home/u/proj/../.bouncer/audit.jsonl", "protected"],
    ["finds a value that reaches the home through ~", "~/.bouncer/pins/abc.json", "protected"],
    ["finds a file: URI of a pin file", "file:///home/u/.bouncer/pins/abc.json", "protected"],
    ["leaves a file beside the home alone", "/home/u/.bouncerx/a.json", "clear"],
    ["leaves a file of the project alone", "/home/u/proj/notes/a.txt", "clear"],
    ["leaves a sibling of a protected file alone", "/home/u/proj/bouncer.yaml.bak", "clear"],
    ["refuses a value it cannot resolve", "/home/u/\u0000x", "invalid"],
  ])("checkProtectedPaths() %s", (_what, value, kind) => {
    expect(checkProtectedPaths(value, guarded).kind).toBe(kind);
  });

  test("checkProtectedPaths() is clear for every value when nothing is protected", () => {
    const open: PathContext = { cwd: "/w", home: "/home/u", platform: "posix" };
    expect(checkProtectedPaths("/home/u/.bouncer/pins/abc.json", open).kind).toBe("clear");
  });

  test("checkProtectedPaths() finds a link that leads into Bouncer's home (a resolver step)", () => {
    const resolve = (p: string): readonly string[] =>
      p === "/home/u/proj/link/x.json" ? ["/home/u/.bouncer/pins/x.json"] : [p];
    const check = checkProtectedPaths("/home/u/proj/link/x.json", { ...guarded, resolve });
    expect(check).toEqual({
      kind: "protected",
      step: "/home/u/.bouncer/pins/x.json",
      reached: "/home/u/.bouncer",
    });
  });

  test("checkProtectedPaths() protects what a protected path resolves to (a home that is a link)", () => {
    const resolve = (p: string): readonly string[] => (p === "/home/u/.bouncer" ? ["/data/bouncer"] : [p]);
    const check = checkProtectedPaths("/data/bouncer/pins/x.json", { ...guarded, resolve });
    expect(check.kind).toBe("protected");
  });

  test("checkProtectedPaths() resolves a relative value against every other base, naming the one that reaches", () => {
    const ctx: PathContext = {
      ...guarded,
      cwd: "/srv",
      relativeBases: [{ dir: "/home/u", from: "command_line" }],
    };
    const check = checkProtectedPaths(".bouncer/pins/x.json", ctx);
    expect(check).toEqual({
      kind: "protected",
      step: "/home/u/.bouncer/pins/x.json",
      reached: "/home/u/.bouncer",
      base: { dir: "/home/u", from: "command_line" },
    });
  });

  test("checkProtectedPaths() folds case on Windows as NTFS does", () => {
    const ctx: PathContext = {
      cwd: "C:\\work",
      home: "C:\\Users\\u",
      platform: "win32",
      protectedPaths: ["C:\\Users\\u\\.bouncer"],
    };
    expect(checkProtectedPaths("c:\\USERS\\U\\.Bouncer\\pins\\x.json", ctx).kind).toBe("protected");
  });
});

describe("checkProtectedPaths() and names that alias a protected one", () => {
  const windows: PathContext = {
    cwd: "C:\\w",
    home: "C:\\Users\\u",
    platform: "win32",
    protectedPaths: ["C:\\Users\\u\\.bouncer"],
  };
  test.each<[string, string]>([
    ["another letter case (macOS and Windows file systems ignore it)", "/home/u/.BOUNCER/pins/x.json"],
    ["a policy file in another case", "/home/u/proj/Bouncer.YAML"],
    ["a decomposed (NFD) spelling of the same name", "/home/u/proj/bouncer.yaml".normalize("NFD")],
  ])("checkProtectedPaths() finds %s", (_what, value) => {
    expect(checkProtectedPaths(value, guarded).kind).toBe("protected");
  });

  test.each<[string, string]>([
    ["Windows letter case", "C:\\USERS\\U\\.BOUNCER\\pins\\x.json"],
    ["a trailing dot Windows drops", "C:\\Users\\u\\.bouncer.\\pins\\x.json"],
    ["trailing spaces Windows drops", "C:\\Users\\u\\.bouncer  \\pins\\x.json"],
    ["an NTFS stream suffix", "C:\\Users\\u\\.bouncer::$INDEX_ALLOCATION\\pins\\x.json"],
    ["an 8.3 short name", "C:\\Users\\u\\BOUNCE~1\\pins\\x.json"],
    ["an 8.3 short name of a parent (moving it moves the home)", "C:\\USERS~1\\u"],
    ["the drive's administrative share", "\\\\localhost\\C$\\Users\\u\\.bouncer\\pins\\x.json"],
    ["the drive's administrative share by another name", "\\\\127.1\\c$\\Users\\u\\.bouncer\\pins\\x.json"],
    ["a verbatim path", "\\\\?\\C:\\Users\\u\\.bouncer\\pins\\x.json"],
  ])("checkProtectedPaths() on Windows finds %s", (_what, value) => {
    expect(checkProtectedPaths(value, windows).kind).toBe("protected");
  });

  test("checkProtectedPaths() on Windows leaves ordinary files of the home alone", () => {
    expect(checkProtectedPaths("C:\\Users\\u\\notes.txt", windows).kind).toBe("clear");
    expect(checkProtectedPaths("C:\\Users\\u\\PROGRA~1\\x.txt", windows).kind).toBe("clear");
  });

  test("checkProtectedPaths() guards a protected path as written when its walk fails", () => {
    const failing: PathContext = {
      ...guarded,
      resolve: (path) => {
        if (path === "/home/u/.bouncer") throw new Error("EACCES");
        return [path];
      },
    };
    expect(checkProtectedPaths("/home/u/.bouncer/pins/x.json", failing).kind).toBe("protected");
  });
});
