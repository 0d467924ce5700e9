import { describe, expect, test } from "bun:test";
import type { JsonValue } from "../../src/engine/index.ts";
import { clientRootDirs } from "../../src/proxy/client-roots.ts";

describe("clientRootDirs()", () => {
  test.each<[string, JsonValue, string[]]>([
    ["takes file: URIs as given", { roots: [{ uri: "file:///data", name: "d" }] }, ["file:///data"]],
    [
      "takes plain paths, as a filesystem server reads them",
      { roots: [{ uri: "/srv" }, { uri: "C:\\w" }] },
      ["/srv", "C:\\w"],
    ],
    ["leaves out other schemes", { roots: [{ uri: "https://x.example/" }, { uri: "git+ssh://h/r" }] }, []],
    ["leaves out malformed entries", { roots: [null, "file:///x", { uri: 5 }, { uri: "" }, {}] }, []],
    ["gives each root once", { roots: [{ uri: "FILE:///a" }, { uri: "FILE:///a" }] }, ["FILE:///a"]],
    ["reads nothing from a result without roots", { roots: { uri: "file:///a" } }, []],
    ["reads nothing from a result that is not an object", ["file:///a"], []],
  ])("clientRootDirs() %s", (_rule, result, expected) => {
    expect(clientRootDirs(result)).toEqual(expected);
  });

  test("clientRootDirs() reads a root named like an Object.prototype member as data", () => {
    expect(clientRootDirs({ roots: [{ uri: "file:///constructor", __proto__: null } as JsonValue] })).toEqual(
      ["file:///constructor"],
    );
  });
});
