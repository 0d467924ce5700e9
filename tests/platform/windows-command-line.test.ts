import { describe, expect, test } from "bun:test";
import {
  cmdExeArguments,
  escapeCmdArgument,
  escapeCmdCommand,
} from "../../src/platform/windows-command-line.ts";

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

  test("escapeCmdArgument() escapes twice for npm command shims", () => {
    expect(escapeCmdArgument("a&b", { doubleEscape: true })).toBe('^^^"a^^^&b^^^"');
  });

  test("escapeCmdCommand() escapes the space of C:\\Program Files without quotes", () => {
    expect(escapeCmdCommand("C:\\Program Files\\nodejs\\npx.cmd")).toBe(
      "C:\\Program^ Files\\nodejs\\npx.cmd",
    );
  });

  test("cmdExeArguments() builds one /d /s /c command line with one escaped element per argument", () => {
    expect(
      cmdExeArguments("C:\\Program Files\\nodejs\\npx.cmd", [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "C:\\My Vault",
      ]),
    ).toEqual([
      "/d",
      "/s",
      "/c",
      '"C:\\Program^ Files\\nodejs\\npx.cmd ^"-y^" ^"@modelcontextprotocol/server-filesystem^" ^"C:\\My^ Vault^""',
    ]);
  });

  test("cmdExeArguments() double-escapes arguments of a node_modules/.bin shim", () => {
    const [, , , line] = cmdExeArguments("C:\\p\\node_modules\\.bin\\mcp-server.cmd", ["a b"]);
    expect(line).toBe('"C:\\p\\node_modules\\.bin\\mcp-server.cmd ^^^"a^^^ b^^^""');
  });
});
