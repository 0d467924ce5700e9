import { describe, expect, test } from "bun:test";
import type { ArgsDef } from "citty";
import { assertKnownArgs, repeatedFlag } from "../../src/platform/args.ts";
import { BouncerError, exitCodeFor } from "../../src/platform/errors.ts";

const ARGS = {
  session: { type: "positional", required: true },
  policy: { type: "string" },
  ask: { type: "enum", options: ["deny", "allow"] },
  json: { type: "boolean" },
  upstreamName: { type: "string", alias: ["u"] },
} as const satisfies ArgsDef;

function codeOf(run: () => void): string | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(BouncerError);
    return (error as BouncerError).code;
  }
  return undefined;
}

describe("assertKnownArgs()", () => {
  test.each<[string, readonly string[]]>([
    ["a positional and a boolean", ["s.jsonl", "--json"]],
    ["a string flag with a separate value", ["s.jsonl", "--policy", "p.yaml"]],
    ["a string flag with =value", ["s.jsonl", "--policy=p.yaml", "--policy=q.yaml"]],
    ["an enum flag", ["s.jsonl", "--ask", "allow"]],
    ["an enum flag with =value", ["s.jsonl", "--ask=deny"]],
    ["--json=false", ["s.jsonl", "--json=false"]],
    ["--no-json", ["s.jsonl", "--no-json"]],
    ["kebab and camel spellings", ["s.jsonl", "--upstream-name", "a", "--upstreamName", "b"]],
    ["an alias", ["s.jsonl", "-u", "a"]],
    ["--help and -h", ["s.jsonl", "--help", "-h"]],
    ["the positional after --", ["--", "s.jsonl"]],
    ["a flag-shaped positional after --", ["--json", "--", "--bogus"]],
    ["- as a value", ["-"]],
  ])("assertKnownArgs() accepts %s", (_name, argv) => {
    expect(codeOf(() => assertKnownArgs(argv, ARGS, { command: "bouncer replay" }))).toBeUndefined();
  });

  test.each<[string, readonly string[], string]>([
    ["an unknown long flag", ["s.jsonl", "--bogus"], "UNKNOWN_FLAG"],
    ["an unknown flag with a value", ["s.jsonl", "--bogus=1"], "UNKNOWN_FLAG"],
    ["an unknown short flag", ["s.jsonl", "-x"], "UNKNOWN_FLAG"],
    ["--no- on a string flag", ["s.jsonl", "--no-policy"], "UNKNOWN_FLAG"],
    ["a string flag at the end", ["s.jsonl", "--policy"], "MISSING_ARGUMENT"],
    ["a string flag followed by a flag", ["s.jsonl", "--policy", "--json"], "MISSING_ARGUMENT"],
    ["a value on a boolean flag", ["s.jsonl", "--json=yes"], "USAGE"],
    ["an extra positional", ["s.jsonl", "extra"], "USAGE"],
    ["a missing required positional", ["--json"], "MISSING_ARGUMENT"],
    ["an extra word after --", ["s.jsonl", "--", "x"], "USAGE"],
    ["extra words after -- and a positional", ["--", "s.jsonl", "--bogus", "y"], "USAGE"],
    ["a prototype-named flag", ["s.jsonl", "--constructor"], "UNKNOWN_FLAG"],
    ["an enum flag with another value", ["s.jsonl", "--ask", "maybe"], "USAGE"],
    ["an enum flag with another =value", ["s.jsonl", "--ask=Allow"], "USAGE"],
    ["an enum flag at the end", ["s.jsonl", "--ask"], "MISSING_ARGUMENT"],
    ["an empty string value", ["s.jsonl", "--policy", ""], "MISSING_ARGUMENT"],
    ["an empty string =value", ["s.jsonl", "--policy="], "MISSING_ARGUMENT"],
    ["an empty enum =value", ["s.jsonl", "--ask="], "MISSING_ARGUMENT"],
  ])("assertKnownArgs() rejects %s", (_name, argv, code) => {
    expect(codeOf(() => assertKnownArgs(argv, ARGS, { command: "bouncer replay" }))).toBe(code);
  });

  test("assertKnownArgs() names the flag and the help command in its message", () => {
    expect(() => assertKnownArgs(["s.jsonl", "--bogus"], ARGS, { command: "bouncer replay" })).toThrow(
      'Cannot run "bouncer replay": unknown flag "--bogus": run "bouncer replay --help" for the accepted flags',
    );
  });

  test("assertKnownArgs() suggests the closest flag for a misspelt one, and none for a word far from all", () => {
    expect(() =>
      assertKnownArgs(["s.jsonl", "--polcy", "p.yaml"], ARGS, { command: "bouncer replay" }),
    ).toThrow('unknown flag "--polcy" (did you mean "--policy"?)');
    expect(() => assertKnownArgs(["s.jsonl", "--zzzzzz"], ARGS, { command: "bouncer replay" })).toThrow(
      'unknown flag "--zzzzzz": run',
    );
  });

  test("assertKnownArgs() names an enum flag's accepted values, in the style of every other usage error", () => {
    expect(() => assertKnownArgs(["s.jsonl", "--ask", "maybe"], ARGS, { command: "bouncer replay" })).toThrow(
      'Cannot run "bouncer replay": flag "--ask" must be one of deny, allow, got "maybe": run "bouncer replay --help" for the accepted flags',
    );
  });

  test("assertKnownArgs() errors map to exit code 2", () => {
    let caught: unknown;
    try {
      assertKnownArgs(["--bogus"], {}, {});
    } catch (error) {
      caught = error;
    }
    expect(exitCodeFor(caught)).toBe(2);
  });

  test("assertKnownArgs() counts arguments after -- towards required positionals", () => {
    const run = { command: { type: "positional", required: true } } as const satisfies ArgsDef;
    expect(codeOf(() => assertKnownArgs(["--", "npx"], run, {}))).toBeUndefined();
  });

  test("assertKnownArgs() names the first word after -- beyond the declared positionals", () => {
    expect(() => assertKnownArgs(["s.jsonl", "--", "x", "y"], ARGS, { command: "bouncer replay" })).toThrow(
      'Cannot run "bouncer replay": unexpected argument "x"',
    );
  });

  test("assertKnownArgs() with passThrough leaves every word after -- alone (an upstream command line)", () => {
    const argv = ["--upstream-name", "fs", "--", "npx", "--bogus", "-y", "server"];
    expect(
      codeOf(() => assertKnownArgs(argv, { "upstream-name": { type: "string" } }, { passThrough: true })),
    ).toBeUndefined();
    expect(codeOf(() => assertKnownArgs(argv, { "upstream-name": { type: "string" } }, {}))).toBe("USAGE");
  });

  test("assertKnownArgs() with passThrough does not count the words after -- as the positional arguments", () => {
    const def = { tool: { type: "positional", required: true } } as const;
    expect(codeOf(() => assertKnownArgs(["--", "bun", "server.ts"], def, { passThrough: true }))).toBe(
      "MISSING_ARGUMENT",
    );
    expect(
      codeOf(() => assertKnownArgs(["t", "--", "bun", "server.ts"], def, { passThrough: true })),
    ).toBeUndefined();
  });
});

describe("repeatedFlag()", () => {
  test("repeatedFlag() collects every value in order, in both spellings", () => {
    expect(
      repeatedFlag(["--policy", "a.yaml", "x", "--policy=b.yaml", "--json", "--policy", "c.yaml"], "policy"),
    ).toEqual(["a.yaml", "b.yaml", "c.yaml"]);
  });

  test("repeatedFlag() stops at --", () => {
    expect(repeatedFlag(["--policy", "a.yaml", "--", "--policy", "b.yaml"], "policy")).toEqual(["a.yaml"]);
  });

  test("repeatedFlag() returns an empty list when the flag is absent", () => {
    expect(repeatedFlag(["s.jsonl", "--json"], "policy")).toEqual([]);
  });
});

describe("exitCodeFor()", () => {
  test.each<[string, unknown, 1 | 2]>([
    ["a usage error", new BouncerError("UNKNOWN_FLAG", "x"), 2],
    ["a policy error", new BouncerError("POLICY_INVALID", "x"), 2],
    ["any *_INVALID code", Object.assign(new SyntaxError("x"), { code: "CONFIG_INVALID" }), 2],
    ["a runtime error", new BouncerError("UPSTREAM_SPAWN_FAILED", "x"), 1],
    ["a plain error", new Error("x"), 1],
    ["a non-error", "x", 1],
  ])("exitCodeFor() maps %s to %d", (_name, error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });
});
