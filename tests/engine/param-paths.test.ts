import { describe, expect, test } from "bun:test";
import { collectParamValues, type JsonObject, type ParamValues } from "../../src/engine/index.ts";

describe("collectParamValues()", () => {
  test.each<[string, JsonObject, string, ParamValues]>([
    [
      "reaches a top-level argument",
      { to: "a" },
      "to",
      { values: [{ path: "to", value: "a" }], mismatches: [] },
    ],
    [
      "reaches into objects with dots",
      { opts: { to: "a" } },
      "opts.to",
      {
        values: [{ path: "opts.to", value: "a" }],
        mismatches: [],
      },
    ],
    [
      "reaches into lists with []",
      { files: [{ path: "a" }, { path: "b" }] },
      "files[].path",
      {
        values: [
          { path: "files[0].path", value: "a" },
          { path: "files[1].path", value: "b" },
        ],
        mismatches: [],
      },
    ],
    [
      "reaches list elements with a trailing []",
      { to: ["a", "b"] },
      "to[]",
      {
        values: [
          { path: "to[0]", value: "a" },
          { path: "to[1]", value: "b" },
        ],
        mismatches: [],
      },
    ],
    ["reaches nothing for an absent key", { other: 1 }, "opts.to", { values: [], mismatches: [] }],
    [
      "reports an object expected on the way",
      { opts: "x" },
      "opts.to",
      {
        values: [],
        mismatches: [{ path: "opts", value: "x", expected: "an object" }],
      },
    ],
    [
      "reports a list expected on the way",
      { files: { path: "a" } },
      "files[].path",
      {
        values: [],
        mismatches: [{ path: "files", value: { path: "a" }, expected: "a list" }],
      },
    ],
    [
      "reaches an argument whose own name contains a dot",
      { "a.b": 1 },
      "a.b",
      {
        values: [{ path: "a.b", value: 1 }],
        mismatches: [],
      },
    ],
    [
      "reaches the nested value as well as an argument named like the dotted path",
      { "a.b": 1, a: { b: 2 } },
      "a.b",
      {
        values: [
          { path: "a.b", value: 1 },
          { path: "a.b", value: 2 },
        ],
        mismatches: [],
      },
    ],
  ])("collectParamValues() %s", (_rule, args, path, expected) => {
    expect(collectParamValues(args, path)).toEqual(expected);
  });

  test("collectParamValues() reaches every spelling equal under case folding, the exact one first", () => {
    // Go's encoding/json and .NET's web defaults match names case-insensitively (ſ is s, K is k).
    const args = { To: "a", to: "b", TO: "c", "\u212Ao": "d", tſ: "e", "t o": "f" } as JsonObject;
    expect(collectParamValues(args, "to").values.map((v) => v.path)).toEqual(["to", "To", "TO"]);
    expect(collectParamValues({ "\u212Aey": "x" }, "key").values).toEqual([{ path: "\u212Aey", value: "x" }]);
    expect(collectParamValues({ ſecret: "x" }, "secret").values).toEqual([{ path: "ſecret", value: "x" }]);
    expect(collectParamValues({ Files: [{ PATH: "p" }] }, "files[].path").values).toEqual([
      { path: "Files[0].PATH", value: "p" },
    ]);
    expect(collectParamValues({ "A.b": 1 }, "a.b").values).toEqual([{ path: "A.b", value: 1 }]);
  });

  test.each(["toString", "constructor", "__proto__", "hasOwnProperty"])(
    "collectParamValues() treats an inherited %s as absent",
    (key) => {
      expect(collectParamValues({}, key)).toEqual({ values: [], mismatches: [] });
      expect(collectParamValues({ a: {} }, `a.${key}`)).toEqual({ values: [], mismatches: [] });
    },
  );

  test("collectParamValues() reads an own __proto__ key", () => {
    const args = JSON.parse('{"__proto__": {"to": "x"}}') as JsonObject;
    expect(collectParamValues(args, "__proto__.to").values).toEqual([{ path: "__proto__.to", value: "x" }]);
  });
});
