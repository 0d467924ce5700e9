import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  checkPathConfinement,
  normalizePath,
  normalizeRelativeBases,
  type PathContext,
  type RelativeBase,
} from "../../src/engine/index.ts";

const posix: PathContext = { cwd: "/work", home: "/home/u", platform: "posix" };
const win: PathContext = { cwd: "C:\\work", home: "C:\\Users\\u", platform: "win32" };

describe("checkPathConfinement()", () => {
  test.each<[string, PathContext, string, readonly string[], "inside" | "outside" | "invalid"]>([
    ["allows a path below a relative prefix", posix, "./out/x", ["./out"], "inside"],
    ["allows the prefix itself", posix, "out", ["./out"], "inside"],
    [
      "denies ./outside/x under ./out (containment per component)",
      posix,
      "./outside/x",
      ["./out"],
      "outside",
    ],
    ["denies a .. escape", posix, "./out/../../etc/passwd", ["./out"], "outside"],
    ["denies a file URI escape", posix, "file:///work/out/../../etc", ["./out"], "outside"],
    [
      "refuses a file URI with an encoded slash",
      posix,
      "file:///work/out/..%2F..%2Fetc",
      ["./out"],
      "invalid",
    ],
    ["refuses a file: value read from the root or the cwd", posix, "file:work/out/x", ["./out"], "invalid"],
    ["allows ~ paths under a ~ prefix", posix, "/home/u/notes/a", ["~/notes"], "inside"],
    ["allows any of several prefixes", posix, "/tmp/x", ["./out", "/tmp"], "inside"],
    ["denies when no prefix resolves", posix, "/work/x", ["~root"], "outside"],
    ["reports a ~user value as invalid", posix, "~root/x", ["/"], "invalid"],
    ["compares case-insensitively on Windows", win, "c:\\WORK\\OUT\\x", ["C:\\work\\out"], "inside"],
    [
      "denies a sibling with a shared name start on Windows",
      win,
      "C:\\work\\outside",
      ["C:\\work\\out"],
      "outside",
    ],
    ["denies another drive on Windows", win, "D:\\work\\out\\x", ["C:\\work\\out"], "outside"],
    ["mixes separators on Windows", win, "C:/work/out/a", ["./out"], "inside"],
  ])("checkPathConfinement() %s", (_rule, ctx, value, prefixes, kind) => {
    expect(checkPathConfinement(value, prefixes, ctx).kind).toBe(kind);
  });

  test("checkPathConfinement() denies a symlink (resolver step) that leaves the prefix", () => {
    const resolve = (p: string): readonly string[] => (p === "/work/out/link" ? ["/etc/passwd"] : [p]);
    const check = checkPathConfinement("./out/link", ["./out"], { ...posix, resolve });
    expect(check).toEqual({ kind: "outside", step: "/etc/passwd", steps: ["/work/out/link", "/etc/passwd"] });
  });

  test("checkPathConfinement() denies when an intermediate step leaves even if the last returns", () => {
    const resolve = (p: string): readonly string[] => (p === "/work/out/x" ? ["/tmp/hop", p] : [p]);
    expect(checkPathConfinement("./out/x", ["./out"], { ...posix, resolve }).kind).toBe("outside");
  });

  test("checkPathConfinement() resolves prefixes the same way (a symlinked prefix)", () => {
    const resolve = (p: string): readonly string[] => [p.replace(/^\/work\/out(?=\/|$)/, "/data/out")];
    const check = checkPathConfinement("./out/x", ["./out"], { ...posix, resolve });
    expect(check).toEqual({ kind: "inside", steps: ["/work/out/x", "/data/out/x"] });
  });

  test("checkPathConfinement() reports a throwing resolver as invalid", () => {
    const resolve = (): readonly string[] => {
      throw new Error("EACCES: permission denied");
    };
    const check = checkPathConfinement("./out/x", ["./out"], { ...posix, resolve });
    expect(check.kind).toBe("invalid");
  });

  test("checkPathConfinement() reports a resolver step that is not absolute as invalid", () => {
    const resolve = (p: string): readonly string[] => [p, "relative/target"];
    expect(checkPathConfinement("./out/x", ["./out"], { ...posix, resolve }).kind).toBe("invalid");
  });

  const segment = fc.constantFrom("out", "outside", "x", "..", ".", "", "a b", "~", "%2e%2e");

  test("checkPathConfinement() never allows a path whose resolution leaves every prefix (property)", () => {
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 8 }),
        fc.array(fc.constantFrom("out", "x", "notes"), { minLength: 1, maxLength: 3 }),
        fc.nat({ max: 3 }),
        (pathSegments, prefixSegments, where) => {
          const prefix = `./${prefixSegments.join("/")}`;
          const value = pathSegments.join("/");
          const target = normalizePath(value, posix);
          const prefixPath = normalizePath(prefix, posix);
          fc.pre(target !== prefixPath);
          // The walk of the called path lands outside at some step; the prefix resolves lexically.
          // (The resolver gets the path with its `..` in place: compare it normalised.)
          const resolve = (p: string): readonly string[] => {
            if (normalizePath(p, posix) !== target) return [p];
            const steps = [p, p, p];
            steps.splice(Math.min(where, 2), 1, "/elsewhere/target");
            return steps;
          };
          return checkPathConfinement(value, [prefix], { ...posix, resolve }).kind !== "inside";
        },
      ),
    );
  });

  test("checkPathConfinement() agrees with a reference model on lexical POSIX paths (property)", () => {
    const model = (value: string, prefix: string): boolean => {
      const norm = (v: string): string => {
        const parts: string[] = [];
        for (const part of (v.startsWith("/") ? v : `/work/${v}`).split("/")) {
          if (part === "..") parts.pop();
          else if (part !== "" && part !== ".") parts.push(part);
        }
        return `/${parts.join("/")}`;
      };
      const p = norm(value);
      const q = norm(prefix);
      return q === "/" || p === q || p.startsWith(`${q}/`);
    };
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("out", "outside", "x", "..", ".", "", "work"), { maxLength: 8 }),
        fc.boolean(),
        fc.array(fc.constantFrom("out", "x", "..", "work"), { maxLength: 3 }),
        (segments, absolute, prefixSegments) => {
          const value = (absolute ? "/" : "") + segments.join("/");
          const prefix = `./${prefixSegments.join("/")}`;
          const inside = checkPathConfinement(value, [prefix], posix).kind === "inside";
          return inside === model(value, prefix);
        },
      ),
    );
  });
});

describe("checkPathConfinement() folds Windows case as NTFS does", () => {
  const desk: PathContext = { cwd: "C:\\Users\\me", home: "C:\\Users\\me", platform: "win32" };
  test.each<[string, string, string, "inside" | "outside"]>([
    ["the Kelvin sign is not k", "C:\\Users\\me\\Des\u212Atop\\a.txt", "C:\\Users\\me\\Desktop", "outside"],
    ["k is not the Kelvin sign", "C:\\data\\work\\x", "C:\\data\\wor\u212A", "outside"],
    ["long s is not s", "C:\\Users\\me\\De\u017Ftop\\a.txt", "C:\\Users\\me\\Desktop", "outside"],
    ["dotless i is not i", "C:\\Users\\me\\P\u0131ctures\\a", "C:\\Users\\me\\Pictures", "outside"],
    ["the Ohm sign is not omega", "C:\\data\\\u2126\\x", "C:\\data\\\u03C9", "outside"],
    ["the Ohm sign is not capital omega", "C:\\data\\\u2126\\x", "C:\\data\\\u03A9", "outside"],
    ["the Angstrom sign is not a with ring", "C:\\data\\\u212B\\x", "C:\\data\\\u00E5", "outside"],
    ["capital sharp s is not sharp s", "C:\\data\\Stra\u1E9Ee\\x", "C:\\data\\Stra\u00DFe", "outside"],
    ["sharp s is not ss", "C:\\data\\STRASSE\\x", "C:\\data\\stra\u00DFe", "outside"],
    ["dotted capital I is not i with a dot", "C:\\data\\i\u0307\\x", "C:\\data\\\u0130", "outside"],
    ["dotted capital I is not i", "C:\\data\\i\\x", "C:\\data\\\u0130", "outside"],
    ["the micro sign is not mu", "C:\\data\\\u00B5\\x", "C:\\data\\\u03BC", "outside"],
    ["final sigma is not sigma (Windows 7 and later)", "C:\\data\\\u03C2\\x", "C:\\data\\\u03C3", "outside"],
    ["Georgian Mkhedruli is not Mtavruli", "C:\\data\\\u1C90\\x", "C:\\data\\\u10D0", "outside"],
    ["e acute is E acute", "C:\\Users\\JOS\u00C9\\x", "C:\\Users\\jos\u00E9", "inside"],
    ["Cyrillic folds", "C:\\data\\\u0416\\x", "C:\\data\\\u0436", "inside"],
    ["Greek folds", "C:\\data\\\u03A9\\x", "C:\\data\\\u03C9", "inside"],
    ["Vietnamese folds", "C:\\data\\NGUY\u1EC4N\\x", "C:\\data\\nguy\u1EC5n", "inside"],
    ["y with diaeresis folds", "C:\\data\\\u0178\\x", "C:\\data\\\u00FF", "inside"],
    ["UNC server and share fold", "\\\\SRV\\SHARE\\x", "\\\\srv\\share", "inside"],
  ])("checkPathConfinement() on Windows: %s", (_rule, value, prefix, kind) => {
    expect(checkPathConfinement(value, [prefix], desk).kind).toBe(kind);
  });
});

describe("checkPathConfinement() on Windows \\\\?\\ paths", () => {
  test("checkPathConfinement() refuses a \\\\?\\ path whose .. Node's fs resolves to another share", () => {
    const check = checkPathConfinement("\\\\?\\C:\\..\\UNC\\attacker\\share\\x", ["C:\\"], win);
    expect(check).toEqual({
      kind: "invalid",
      problem: "is a \\\\?\\ path with a . or .. component, which Windows does not collapse",
    });
  });

  test("checkPathConfinement() refuses a //?/ path with .. and a prefix of that form", () => {
    expect(checkPathConfinement("//?/c:/../UNC/attacker/share/x", ["C:\\"], win).kind).toBe("invalid");
    expect(checkPathConfinement("C:\\work\\x", ["\\\\?\\C:\\work\\..\\work"], win).kind).toBe("outside");
  });
});

describe("checkPathConfinement() on Windows device names", () => {
  test("checkPathConfinement() refuses a device name inside a prefix", () => {
    expect(checkPathConfinement("C:\\work\\out\\nul.txt", ["C:\\work\\out"], win)).toEqual({
      kind: "invalid",
      problem: 'names the Windows device "nul.txt"',
    });
    expect(checkPathConfinement("out\\COM1", ["C:\\work\\out"], win).kind).toBe("invalid");
  });

  test("checkPathConfinement() refuses a walk that lands on a device name", () => {
    const resolve = (p: string): readonly string[] =>
      p === "C:\\work\\out\\link" ? ["C:\\work\\out\\CON"] : [p];
    expect(checkPathConfinement("C:\\work\\out\\link", ["C:\\work\\out"], { ...win, resolve })).toEqual({
      kind: "invalid",
      problem: 'resolved to the Windows device "CON"',
    });
  });
});

describe("checkPathConfinement() with other bases of relative values", () => {
  const withBases: PathContext = {
    ...posix,
    cwd: "/w/proj",
    relativeBases: [
      { dir: "/w", from: "command_line" },
      { dir: "file:///w/proj/sub", from: "client_root" },
    ],
  };

  test("checkPathConfinement() denies a relative value that leaves the prefixes resolved against a command-line directory", () => {
    const check = checkPathConfinement("evil-rel.txt", ["."], withBases);
    expect(check).toMatchObject({
      kind: "outside",
      step: "/w/evil-rel.txt",
      base: { dir: "/w", from: "command_line" },
    });
  });

  test("checkPathConfinement() denies a relative value that leaves the prefixes resolved against a client root", () => {
    const ctx: PathContext = {
      ...posix,
      cwd: "/w/proj",
      relativeBases: [{ dir: "file:///w", from: "client_root" }],
    };
    const check = checkPathConfinement("rel.txt", ["/w/proj"], ctx);
    expect(check.kind).toBe("outside");
    expect(check.kind === "outside" ? check.base : undefined).toEqual({
      dir: "file:///w",
      from: "client_root",
    });
  });

  test("checkPathConfinement() allows a relative value inside under every base", () => {
    const check = checkPathConfinement("x.txt", ["/w"], withBases);
    expect(check).toMatchObject({ kind: "inside", steps: ["/w/proj/x.txt", "/w/proj/x.txt"] });
  });

  test("checkPathConfinement() leaves absolute and ~ values to their own resolution", () => {
    for (const value of ["/w/proj/x", "~/x"]) {
      expect(checkPathConfinement(value, ["/w/proj", "~"], withBases).kind).toBe("inside");
    }
  });

  test("checkPathConfinement() checks a file: value as a URI and as the relative path its text is, under every base", () => {
    const check = checkPathConfinement("file:///w/proj/x", ["/w/proj", "~"], withBases);
    expect(check).toMatchObject({
      kind: "outside",
      step: "/w/file:/w/proj/x",
      base: { dir: "/w", from: "command_line" },
      asPath: true,
    });
    const inside = checkPathConfinement("file:///w/proj/x", ["/w/proj"], { ...posix, cwd: "/w/proj" });
    expect(inside).toEqual({ kind: "inside", steps: ["/w/proj/x", "/w/proj/x"] });
  });

  test("checkPathConfinement() denies a file: value whose reading as a path leaves the prefix though its URI stays inside", () => {
    const ctx: PathContext = { ...posix, cwd: "/w" };
    expect(checkPathConfinement("file:///w/out/d", ["/w/out"], ctx)).toMatchObject({
      kind: "outside",
      step: "/w/file:/w/out/d",
      asPath: true,
    });
    expect(checkPathConfinement("FILE:/w/out/d", ["/w/out"], ctx)).toMatchObject({
      kind: "outside",
      asPath: true,
    });
    const win: PathContext = { cwd: "C:\\w", home: "C:\\Users\\u", platform: "win32" };
    expect(checkPathConfinement("file:///C:/w/out/d", ["C:\\w\\out"], win)).toMatchObject({
      kind: "outside",
      step: "C:\\w\\file:\\C:\\w\\out\\d",
      asPath: true,
    });
  });

  test("checkPathConfinement() resolves a relative base against the working directory and skips one equal to it", () => {
    const ctx: PathContext = {
      ...posix,
      cwd: "/w/proj",
      relativeBases: [
        { dir: ".", from: "command_line" },
        { dir: "../other", from: "command_line" },
      ],
    };
    const check = checkPathConfinement("x", ["."], ctx);
    expect(check).toMatchObject({ kind: "outside", step: "/w/other/x", base: { dir: "../other" } });
    expect(
      checkPathConfinement("x", ["."], { ...ctx, relativeBases: [{ dir: ".", from: "command_line" }] }).kind,
    ).toBe("inside");
  });

  test("checkPathConfinement() walks the value under each base with the resolver (a link in the base)", () => {
    const resolve = (p: string): readonly string[] =>
      p.startsWith("/w/link/") ? [p.replace("/w/link", "/etc")] : [p];
    const ctx: PathContext = {
      ...posix,
      cwd: "/w",
      resolve,
      relativeBases: [{ dir: "/w/link", from: "command_line" }],
    };
    expect(checkPathConfinement("x", ["/w"], ctx)).toMatchObject({ kind: "outside", step: "/etc/x" });
  });

  test("checkPathConfinement() reports a base it cannot resolve as invalid for relative values only", () => {
    const ctx: PathContext = { ...posix, relativeBases: [{ dir: "~bob/data", from: "command_line" }] };
    expect(checkPathConfinement("out/x", ["./out"], ctx)).toMatchObject({
      kind: "invalid",
      base: { dir: "~bob/data" },
    });
    expect(checkPathConfinement("/work/out/x", ["./out"], ctx).kind).toBe("inside");
  });

  test("checkPathConfinement() checks Windows relative values against each base", () => {
    const ctx: PathContext = { ...win, relativeBases: [{ dir: "D:\\data", from: "command_line" }] };
    expect(checkPathConfinement("out\\x", ["C:\\work\\out"], ctx)).toMatchObject({
      kind: "outside",
      step: "D:\\data\\out\\x",
    });
    expect(checkPathConfinement("c:out\\x", ["C:\\work\\out"], ctx).kind).toBe("invalid");
  });
});

describe("normalizeRelativeBases()", () => {
  const rootWithDots: RelativeBase = { dir: "file:///w/x/../data/", from: "client_root" };

  test("normalizeRelativeBases() normalises each base once: a file: root with .. and a trailing slash, repeats and the working directory left out, a bad base kept", () => {
    const ctx = normalizeRelativeBases({
      ...posix,
      cwd: "/w/proj",
      relativeBases: [
        rootWithDots,
        { dir: "/w/data", from: "command_line" },
        { dir: "./", from: "command_line" },
        { dir: "~bob/x", from: "command_line" },
      ],
    });
    expect(ctx.normalizedBases?.bases).toEqual([
      { kind: "dir", base: rootWithDots, dir: "/w/data" },
      { kind: "problem", base: { dir: "~bob/x", from: "command_line" }, problem: expect.any(String) },
    ]);
  });

  test("checkPathConfinement() confines a relative value under a base given un-normalised, from the bases normalised once", () => {
    const ctx = normalizeRelativeBases({ ...posix, cwd: "/w/proj", relativeBases: [rootWithDots] });
    expect(checkPathConfinement("notes.txt", ["/w/proj"], ctx)).toMatchObject({
      kind: "outside",
      step: "/w/data/notes.txt",
      base: rootWithDots,
    });
    expect(checkPathConfinement("../data/notes.txt", ["/w/proj"], ctx).kind).toBe("outside");
    expect(checkPathConfinement("notes.txt", ["/w/proj", "/w/data"], ctx).kind).toBe("inside");
  });

  test("checkPathConfinement() does not use bases normalised for other bases or another working directory", () => {
    const ctx = normalizeRelativeBases({
      ...posix,
      cwd: "/w/proj",
      relativeBases: [{ dir: "../other", from: "command_line" }],
    });
    const more: PathContext = {
      ...ctx,
      relativeBases: [...(ctx.relativeBases ?? []), { dir: "/etc", from: "client_root" }],
    };
    expect(checkPathConfinement("x", ["/w"], more)).toMatchObject({ kind: "outside", step: "/etc/x" });
    const moved: PathContext = { ...ctx, cwd: "/v/proj" };
    expect(checkPathConfinement("x", ["/v/proj", "/w/other"], moved)).toMatchObject({
      kind: "outside",
      step: "/v/other/x",
    });
  });

  test("checkPathConfinement() gives the same verdict with the bases normalised once as without (property)", () => {
    const segment = fc.constantFrom("a", "b", "..", ".", "");
    const relative = fc.array(segment, { maxLength: 4 }).map((parts) => parts.join("/"));
    const path = fc.oneof(
      relative,
      relative.map((rest) => `/${rest}`),
      relative.map((rest) => `file:///${rest}`),
      relative.map((rest) => `~/${rest}`),
      fc.constant("~bob/a"),
    );
    const base = fc.record({
      dir: path,
      from: fc.constantFrom("command_line" as const, "client_root" as const),
    });
    fc.assert(
      fc.property(
        path,
        fc.array(path, { maxLength: 2 }),
        fc.array(base, { maxLength: 3 }),
        (value, prefixes, bases) => {
          const ctx: PathContext = { ...posix, cwd: "/a/b", relativeBases: bases };
          expect(checkPathConfinement(value, prefixes, normalizeRelativeBases(ctx))).toEqual(
            checkPathConfinement(value, prefixes, ctx),
          );
        },
      ),
    );
  });
});
