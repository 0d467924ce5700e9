import { describe, expect, test } from "bun:test";
import { serverState, withClientRoots } from "../../src/proxy/gate-server.ts";

const OPTIONS = { cwd: "/work", home: "/home/u", platform: "posix" } as const;
const FS = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data/x/../proj/"];

describe("serverState() and withClientRoots()", () => {
  test("serverState() builds the path context with its command-line bases normalised once", () => {
    const { paths } = serverState({ name: "files", command: FS, cwd: "/data/proj" }, [], OPTIONS);
    // The directory equals the working directory once normalised: nothing more to check against.
    expect(paths.relativeBases?.map((base) => base.dir)).toEqual(["/data/x/../proj/"]);
    expect(paths.normalizedBases?.from.relativeBases).toBe(paths.relativeBases);
    expect(paths.normalizedBases?.bases).toEqual([]);
  });

  test("withClientRoots() normalises the bases again when a root is added, the root kept as given", () => {
    const { paths } = serverState({ name: "files", command: FS, cwd: "/data/proj" }, [], OPTIONS);
    const rooted = withClientRoots(paths, ["file:///data/proj/../other/"]);
    const root = { dir: "file:///data/proj/../other/", from: "client_root" } as const;
    expect(rooted.normalizedBases?.from.relativeBases).toBe(rooted.relativeBases);
    expect(rooted.normalizedBases?.bases).toEqual([{ kind: "dir", base: root, dir: "/data/other" }]);
    expect(withClientRoots(rooted, ["file:///data/proj/../other/"])).toBe(rooted);
  });

  test("serverState() keeps the roots of the previous state, normalised against the new working directory", () => {
    const first = serverState({ name: "files", cwd: "/data/proj" }, [], OPTIONS);
    const previous = { ...first, paths: withClientRoots(first.paths, ["../other"]) };
    const { paths } = serverState({ name: "files", cwd: "/srv/proj" }, [], { ...OPTIONS, previous });
    expect(paths.normalizedBases?.bases).toMatchObject([{ kind: "dir", dir: "/srv/other" }]);
  });
});
