import { describe, expect, test } from "bun:test";
import { parseWrappedArgs, wrapperArgs } from "../../src/init/wrapped-args.ts";
import { parseRunArgs } from "../../src/proxy/run-args.ts";

describe("wrapperArgs()", () => {
  test("wrapperArgs() puts the launcher prefix, run, the name and each policy before --", () => {
    expect(
      wrapperArgs(
        { command: "/bun", prefixArgs: ["/src/cli.ts"] },
        { name: "fs", policies: ["/a.yaml", "/b.yaml"] },
      ),
    ).toEqual([
      "/src/cli.ts",
      "run",
      "--upstream-name",
      "fs",
      "--policy",
      "/a.yaml",
      "--policy",
      "/b.yaml",
      "--",
    ]);
  });
});

describe("wrapperArgs() for names that look like flags", () => {
  test.each(["--mode", "--", "-x"])(
    "wrapperArgs() joins the name %p to its flag, and both readers agree",
    (name) => {
      const args = [...wrapperArgs({ command: "/b", prefixArgs: [] }, { name, policies: [] }), "npx"];
      expect(args).toEqual(["run", `--upstream-name=${name}`, "--", "npx"]);
      expect(parseWrappedArgs(args)?.upstreamName).toBe(name);
      expect(parseRunArgs(args.slice(1)).upstreamName).toBe(name);
    },
  );
});

describe("parseWrappedArgs()", () => {
  test.each([
    {
      name: "the dash form",
      args: ["run", "--upstream-name", "fs", "--", "npx", "-y", "pkg"],
      expected: {
        prefixArgs: [],
        upstreamName: "fs",
        policies: [],
        form: "dash",
        command: "npx",
        args: ["-y", "pkg"],
        dashIndex: 3,
      },
    },
    {
      name: "a source launcher prefix and policies (also --policy=FILE)",
      args: [
        "/src/cli.ts",
        "run",
        "--upstream-name",
        "fs",
        "--policy",
        "/a",
        "--policy=/b",
        "--mode",
        "audit",
        "--",
        "x",
      ],
      expected: {
        prefixArgs: ["/src/cli.ts"],
        upstreamName: "fs",
        policies: ["/a", "/b"],
        mode: "audit",
        form: "dash",
        command: "x",
        args: [],
        dashIndex: 9,
      },
    },
    {
      name: "the --config form (also --pins=off)",
      args: ["run", "--config", "/c.json", "--upstream-name", "fs", "--pins=off"],
      expected: {
        prefixArgs: [],
        upstreamName: "fs",
        policies: [],
        pins: "off",
        form: "config",
        command: "",
        args: [],
        dashIndex: -1,
      },
    },
  ])("parseWrappedArgs() recognises $name", ({ args, expected }) => {
    expect(parseWrappedArgs(args)).toEqual(expected as ReturnType<typeof parseWrappedArgs>);
  });

  test.each([
    ["an ordinary npm run", ["run", "start-stdio"]],
    ["run without --upstream-name", ["run", "--", "x"]],
    ["an unknown flag between run and --", ["run", "--upstream-name", "a", "--verbose", "--", "x"]],
    ["nothing after --", ["run", "--upstream-name", "a", "--"]],
    ["a missing flag value", ["run", "--upstream-name"]],
    ["no run at all", ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]],
  ])("parseWrappedArgs() does not take %s for a wrapped entry", (_, args) => {
    expect(parseWrappedArgs(args)).toBeUndefined();
  });
});
