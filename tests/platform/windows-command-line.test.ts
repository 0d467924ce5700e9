import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  cmdExeArguments,
  escapeCmdArgument,
  escapeCmdCommand,
} from "../../src/platform/windows-command-line.ts";
import { runShim } from "./cmd-exe-model.ts";

const NPX = "C:\\Program Files\\nodejs\\npx.cmd";
const GLOBAL_SHIM = "C:\\Users\\me\\AppData\\Roaming\\npm\\mcp-server.cmd";
const BIN_SHIM = "C:\\p\\node_modules\\.bin\\mcp-server.cmd";

describe("windows-command-line", () => {
  test.each([
    ["a plain word", "-y", '^"-y^"'],
    [
      "a path with a space (F09)",
      "C:\\Users\\me\\Documents\\Obsidian\\My Vault",
      '^"C:\\Users\\me\\Documents\\Obsidian\\My^ Vault^"',
    ],
    ["an ampersand", "a&b", '^"a^&b^"'],
    ["a caret", "x^y", '^"x^^y^"'],
    ["a percent sign", "100%", '^"100^%^"'],
    ["non-ASCII characters", "Café 日本", '^"Café^ 日本^"'],
    ["embedded quotes", 'say "hi"', '^"say^ \\^"hi\\^"^"'],
    ["a trailing backslash", "C:\\dir\\", '^"C:\\dir\\\\^"'],
    ["an empty argument", "", '^"^"'],
  ])("escapeCmdArgument() quotes and escapes %s", (_name, input, expected) => {
    expect(escapeCmdArgument(input)).toBe(expected);
  });

  test("escapeCmdArgument() escapes twice for a batch file that passes its arguments on", () => {
    expect(escapeCmdArgument("a&b", { doubleEscape: true })).toBe('^^^"a^^^&b^^^"');
  });

  test("escapeCmdCommand() escapes the space of C:\\Program Files without quotes", () => {
    expect(escapeCmdCommand(NPX)).toBe("C:\\Program^ Files\\nodejs\\npx.cmd");
  });

  test("cmdExeArguments() builds one /d /v:off /s /c line, every batch file's arguments escaped twice", () => {
    expect(cmdExeArguments(NPX, ["-y", "C:\\My Vault"])).toEqual([
      "/d",
      "/v:off",
      "/s",
      "/c",
      '"C:\\Program^ Files\\nodejs\\npx.cmd ^^^"-y^^^" ^^^"C:\\My^^^ Vault^^^""',
    ]);
    const [, , , , line] = cmdExeArguments(BIN_SHIM, ["a b"]);
    expect(line).toBe('"C:\\p\\node_modules\\.bin\\mcp-server.cmd ^^^"a^^^ b^^^""');
  });

  test("cmdExeArguments() puts a caret after each % so that no variable is expanded", () => {
    const [, , , , line] = cmdExeArguments(BIN_SHIM, ["%OS:Windows=x%"]);
    expect(line).toBe('"C:\\p\\node_modules\\.bin\\mcp-server.cmd ^^^"^^^%^OS:Windows=x^^^%^^^""');
  });
});

describe("cmdExeArguments() against a model of cmd.exe and a %* batch file", () => {
  test.each<[string, string, string]>([
    ["a JSON argument with & through npx.cmd", NPX, '{"url":"http://h/?a=1&b=2"}'],
    ["quotes and & through a global npm shim", GLOBAL_SHIM, 'say "hi" & bye'],
    ["a %NAME:a=b% substitution", BIN_SHIM, "%OS:Windows=x%"],
    ["a %NAME:~0,3% substring", NPX, "%OS:~0,3%"],
    ["a %NAME:*a=b% substitution", NPX, "x%OS:*W=q%y"],
    ["a %NAME% between text", GLOBAL_SHIM, "a%OS%b%PATH%"],
    ["!NAME! (delayed expansion)", NPX, "!OS!"],
    ["a caret before a quote", NPX, '^"&calc'],
  ])("cmdExeArguments() delivers %s intact", (_name, batch, argument) => {
    expect(runShim(cmdExeArguments(batch, [argument]), batch)).toEqual({
      kind: "argv",
      command: batch,
      argv: [argument],
    });
  });

  const alphabet = [...'ab "\\&|<>^%!(),;=*?é\tPATHOS:~0', "%OS%", "%A:~0,1%", "%A:1=2%", "!A!"];
  const argument = fc.array(fc.constantFrom(...alphabet), { maxLength: 9 }).map((parts) => parts.join(""));

  test.each<[string, string]>([
    ["a node_modules\\.bin shim", BIN_SHIM],
    ["npx.cmd of C:\\Program Files", NPX],
    ["a global npm shim", GLOBAL_SHIM],
  ])(
    "cmdExeArguments() delivers any two arguments intact through %s (property, 20,000 runs)",
    (_name, batch) => {
      fc.assert(
        fc.property(argument, argument, (a, b) => {
          const outcome = runShim(cmdExeArguments(batch, [a, b]), batch);
          expect(outcome).toEqual({ kind: "argv", command: batch, argv: [a, b] });
        }),
        { numRuns: 20000 },
      );
    },
  );
});
