import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { checkPathConfinement } from "../../src/engine/index.ts";
import { MAX_EQUIVALENT_WALKS, MAX_LINKS, resolvePathSteps, walkPath } from "../../src/platform/path-walk.ts";

function tree(): { root: string; inside: string; outside: string } {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "bouncer-walk-")));
  const inside = path.join(root, "inside");
  const outside = path.join(root, "outside");
  mkdirSync(inside);
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.txt"), "s");
  return { root, inside, outside };
}

describe("walkPath()", () => {
  test("walkPath() returns the path itself when no component is a link", () => {
    const { inside } = tree();
    const target = path.join(inside, "new", "file.txt");
    expect(walkPath(target)).toEqual([target]);
  });

  test("walkPath() lands outside through a directory link and names every step", () => {
    const { inside, outside } = tree();
    symlinkSync(outside, path.join(inside, "escape"));
    const steps = walkPath(path.join(inside, "escape", "x.txt"));
    expect(steps).toEqual([path.join(outside, "x.txt"), path.join(outside, "x.txt")]);
  });

  test("walkPath() resolves a dangling link to its target as written", () => {
    const { inside, outside } = tree();
    const target = path.join(outside, "not-yet", "created.txt");
    symlinkSync(target, path.join(inside, "dangling"));
    expect(walkPath(path.join(inside, "dangling")).at(-1)).toBe(target);
  });

  test("walkPath() resolves a relative link against the link's folder, taking .. after a link physically", () => {
    const { inside, outside } = tree();
    mkdirSync(path.join(outside, "sub"));
    symlinkSync(path.join(outside, "sub"), path.join(inside, "l1"));
    symlinkSync("l1/../secret.txt", path.join(inside, "l2"));
    // Lexically l1/.. would be `inside`; the file system goes to the parent of outside/sub.
    expect(walkPath(path.join(inside, "l2")).at(-1)).toBe(path.join(outside, "secret.txt"));
  });

  test("walkPath() follows a chain of links and reports each hop", () => {
    const { inside, outside } = tree();
    symlinkSync(outside, path.join(inside, "hop2"));
    symlinkSync(path.join(inside, "hop2"), path.join(inside, "hop1"));
    const steps = walkPath(path.join(inside, "hop1", "secret.txt"));
    expect(steps).toEqual([
      path.join(inside, "hop2", "secret.txt"),
      path.join(outside, "secret.txt"),
      path.join(outside, "secret.txt"),
    ]);
  });

  test("walkPath() throws on a link loop instead of looping", () => {
    const { inside } = tree();
    symlinkSync(path.join(inside, "b"), path.join(inside, "a"));
    symlinkSync(path.join(inside, "a"), path.join(inside, "b"));
    expect(() => walkPath(path.join(inside, "a", "x"))).toThrow("too many symbolic links");
  });

  test("walkPath() refuses a relative path", () => {
    expect(() => walkPath("relative/path")).toThrow("not absolute");
  });

  test("walkPath() gives up after MAX_LINKS links with injected file-system doubles", () => {
    const inspect = (): "link" => "link";
    const readLink = (): string => "/again";
    expect(() => walkPath("/again", { inspect, readLink, pathApi: path.posix })).toThrow();
    expect(MAX_LINKS).toBe(40);
  });

  test("walkPath() walks a Windows path with the win32 flavour", () => {
    const links = new Map([["C:\\data\\out", "D:\\elsewhere"]]);
    const steps = walkPath("C:\\data\\out\\file.txt", {
      pathApi: path.win32,
      inspect: (candidate) => (links.has(candidate) ? "link" : "other"),
      readLink: (candidate) => links.get(candidate) ?? "",
    });
    expect(steps).toEqual(["D:\\elsewhere\\file.txt", "D:\\elsewhere\\file.txt"]);
  });
});

describe("walkPath() and names equal under Unicode normalisation", () => {
  const nfc = "link\u00e9";
  const nfd = "linke\u0301";

  test("walkPath() goes through an entry spelled in another normal form when the name as written is missing", () => {
    const { inside, outside } = tree();
    symlinkSync(outside, path.join(inside, nfc));
    const steps = walkPath(path.join(inside, nfd, "nfd.txt"));
    expect(steps).toContain(path.join(outside, "nfd.txt"));
    expect(steps.at(-1)).toBe(path.join(inside, nfd, "nfd.txt"));
  });

  test("walkPath() goes through an NFD entry for an NFC name too", () => {
    const { inside, outside } = tree();
    symlinkSync(outside, path.join(inside, nfd));
    expect(walkPath(path.join(inside, nfc, "x.txt"))).toContain(path.join(outside, "x.txt"));
  });

  test("walkPath() looks for other spellings only when the name as written is missing", () => {
    const { inside, outside } = tree();
    mkdirSync(path.join(inside, nfd));
    symlinkSync(outside, path.join(inside, nfc));
    expect(walkPath(path.join(inside, nfd, "x.txt"))).toEqual([path.join(inside, nfd, "x.txt")]);
  });

  /** The five spellings of "ậ" (a, dot below, circumflex), all equal under NFC. */
  const forms = ["\u1ead", "a\u0323\u0302", "a\u0302\u0323", "\u1ea1\u0302", "\u00e2\u0323"];

  test("walkPath() walks every matching spelling, so any one leading out is seen", () => {
    const [asked, plain, linked] = forms as [string, string, string];
    const entries = [plain, linked, "other"];
    const steps = walkPath(`/d/${asked}/x`, {
      pathApi: path.posix,
      inspect: (candidate) => {
        if (candidate === `/d/${linked}`) return "link";
        return candidate === "/d" || entries.some((e) => candidate.startsWith(`/d/${e}`))
          ? "other"
          : undefined;
      },
      readLink: () => "/etc",
      listDir: (directory) => (directory === "/d" ? entries : []),
    });
    expect(steps).toContain(`/d/${plain}/x`);
    expect(steps).toContain("/etc/x");
    expect(steps.at(-1)).toBe(`/d/${asked}/x`);
  });

  test("walkPath() gives up after MAX_EQUIVALENT_WALKS walks through other spellings", () => {
    const [asked, ...present] = forms as [string, ...string[]];
    const exists = (candidate: string): boolean =>
      candidate
        .split("/")
        .slice(1)
        .every((part) => present.includes(part));
    const deep = Array.from({ length: 6 }, () => asked).join("/");
    expect(() =>
      walkPath(`/${deep}`, {
        pathApi: path.posix,
        inspect: (candidate) => (exists(candidate) ? "other" : undefined),
        readLink: () => "",
        listDir: () => present,
      }),
    ).toThrow("too many Unicode-equivalent names");
    expect(MAX_EQUIVALENT_WALKS).toBe(64);
  });

  test("checkPathConfinement() denies an NFD spelling of an NFC link that leads out of the prefix", () => {
    const { root, inside, outside } = tree();
    symlinkSync(outside, path.join(inside, nfc));
    const ctx = { cwd: root, home: root, platform: "posix" as const, resolve: resolvePathSteps };
    const check = checkPathConfinement(path.join(inside, nfd, "nfd.txt"), [inside], ctx);
    expect(check).toMatchObject({ kind: "outside", step: path.join(outside, "nfd.txt") });
  });
});

describe("checkPathConfinement() with the real walk", () => {
  test("checkPathConfinement() denies a link followed by .. that leads out of the prefix (the kernel applies .. after the link)", () => {
    const { root, inside, outside } = tree();
    mkdirSync(path.join(outside, "inner"));
    symlinkSync(path.join(outside, "inner"), path.join(inside, "link"));
    const ctx = { cwd: root, home: root, platform: "posix" as const, resolve: resolvePathSteps };
    const check = checkPathConfinement(`${inside}/link/../x.txt`, [inside], ctx);
    expect(check.kind).toBe("outside");
    expect(check.kind === "outside" ? check.step : "").toBe(path.join(outside, "x.txt"));
    // Relative, the same: `link/../x.txt` against the prefix's folder.
    const relative = checkPathConfinement("inside/link/../x.txt", ["inside"], ctx);
    expect(relative.kind).toBe("outside");
  });

  test("checkPathConfinement() walks the lexical form too: a .. after a missing folder or an inner link cannot skip a link out", () => {
    const { root, inside, outside } = tree();
    mkdirSync(path.join(inside, "deep", "deeper"), { recursive: true });
    symlinkSync(outside, path.join(inside, "link"));
    symlinkSync(path.join(inside, "deep", "deeper"), path.join(inside, "sub"));
    const ctx = { cwd: root, home: root, platform: "posix" as const, resolve: resolvePathSteps };
    // A server that normalises the path opens inside/link/… (the link leads out); the kernel reads
    // the first one as missing and the second through inside/deep — both walks are checked.
    for (const value of [`${inside}/nonexist/../link/b.txt`, `${inside}/sub/../link/c.txt`]) {
      expect({ value, kind: checkPathConfinement(value, [inside], ctx).kind }).toEqual({
        value,
        kind: "outside",
      });
    }
  });

  test("checkPathConfinement() does not widen a prefix whose .. follows a chain of links to a folder it never reaches", () => {
    const { root, inside, outside } = tree();
    // prefix p/../v: p -> q/r, and q/r -> s/u; the kernel goes s/u, .., v = s/v. Joining q/r with
    // the rest lexically would give q/v, a folder the prefix never leads to.
    mkdirSync(path.join(root, "q"));
    mkdirSync(path.join(root, "q", "v"));
    mkdirSync(path.join(root, "s", "u"), { recursive: true });
    mkdirSync(path.join(root, "s", "v"));
    symlinkSync(path.join(root, "s", "u"), path.join(root, "q", "r"));
    symlinkSync(path.join(root, "q", "r"), path.join(inside, "p"));
    const ctx = { cwd: root, home: root, platform: "posix" as const, resolve: resolvePathSteps };
    const prefix = `${inside}/p/../v`;
    expect(walkPath(prefix)).not.toContain(path.join(root, "q", "v"));
    expect(checkPathConfinement(path.join(root, "q", "v", "x.txt"), [prefix], ctx).kind).toBe("outside");
    expect(checkPathConfinement(path.join(root, "s", "v", "x.txt"), [prefix], ctx).kind).toBe("inside");
    expect(checkPathConfinement(path.join(outside, "x.txt"), [prefix], ctx).kind).toBe("outside");
  });

  test("checkPathConfinement() keeps a .. that does not follow a link inside the prefix", () => {
    const { root, inside } = tree();
    mkdirSync(path.join(inside, "sub"));
    const ctx = { cwd: root, home: root, platform: "posix" as const, resolve: resolvePathSteps };
    expect(checkPathConfinement(`${inside}/sub/../x.txt`, [inside], ctx).kind).toBe("inside");
    expect(checkPathConfinement(`${inside}/../outside/x`, [inside], ctx).kind).toBe("outside");
  });

  // Root lists a folder of mode --x all the same.
  test.skipIf(process.platform === "win32" || process.getuid?.() === 0)(
    "checkPathConfinement() denies a missing file in a folder that can be entered but not listed (--x), and allows an existing one",
    () => {
      const { root, inside } = tree();
      const blind = path.join(inside, "blind");
      mkdirSync(blind);
      writeFileSync(path.join(blind, "there.txt"), "t");
      chmodSync(blind, 0o111);
      const ctx = { cwd: root, home: root, platform: "posix" as const, resolve: resolvePathSteps };
      try {
        // Its other spellings under Unicode normalisation cannot be looked for: fail closed.
        const missing = checkPathConfinement(path.join(blind, "new.txt"), [inside], ctx);
        expect(missing.kind).toBe("invalid");
        expect(missing.kind === "invalid" ? missing.problem : "").toContain("EACCES");
        expect(checkPathConfinement(path.join(blind, "there.txt"), [inside], ctx).kind).toBe("inside");
      } finally {
        chmodSync(blind, 0o755);
      }
    },
  );
});
