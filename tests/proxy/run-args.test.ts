import { describe, expect, test } from "bun:test";
import { isBouncerError } from "../../src/platform/errors.ts";
import { parseRunArgs } from "../../src/proxy/run-args.ts";

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isBouncerError(error) ? error.code : "not a BouncerError";
  }
  return undefined;
}

describe("parseRunArgs", () => {
  test("parseRunArgs() reads every flag and the command after --", () => {
    expect(
      parseRunArgs([
        "--upstream-name",
        "fs",
        "--policy",
        "a.yaml",
        "--policy=b.yaml",
        "--audit-log",
        "/tmp/a.jsonl",
        "--record=/tmp/s.jsonl",
        "--pins",
        "strict",
        "--mode",
        "audit",
        "--ask-timeout",
        "90.5",
        "--max-asks",
        "0",
        "--human-min-ms",
        "0",
        "--unknown-methods",
        "deny",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "--policy",
        "/data dir",
      ]),
    ).toEqual({
      upstreamName: "fs",
      policies: ["a.yaml", "b.yaml"],
      auditLog: "/tmp/a.jsonl",
      record: "/tmp/s.jsonl",
      pins: "strict",
      mode: "audit",
      askTimeoutSeconds: 90.5,
      maxAsks: 0,
      humanMinMs: 0,
      unknownMethods: "deny",
      command: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "--policy", "/data dir"],
    });
  });

  test("parseRunArgs() applies the defaults of SPEC §3.4 and §5.1", () => {
    expect(parseRunArgs(["--upstream-name", "x", "--", "srv"])).toEqual({
      upstreamName: "x",
      policies: [],
      pins: "tofu",
      mode: "enforce",
      askTimeoutSeconds: 600,
      maxAsks: 20,
      humanMinMs: 300,
      unknownMethods: "relay",
      command: ["srv"],
    });
  });

  test("parseRunArgs() accepts the --config form", () => {
    expect(parseRunArgs(["--config", "~/.cursor/mcp.json", "--upstream-name", "github"])).toMatchObject({
      config: "~/.cursor/mcp.json",
      upstreamName: "github",
    });
  });

  test.each([
    ["an unknown flag", ["--upstream-name", "x", "--polcy", "p", "--", "srv"], "UNKNOWN_FLAG"],
    ["a flag without value", ["--upstream-name", "x", "--policy", "--", "srv"], "MISSING_ARGUMENT"],
    ["no --upstream-name", ["--", "srv"], "MISSING_ARGUMENT"],
    ["no command and no --config", ["--upstream-name", "x"], "MISSING_ARGUMENT"],
    ["an empty command", ["--upstream-name", "x", "--"], "MISSING_ARGUMENT"],
    ["both --config and a command", ["--upstream-name", "x", "--config", "c.json", "--", "srv"], "USAGE"],
    ["a stray positional", ["--upstream-name", "x", "srv"], "USAGE"],
    ["a bad --pins", ["--upstream-name", "x", "--pins", "trust", "--", "srv"], "USAGE"],
    ["a bad --mode", ["--upstream-name", "x", "--mode", "off", "--", "srv"], "USAGE"],
    ["a bad --unknown-methods", ["--upstream-name", "x", "--unknown-methods", "drop", "--", "srv"], "USAGE"],
    ["a zero --ask-timeout", ["--upstream-name", "x", "--ask-timeout", "0", "--", "srv"], "USAGE"],
    ["a negative --max-asks", ["--upstream-name", "x", "--max-asks", "-1", "--", "srv"], "USAGE"],
    ["a fractional --max-asks", ["--upstream-name", "x", "--max-asks", "2.5", "--", "srv"], "USAGE"],
    ["a word for --human-min-ms", ["--upstream-name", "x", "--human-min-ms", "fast", "--", "srv"], "USAGE"],
    ["an empty --audit-log", ["--upstream-name", "x", "--audit-log", "", "--", "srv"], "MISSING_ARGUMENT"],
    ["an empty --record", ["--upstream-name", "x", "--record=", "--", "srv"], "MISSING_ARGUMENT"],
    [
      "--mode given twice",
      ["--upstream-name", "x", "--mode", "audit", "--mode", "enforce", "--", "srv"],
      "USAGE",
    ],
  ] as const)("parseRunArgs() refuses %s (exit 2)", (_name, args, code) => {
    expect(codeOf(() => parseRunArgs(args))).toBe(code);
  });

  test("parseRunArgs() says an empty --upstream-name is empty, not missing", () => {
    expect(() => parseRunArgs(["--upstream-name", " ", "--", "srv"])).toThrow(
      'flag "--upstream-name" needs a name, not an empty value',
    );
    expect(() => parseRunArgs(["--", "srv"])).toThrow('flag "--upstream-name" is required');
  });
});
