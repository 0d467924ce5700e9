import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  collectParamValues,
  compileParamPath,
  createArgumentKeys,
  foldKey,
  type JsonObject,
  type JsonValue,
  type ParamValues,
} from "../../src/engine/index.ts";

/**
 * A reference model of {@link collectParamValues}: the path split and every key folded on the spot,
 * as written in SPEC §2.4 and the function's doc, with no compiling and nothing shared.
 */
function modelValues(args: JsonObject, path: string): ParamValues {
  const fold = (key: string): string =>
    key.toLowerCase().toUpperCase().toLowerCase().replaceAll("\u0000", "");
  const spellings = (object: JsonObject, key: string): string[] => [
    ...(Object.hasOwn(object, key) ? [key] : []),
    ...Object.keys(object).filter((other) => other !== key && fold(other) === fold(key)),
  ];
  const out: {
    values: { path: string; value: JsonValue }[];
    mismatches: ParamValues["mismatches"][number][];
  } = { values: [], mismatches: [] };
  if (path.includes("."))
    for (const key of spellings(args, path)) out.values.push({ path: key, value: args[key] as JsonValue });
  const visit = (value: JsonValue, at: string, rest: readonly string[]): void => {
    const [raw, ...more] = rest;
    if (raw === undefined) {
      out.values.push({ path: at, value });
      return;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      out.mismatches.push({ path: at, value, expected: "an object" });
      return;
    }
    const key = raw.replace(/(\[\])+$/, "");
    let reached = spellings(value, key).map((k) => ({
      path: at === "" ? k : `${at}.${k}`,
      value: value[k] as JsonValue,
    }));
    for (let lists = (raw.length - key.length) / 2; lists > 0; lists -= 1) {
      reached = reached.flatMap((item) => {
        if (Array.isArray(item.value))
          return item.value.map((v, i) => ({ path: `${item.path}[${i}]`, value: v }));
        out.mismatches.push({ path: item.path, value: item.value, expected: "a list" });
        return [];
      });
    }
    for (const item of reached) visit(item.value, item.path, more);
  };
  visit(args, "", path.split("."));
  return out;
}

/**
 * Argument keys that meet under case folding: cases; characters past ASCII that fold to ASCII (the
 * long s, the Kelvin sign), to more characters (ß, ŉ) or by their context (a final sigma); ASCII
 * keys that differ from another only after such a character; dotted keys.
 */
const FOLDING_KEYS = [
  ...["to", "To", "TO", "\u212Ao", "path", "Path", "ſ", "s", "S", "a.b", "A.b", "a", "b", "B", "i", "İ"],
  ...[
    "ß",
    "ẞ",
    "ss",
    "SS",
    "Straße",
    "STRAẞE",
    "STRASSE",
    "strasse",
    "ŉ",
    "ʼn",
    "ΑΣ",
    "ας",
    "ασ",
    "aΣ",
    "aσ",
    "xſ",
    "tſ",
  ],
];

/** Policy path segments some of {@link FOLDING_KEYS} fold to. */
const FOLDING_SEGMENTS = [
  "to",
  "TO",
  "path",
  "s",
  "a",
  "b",
  "i",
  "ss",
  "strasse",
  "Straße",
  "ʼn",
  "ας",
  "aς",
  "ts",
];

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

  test("collectParamValues() reaches a key with NUL characters in it (a decoder of the go-sdk 1.3.1–1.4.0 read to\\u0000 as to)", () => {
    expect(collectParamValues({ to: "a", "to\u0000": "b" }, "to").values).toEqual([
      { path: "to", value: "a" },
      { path: "to\u0000", value: "b" },
    ]);
    expect(collectParamValues({ "T\u0000o": "c" }, "to").values).toEqual([{ path: "T\u0000o", value: "c" }]);
  });

  test("collectParamValues() reaches a key written with the capital sharp s (ẞ) by a path written with ß or ss", () => {
    // Go's simple folding before 1.21 made ẞ (U+1E9E) and ß one letter; upper-then-lower alone kept them apart.
    expect(collectParamValues({ "STRA\u1E9EE": "x" }, "straße").values).toEqual([
      { path: "STRA\u1E9EE", value: "x" },
    ]);
    expect(collectParamValues({ "stra\u00dfe": "y" }, "STRA\u1E9EE").values).toEqual([
      { path: "stra\u00dfe", value: "y" },
    ]);
  });

  test.each(["toString", "constructor", "__proto__", "hasOwnProperty"])(
    "collectParamValues() treats an inherited %s as absent",
    (key) => {
      expect(collectParamValues({}, key)).toEqual({ values: [], mismatches: [] });
      expect(collectParamValues({ a: {} }, `a.${key}`)).toEqual({ values: [], mismatches: [] });
    },
  );

  test("collectParamValues() reaches what the model does, with the path compiled and the argument keys shared by every path of one call", () => {
    const key = fc.constantFrom(...FOLDING_KEYS);
    const value: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.constantFrom<JsonValue>("x", 1, null, true),
        fc.array(tie("value"), { maxLength: 3 }),
        fc.dictionary(key, tie("value"), { maxKeys: 4 }),
      ),
    })).value;
    const args = fc.dictionary(key, value, { maxKeys: 6 }) as fc.Arbitrary<JsonObject>;
    const segment = fc.tuple(fc.constantFrom(...FOLDING_SEGMENTS), fc.integer({ min: 0, max: 2 }));
    const path = fc
      .array(segment, { minLength: 1, maxLength: 3 })
      .map((segments) => segments.map(([name, lists]) => `${name}${"[]".repeat(lists)}`).join("."));
    fc.assert(
      fc.property(args, fc.array(path, { minLength: 1, maxLength: 4 }), (call, paths) => {
        const keys = createArgumentKeys();
        for (const text of paths) {
          const expected = modelValues(call, text);
          expect(collectParamValues(call, text)).toEqual(expected);
          expect(collectParamValues(call, compileParamPath(text), keys)).toEqual(expected);
        }
      }),
      { numRuns: 1000 },
    );
  });

  test("compileParamPath() splits the path at dots, counts each key's [] and folds every key", () => {
    expect(compileParamPath("Files[][].PATH")).toEqual({
      text: "Files[][].PATH",
      folded: "files[][].path",
      segments: [
        { key: "Files", folded: "files", lists: 2 },
        { key: "PATH", folded: "path", lists: 0 },
      ],
    });
    expect(compileParamPath("\u212Aey").segments).toEqual([{ key: "\u212Aey", folded: "key", lists: 0 }]);
  });

  test("collectParamValues() reads an own __proto__ key", () => {
    const args = JSON.parse('{"__proto__": {"to": "x"}}') as JsonObject;
    expect(collectParamValues(args, "__proto__.to").values).toEqual([{ path: "__proto__.to", value: "x" }]);
  });
});

describe("foldKey()", () => {
  const fullFold = (key: string): string =>
    key.toLowerCase().toUpperCase().toLowerCase().replaceAll("\u0000", "");

  test("foldKey() equals the three-step fold on any key (its ASCII shortcut changes nothing)", () => {
    const letters = fc.constantFrom(
      "a",
      "Z",
      "s",
      "k",
      "\u0000",
      "\u017f",
      "\u212a",
      "\u1e9e",
      "\u00df",
      "\u0130",
      "_",
    );
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: letters })), (key) => {
        expect(foldKey(key)).toBe(fullFold(key));
      }),
      { numRuns: 2000 },
    );
  });

  test("foldKey() folds ASCII keys by lower-casing and drops NUL, and non-ASCII ones fully", () => {
    expect(foldKey("PaTh\u0000")).toBe("path");
    expect(foldKey("Meth\u017fod")).toBe("methsod");
    expect(foldKey("\u212aey")).toBe("key");
  });
});
