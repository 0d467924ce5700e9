import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  type ContractResult,
  evaluateConstraints,
  type JsonObject,
  type JsonValue,
  type ToolRules,
} from "../../src/engine/index.ts";
import { makeInput, makeRules, patterns, sourced } from "./core-input.ts";

function codeOf(result: ContractResult): string | undefined {
  return result.denies[0]?.code ?? result.asks[0]?.reason.code;
}

const confined = makeRules({ writeParams: sourced(["path"]), allowedPathPrefixes: sourced(["./out"]) });

describe("evaluateConstraints() action", () => {
  test.each<[string, ToolRules["action"]["value"], string | undefined]>([
    ["action: deny blocks the tool outright", "deny", "action_denied"],
    ["action: ask asks on every call", "ask", "action_ask"],
    ["action: allow leaves the decision to the other rules", "allow", undefined],
  ])("evaluateConstraints() %s", (_rule, action, code) => {
    const result = evaluateConstraints(makeInput({ rules: makeRules({ action: sourced(action) }) }));
    expect(codeOf(result)).toBe(code);
  });

  test("evaluateConstraints() keys an action: ask question by its canonical arguments", () => {
    const rules = makeRules({ tool: "delete_repo", action: sourced("ask") });
    const result = evaluateConstraints(makeInput({ rules, arguments: { repo: "x", force: true } }));
    expect(result.asks[0]?.question.key).toEqual({
      server: "srv",
      tool: "delete_repo",
      param: "",
      identity: 'action:{"force":true,"repo":"x"}',
      subject: "tool",
    });
    expect(result.asks[0]?.question.kind).toBe("action");
  });

  test("evaluateConstraints() lists every argument of an action: ask on its own line, past a long one", () => {
    const rules = makeRules({ tool: "run_job", action: sourced("ask") });
    const args = { repo: "scratch-test", note: "n".repeat(190), also: "production-main" };
    const message = evaluateConstraints(makeInput({ rules, arguments: args })).asks[0]?.question.message;
    expect(message?.split("\n")).toEqual([
      'Run "run_job" on server "srv" with these arguments?',
      '  repo: "scratch-test"',
      `  note: "${"n".repeat(190)}"`,
      '  also: "production-main"',
    ]);
  });

  test("evaluateConstraints() lists nested arguments leaf by leaf, a long string over more lines", () => {
    const rules = makeRules({ tool: "run_job", action: sourced("ask") });
    const args = {
      options: { note: "x".repeat(250), target: "production" },
      repo: `scratch${" ".repeat(250)}production`,
      n: 5,
    };
    const lines =
      evaluateConstraints(makeInput({ rules, arguments: args })).asks[0]?.question.message.split("\n") ?? [];
    expect(lines.slice(1)).toEqual([
      `  options.note (250 characters): "${"x".repeat(250)}"`,
      '  options.target: "production"',
      `  repo (267 characters): "scratch${" ".repeat(193)}"`,
      `    "${" ".repeat(57)}production"`,
      "  n: 5",
    ]);
  });

  test("evaluateConstraints() lists every value of an action: ask up to 120, the 9th leaf of an argument included", () => {
    const rules = makeRules({ tool: "echo", action: sourced("ask") });
    const options = { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, target: "production" };
    const args = {
      text: "hello",
      options,
      padding: Array.from({ length: 40 }, () => 0),
      last: "DROP DATABASE prod",
    };
    const message =
      evaluateConstraints(makeInput({ rules, arguments: args })).asks[0]?.question.message ?? "";
    expect(message).toContain('  options.target: "production"');
    expect(message).toContain('  last: "DROP DATABASE prod"');
    expect(message).not.toContain("Not shown here");
  });

  test("evaluateConstraints() beyond 120 values gives every argument its share and says first how many are not shown", () => {
    const rules = makeRules({ tool: "echo", action: sourced("ask") });
    const args = { padding: Array.from({ length: 500 }, () => 0), text: "DROP DATABASE prod" };
    const lines =
      evaluateConstraints(makeInput({ rules, arguments: args })).asks[0]?.question.message.split("\n") ?? [];
    expect(lines[1]).toBe(
      "  Not shown here: 440 more values. Accepting approves the call with all its arguments, the parts not shown included.",
    );
    expect(lines).toContain('  text: "DROP DATABASE prod"');
    expect(lines).toHaveLength(2 + 60 + 1);
  });

  test("evaluateConstraints() names the action rule's source", () => {
    const rules = makeRules({ action: sourced("deny", "pack:github") });
    expect(evaluateConstraints(makeInput({ rules })).denies[0]?.source).toBe("pack:github");
  });
});

describe("evaluateConstraints() path confinement", () => {
  test.each<[string, JsonObject, string | undefined, string | undefined]>([
    ["allows a path inside the prefix", { path: "./out/a.txt" }, undefined, undefined],
    ["denies ./outside/x under ./out", { path: "./outside/x" }, "path_outside_prefixes", "path"],
    ["denies an absolute path outside", { path: "/etc/passwd" }, "path_outside_prefixes", "path"],
    ["checks each string of a list", { path: ["./out/a", "/etc/x"] }, "path_outside_prefixes", "path[1]"],
    ["allows a list of inside strings", { path: ["./out/a", "out/b"] }, undefined, undefined],
    ["denies a number", { path: 42 }, "path_wrong_type", "path"],
    ["denies an object", { path: { p: "./out/a" } }, "path_wrong_type", "path"],
    ["denies null", { path: null }, "path_wrong_type", "path"],
    ["denies a nested list", { path: [["./out/a"]] }, "path_wrong_type", "path[0]"],
    ["passes an absent argument", { other: "/etc/passwd" }, undefined, undefined],
    // A case-insensitive decoder (Go, .NET) reads `Path` or `PATH` as `path`, often the last one given.
    [
      "checks a spelling of the argument in another case",
      { path: "./out/a", Path: "/etc/x" },
      "path_outside_prefixes",
      "Path",
    ],
    ["checks an argument given only in another case", { PATH: "/etc/x" }, "path_outside_prefixes", "PATH"],
    ["denies a ~user value as invalid", { path: "~root/x" }, "path_invalid", "path"],
    ["denies a file: value without a / as invalid", { path: "file:etc/passwd" }, "path_invalid", "path"],
    [
      "denies an encoded file URI escape as invalid",
      { path: "file:///work/out/..%2F..%2Fetc" },
      "path_invalid",
      "path",
    ],
  ])("evaluateConstraints() %s", (_rule, args, code, path) => {
    const result = evaluateConstraints(makeInput({ rules: confined, arguments: args }));
    expect(codeOf(result)).toBe(code);
    expect(result.denies[0]?.path).toBe(path);
  });

  test.each<[string, Partial<ToolRules>]>([
    [
      "does not apply with empty prefixes",
      { writeParams: sourced(["path"]), allowedPathPrefixes: sourced([]) },
    ],
    ["does not apply without write_params", { allowedPathPrefixes: sourced(["./out"]) }],
    ["does not apply without prefixes", { writeParams: sourced(["path"]) }],
  ])("evaluateConstraints() path confinement %s", (_rule, overrides) => {
    const input = makeInput({ rules: makeRules(overrides), arguments: { path: "/etc/passwd" } });
    expect(evaluateConstraints(input).denies).toEqual([]);
  });

  test("evaluateConstraints() denies a nested write_params path beside an argument named like the dotted path", () => {
    const rules = makeRules({ writeParams: sourced(["opts.path"]), allowedPathPrefixes: sourced(["./out"]) });
    const args: JsonObject = { "opts.path": "./out/decoy", opts: { path: "/etc/passwd" } };
    const result = evaluateConstraints(makeInput({ rules, arguments: args }));
    expect(codeOf(result)).toBe("path_outside_prefixes");
  });

  const files = makeRules({
    writeParams: sourced(["files[].path"]),
    allowedPathPrefixes: sourced(["./out"]),
  });

  test.each<[string, JsonObject, string | undefined, string | undefined]>([
    [
      "reaches into lists and objects",
      { files: [{ path: "./out/a" }, { path: "/etc/x" }] },
      "path_outside_prefixes",
      "files[1].path",
    ],
    [
      "allows every element inside",
      { files: [{ path: "./out/a" }, { path: "./out/b" }] },
      undefined,
      undefined,
    ],
    ["passes an element without the key", { files: [{ content: "x" }] }, undefined, undefined],
    ["denies an object where a list belongs", { files: { path: "/etc/x" } }, "path_wrong_type", "files"],
    ["denies a string element where an object belongs", { files: ["/etc/x"] }, "path_wrong_type", "files[0]"],
  ])("evaluateConstraints() write_params files[].path %s", (_rule, args, code, path) => {
    const result = evaluateConstraints(makeInput({ rules: files, arguments: args }));
    expect(codeOf(result)).toBe(code);
    expect(result.denies[0]?.path).toBe(path);
  });

  test("evaluateConstraints() denies a symlink that the resolver shows leaving the prefix", () => {
    const resolve = (p: string): readonly string[] => (p === "/work/out/link" ? [p, "/etc/shadow"] : [p]);
    const input = makeInput({
      rules: confined,
      arguments: { path: "out/link" },
      paths: { cwd: "/work", home: "/home/u", platform: "posix", resolve },
    });
    const reason = evaluateConstraints(input).denies[0];
    expect(reason?.code).toBe("path_outside_prefixes");
    expect(reason?.message).toContain('resolves to "/etc/shadow"');
  });

  test("evaluateConstraints() names the base a relative value leaves the prefixes under", () => {
    const paths = {
      cwd: "/work",
      home: "/home/u",
      platform: "posix" as const,
      relativeBases: [
        { dir: "/work/out", from: "command_line" as const },
        { dir: "file:///srv", from: "client_root" as const },
      ],
    };
    const denial = (path: string): string | undefined =>
      evaluateConstraints(makeInput({ rules: confined, arguments: { path }, paths })).denies[0]?.message;
    expect(denial("out/x")).toBe(
      'Argument "path" = "out/x" is outside allowed_path_prefixes ["./out"] resolved against the root "file:///srv" the client gave the upstream (it resolves to "/srv/out/x")',
    );
    const under = { ...paths, relativeBases: [{ dir: "/data", from: "command_line" as const }] };
    const reason = evaluateConstraints(
      makeInput({ rules: confined, arguments: { path: "out/x" }, paths: under }),
    ).denies[0];
    expect(reason?.code).toBe("path_outside_prefixes");
    expect(reason?.message).toContain(
      'resolved against the directory "/data" on the upstream\'s command line',
    );
    expect(denial("/work/out/x")).toBeUndefined();
  });

  test("evaluateConstraints() names a file: value's reading as a relative path when that reading leaves the prefixes", () => {
    const paths = { cwd: "/work", home: "/home/u", platform: "posix" as const };
    const denial = (path: string): string | undefined =>
      evaluateConstraints(makeInput({ rules: confined, arguments: { path }, paths })).denies[0]?.message;
    expect(denial("file:///work/out/x")).toBe(
      'Argument "path" = "file:///work/out/x" read as a relative path is outside allowed_path_prefixes ["./out"] (it resolves to "/work/file:/work/out/x")',
    );
    const absolute = makeRules({
      writeParams: sourced(["path"]),
      allowedPathPrefixes: sourced(["/work/out"]),
    });
    const under = {
      ...paths,
      cwd: "/work/out",
      relativeBases: [{ dir: "/data", from: "command_line" as const }],
    };
    const reason = evaluateConstraints(
      makeInput({ rules: absolute, arguments: { path: "file:///work/out/x" }, paths: under }),
    ).denies[0];
    expect(reason?.message).toBe(
      'Argument "path" = "file:///work/out/x" read as a relative path is outside allowed_path_prefixes ["/work/out"] resolved against the directory "/data" on the upstream\'s command line (it resolves to "/data/file:/work/out/x")',
    );
  });

  test("evaluateConstraints() denies when the resolver throws", () => {
    const resolve = (): readonly string[] => {
      throw new Error("ELOOP");
    };
    const input = makeInput({
      rules: confined,
      arguments: { path: "out/a" },
      paths: { cwd: "/work", home: "/home/u", platform: "posix", resolve },
    });
    expect(evaluateConstraints(input).denies[0]?.code).toBe("path_invalid");
  });

  test("evaluateConstraints() renders the value safely in the reason", () => {
    const input = makeInput({ rules: confined, arguments: { path: `/etc/\u200b${"x".repeat(300)}` } });
    const message = evaluateConstraints(input).denies[0]?.message ?? "";
    expect(message).toContain("\\u{200b}");
    expect(message).toContain("…");
    expect(message).toContain("allowed_path_prefixes");
  });

  test("evaluateConstraints() shows a write_params path spelled with non-ASCII letters escaped (SPEC §3.4)", () => {
    // The long s `ſ` folds to `s`: `ſink` reaches write_params "sink".
    const rules = makeRules({ writeParams: sourced(["sink"]), allowedPathPrefixes: sourced(["./out"]) });
    const outside = evaluateConstraints(makeInput({ rules, arguments: { "\u017Fink": ["/etc/x"] } }));
    expect(outside.denies[0]?.message).toBe(
      'Argument "\\u{17f}ink[0]" = "/etc/x" is outside allowed_path_prefixes ["./out"]',
    );
    const wrongType = evaluateConstraints(makeInput({ rules, arguments: { "\u017Fink": [5] } }));
    expect(wrongType.denies[0]?.message).toStartWith('Argument "\\u{17f}ink[0]" must be a string');
  });
});

describe("evaluateConstraints() arg_patterns", () => {
  const big = "a".repeat(64 * 1024);
  test.each<[string, Record<string, string>, JsonObject, string | undefined]>([
    ["allows a whole match", { mode: "read|write" }, { mode: "read" }, undefined],
    ["denies a partial match (anchored)", { mode: "read|write" }, { mode: "readx" }, "pattern_mismatch"],
    ["denies an empty string that does not match", { mode: "read|write" }, { mode: "" }, "pattern_mismatch"],
    ["matches numbers as JSON text", { n: "\\d+" }, { n: 42 }, undefined],
    ["denies a number whose JSON text does not match", { n: "\\d+" }, { n: 4.5 }, "pattern_mismatch"],
    ["matches booleans as JSON text", { b: "true|false" }, { b: true }, undefined],
    ["matches lists element by element", { mode: "read|write" }, { mode: ["read", "write"] }, undefined],
    [
      "denies a list with one bad element",
      { mode: "read|write" },
      { mode: ["read", "delete"] },
      "pattern_mismatch",
    ],
    ["denies an object", { mode: ".*" }, { mode: { a: "read" } }, "pattern_wrong_type"],
    ["passes an absent argument", { mode: "read" }, { other: "x" }, undefined],
    [
      "denies null, even where the pattern matches its JSON text",
      { mode: "null|read" },
      { mode: null },
      "pattern_wrong_type",
    ],
    ["denies null inside a list", { mode: ".*" }, { mode: ["read", null] }, "pattern_wrong_type"],
    ["passes an empty list (each of its no elements matches)", { mode: "read" }, { mode: [] }, undefined],
    ["matches Unicode classes", { name: "\\p{L}+" }, { name: "Zoë" }, undefined],
    ["allows a value of exactly 64 KiB", { s: ".*" }, { s: big }, undefined],
    ["denies a value over 64 KiB", { s: ".*" }, { s: `${big}a` }, "pattern_value_too_large"],
    [
      "counts UTF-8 bytes for the 64 KiB limit",
      { s: ".*" },
      { s: "é".repeat(32 * 1024 + 1) },
      "pattern_value_too_large",
    ],
    ["reaches dotted paths", { "opts.mode": "read" }, { opts: { mode: "write" } }, "pattern_mismatch"],
    ["checks an argument given in another case", { mode: "read" }, { Mode: "write" }, "pattern_mismatch"],
    [
      "checks a nested key given in another case",
      { "opts.mode": "read" },
      { OPTS: { mOdE: "write" } },
      "pattern_mismatch",
    ],
  ])("evaluateConstraints() arg_patterns %s", (_rule, map, args, code) => {
    const input = makeInput({ rules: makeRules({ argPatterns: patterns(map) }), arguments: args });
    expect(codeOf(evaluateConstraints(input))).toBe(code);
  });

  test("evaluateConstraints() names the pattern as written, a backslash as one backslash", () => {
    const rules = makeRules({ argPatterns: patterns({ host: "a\\.example" }) });
    const reason = evaluateConstraints(makeInput({ rules, arguments: { host: "axexample" } })).denies[0];
    expect(reason?.message).toBe('Argument "host" = "axexample" does not match arg_patterns "a\\.example"');
  });

  test("evaluateConstraints() shows an argument path spelled with non-ASCII letters escaped (SPEC §3.4)", () => {
    // The Kelvin sign folds to `k`: the agent's spelling reaches the rule for `kind`, and is shown as
    // it is written, not as a look-alike "Kind".
    const rules = makeRules({ argPatterns: patterns({ kind: "read" }) });
    const reason = evaluateConstraints(makeInput({ rules, arguments: { "\u212Aind": "write" } })).denies[0];
    expect(reason?.message).toBe('Argument "\\u{212a}ind" = "write" does not match arg_patterns "read"');
    expect(reason?.path).toBe("\u212Aind");
    const wrongType = evaluateConstraints(makeInput({ rules, arguments: { "\u212Aind": null } })).denies[0];
    expect(wrongType?.message).toStartWith('Argument "\\u{212a}ind" holds null');
  });

  test("evaluateConstraints() says why null is refused", () => {
    const rules = makeRules({ argPatterns: patterns({ text: ".*" }) });
    const reason = evaluateConstraints(makeInput({ rules, arguments: { text: null } })).denies[0];
    expect(reason?.message).toStartWith('Argument "text" holds null, which arg_patterns ');
    expect(reason?.message).toEndWith(
      "cannot match (a pattern matches strings, numbers, booleans and lists of them)",
    );
  });

  test("evaluateConstraints() requires a whole match even from an unanchored compiled pattern", () => {
    const rules = makeRules({ argPatterns: sourced(new Map([["mode", /read/gu]])) });
    expect(codeOf(evaluateConstraints(makeInput({ rules, arguments: { mode: "readx" } })))).toBe(
      "pattern_mismatch",
    );
    expect(codeOf(evaluateConstraints(makeInput({ rules, arguments: { mode: "read" } })))).toBeUndefined();
    expect(codeOf(evaluateConstraints(makeInput({ rules, arguments: { mode: "read" } })))).toBeUndefined();
  });
});

describe("evaluateConstraints() order and hostile keys", () => {
  test("evaluateConstraints() gives the first failing constraint's reason (path before pattern)", () => {
    const rules = makeRules({ ...confined, argPatterns: patterns({ mode: "read" }) });
    const result = evaluateConstraints(makeInput({ rules, arguments: { path: "/etc/x", mode: "delete" } }));
    expect(result.denies.map((r) => r.code)).toEqual(["path_outside_prefixes"]);
  });

  test("evaluateConstraints() denies rather than asks when action: ask meets a failing path", () => {
    const rules = makeRules({ ...confined, action: sourced("ask") });
    const result = evaluateConstraints(makeInput({ rules, arguments: { path: "/etc/x" } }));
    expect(result.asks).toEqual([]);
    expect(result.denies[0]?.code).toBe("path_outside_prefixes");
  });

  test("evaluateConstraints() finds an own __proto__ argument", () => {
    const args = JSON.parse('{"__proto__": "/etc/passwd"}') as JsonObject;
    const rules = makeRules({ writeParams: sourced(["__proto__"]), allowedPathPrefixes: sourced(["./out"]) });
    expect(evaluateConstraints(makeInput({ rules, arguments: args })).denies[0]?.code).toBe(
      "path_outside_prefixes",
    );
  });

  test.each(["toString", "constructor", "hasOwnProperty", "valueOf"])(
    "evaluateConstraints() treats %s as absent when the call does not send it",
    (key) => {
      const rules = makeRules({
        writeParams: sourced([key]),
        allowedPathPrefixes: sourced(["./out"]),
        argPatterns: patterns({ [key]: "x" }),
      });
      expect(evaluateConstraints(makeInput({ rules, arguments: {} }))).toEqual({ denies: [], asks: [] });
    },
  );
});

describe("evaluateConstraints() properties", () => {
  const json: fc.Arbitrary<JsonValue> = fc.jsonValue() as fc.Arbitrary<JsonValue>;
  const rules = makeRules({ ...confined, argPatterns: patterns({ mode: "read|write", n: "\\d{1,3}" }) });

  test("evaluateConstraints() never turns a denied call into an allowed one when arguments are added (property)", () => {
    fc.assert(
      fc.property(
        fc.record({ path: json, mode: json, n: json }, { requiredKeys: [] }),
        fc.dictionary(fc.string(), json),
        (base, extra) => {
          const args = base as JsonObject;
          fc.pre(evaluateConstraints(makeInput({ rules, arguments: args })).denies.length > 0);
          const added: JsonObject = { ...args };
          for (const [key, value] of Object.entries(extra)) {
            if (!Object.hasOwn(added, key)) Object.defineProperty(added, key, { value, enumerable: true });
          }
          return evaluateConstraints(makeInput({ rules, arguments: added })).denies.length > 0;
        },
      ),
    );
  });
});

describe("evaluateConstraints() and Bouncer's own files", () => {
  const paths = {
    cwd: "/home/u",
    home: "/home/u",
    platform: "posix" as const,
    protectedPaths: ["/home/u/.bouncer"],
  };
  const pinFile = "/home/u/.bouncer/pins/abc.json";

  test("evaluateConstraints() denies a write into Bouncer's home that the prefixes allow", () => {
    const rules = makeRules({ writeParams: sourced(["path"]), allowedPathPrefixes: sourced(["/home/u"]) });
    const result = evaluateConstraints(makeInput({ rules, paths, arguments: { path: pinFile } }));
    expect(result.denies[0]).toMatchObject({ code: "path_protected", path: "path", source: "default" });
    expect(result.denies[0]?.message).toContain("reaches Bouncer's own files");
  });

  test("evaluateConstraints() denies a write into Bouncer's home with no prefixes set", () => {
    const rules = makeRules({ writeParams: sourced(["source", "destination"]) });
    const args = { source: pinFile, destination: "/home/u/moved.json" };
    const result = evaluateConstraints(makeInput({ rules, paths, arguments: args }));
    expect(codeOf(result)).toBe("path_protected");
  });

  test("evaluateConstraints() checks every element of a list of paths against Bouncer's files", () => {
    const rules = makeRules({ writeParams: sourced(["paths"]) });
    const args = { paths: ["/home/u/a.txt", pinFile] };
    const result = evaluateConstraints(makeInput({ rules, paths, arguments: args }));
    expect(result.denies[0]?.path).toBe("paths[1]");
  });

  test("evaluateConstraints() leaves a value that is no path alone when no prefixes are set", () => {
    const rules = makeRules({ writeParams: sourced(["path"]) });
    const result = evaluateConstraints(makeInput({ rules, paths, arguments: { path: 42 } }));
    expect(result).toEqual({ denies: [], asks: [] });
  });

  test.each<[string, string[], JsonObject]>([
    ["an object where a list was declared", ["files[].path"], { files: { path: pinFile } }],
    ["a nested list", ["path"], { path: [[pinFile]] }],
    ["an object", ["path"], { path: { p: pinFile } }],
    ["a string where a list was declared", ["files[].path"], { files: pinFile }],
  ])(
    "evaluateConstraints() with no prefixes denies a path to Bouncer's files inside %s",
    (_what, params, args) => {
      const rules = makeRules({ writeParams: sourced(params) });
      const result = evaluateConstraints(makeInput({ rules, paths, arguments: args }));
      expect(codeOf(result)).toBe("path_protected");
    },
  );

  test("evaluateConstraints() with no prefixes leaves an object of other paths alone", () => {
    const rules = makeRules({ writeParams: sourced(["path"]) });
    const result = evaluateConstraints(
      makeInput({ rules, paths, arguments: { path: { p: "/home/u/a.txt" } } }),
    );
    expect(result).toEqual({ denies: [], asks: [] });
  });

  test("evaluateConstraints() allows a write outside Bouncer's files", () => {
    const rules = makeRules({ writeParams: sourced(["path"]), allowedPathPrefixes: sourced(["/home/u"]) });
    const result = evaluateConstraints(
      makeInput({ rules, paths, arguments: { path: "/home/u/notes/a.md" } }),
    );
    expect(result).toEqual({ denies: [], asks: [] });
  });

  test("evaluateConstraints() keeps the prefix deny for a value outside the prefixes and inside Bouncer's home", () => {
    const rules = makeRules({ writeParams: sourced(["path"]), allowedPathPrefixes: sourced(["/srv"]) });
    const result = evaluateConstraints(makeInput({ rules, paths, arguments: { path: pinFile } }));
    expect(codeOf(result)).toBe("path_outside_prefixes");
  });
});
