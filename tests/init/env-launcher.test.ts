import { describe, expect, test } from "bun:test";
import { throughEnv } from "../../src/init/env-launcher.ts";

describe("throughEnv()", () => {
  test.each([
    ["a bare program", ["bouncer"], { launcher: { command: "bouncer", prefixArgs: [] } }],
    [
      "options, an option's value and assignments before it",
      ["-i", "-u", "HOME", "--chdir=/tmp", "A=1", "bun", "/x/src/cli.ts"],
      { launcher: { command: "bun", prefixArgs: ["/x/src/cli.ts"] } },
    ],
    [
      "a PATH assignment",
      ["PATH=/opt/bin", "--", "bouncer"],
      { launcher: { command: "bouncer", prefixArgs: [] }, path: "/opt/bin" },
    ],
    ["the end of options", ["--", "-weird"], { launcher: { command: "-weird", prefixArgs: [] } }],
  ] as const)("throughEnv() finds the program after %s", (_name, prefixArgs, expected) => {
    expect(throughEnv({ command: "/usr/bin/env", prefixArgs })).toEqual(expected);
  });

  test.each([
    ["a command that is not env", { command: "/usr/bin/bouncer", prefixArgs: ["x"] }],
    ["env with no program", { command: "env", prefixArgs: ["-i", "A=1"] }],
    ["a split string (-S)", { command: "/usr/bin/env", prefixArgs: ["-S", "bouncer --x"] }],
  ] as const)("throughEnv() leaves %s alone", (_name, launcher) => {
    expect(throughEnv(launcher)).toBeUndefined();
  });
});
