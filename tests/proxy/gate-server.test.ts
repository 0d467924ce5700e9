import { describe, expect, test } from "bun:test";
import { builtinPacks } from "../../src/platform/packs.ts";
import { parsePolicyFiles } from "../../src/policy/index.ts";
import { viewPins } from "../../src/proxy/gate-pins.ts";
import { cachedRules, MAX_CACHED_RULES, serverState, withClientRoots } from "../../src/proxy/gate-server.ts";

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

describe("cachedRules()", () => {
  const policy = parsePolicyFiles(
    [{ text: "upload:\n  exfiltrating: true\n  sink_params: [url]\n", fileName: "bouncer.yaml" }],
    builtinPacks(),
  );

  test("cachedRules() holds at most MAX_CACHED_RULES entries while a new tool's definition changes on every walk", () => {
    const entry = serverState({ name: "web" }, [], OPTIONS);
    for (let i = 0; i < MAX_CACHED_RULES + 200; i += 1) {
      // A tool not pinned is decided under its listed definition: a new rules key on every walk.
      const listed = [{ name: "upload", description: `revision ${i}`, inputSchema: { type: "object" } }];
      entry.view = viewPins(new Map(), { listed, mode: "tofu" });
      const rules = cachedRules(policy, entry, "upload");
      expect(rules.exfiltrating).toEqual({ value: true, source: "user:bouncer.yaml" });
      expect(cachedRules(policy, entry, "upload")).toBe(rules);
    }
    expect(entry.rules.size).toBe(MAX_CACHED_RULES);
  });

  test("cachedRules() compiles a dropped entry again, with the same rules", () => {
    const entry = serverState({ name: "web" }, [], OPTIONS);
    const listed = [{ name: "upload", inputSchema: { type: "object" } }];
    entry.view = viewPins(new Map(), { listed, mode: "tofu" });
    const first = cachedRules(policy, entry, "upload");
    for (let i = 0; i < MAX_CACHED_RULES; i += 1) cachedRules(policy, entry, `other_${i}`);
    const again = cachedRules(policy, entry, "upload");
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
