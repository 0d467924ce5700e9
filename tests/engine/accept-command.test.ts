import { describe, expect, test } from "bun:test";
import { acceptCommand, listCommand, shellWord } from "../../src/engine/index.ts";

describe("shellWord()", () => {
  test.each([
    ["a plain name as it is", "get_forecast", "get_forecast"],
    ["a name with spaces in single quotes", "get it", "'get it'"],
    ["a command substitution in single quotes (never run)", "$(rm -rf ~)", "'$(rm -rf ~)'"],
    ["a single quote closed, escaped and reopened", "it's", "'it'\\''s'"],
  ])("shellWord() writes %s", (_rule, value, word) => {
    expect(shellWord(value)).toBe(word);
  });

  test.each([
    ["a zero-width space", "a\u200bb"],
    ["a line feed", "a\nb"],
    ["an escape", "a\u001b[2J"],
    ["empty", ""],
  ])("shellWord() gives no word for %s", (_rule, value) => {
    expect(shellWord(value)).toBeUndefined();
  });
});

describe("acceptCommand()", () => {
  test("acceptCommand() names server, tool and the first 16 hex digits of the hash", () => {
    const hash = "0123456789abcdef".repeat(4);
    expect(acceptCommand("mail", { tool: "send", hash })).toBe(
      "bouncer pins accept mail send --hash 0123456789abcdef",
    );
    expect(acceptCommand("mail", { tool: "se\u200bnd", hash })).toBe(
      "bouncer pins accept mail --hash 0123456789abcdef",
    );
    expect(listCommand("my mail")).toBe("bouncer pins list 'my mail'");
  });

  test("acceptCommand() puts the flags first and -- before names that start with -, which would read as flags", () => {
    const hash = "0123456789abcdef".repeat(4);
    expect(acceptCommand("mail", { tool: "-v", hash })).toBe(
      "bouncer pins accept --hash 0123456789abcdef -- mail -v",
    );
    expect(acceptCommand("-srv", { tool: "get", hash, id: "0a1b2c3d" })).toBe(
      "bouncer pins accept --hash 0123456789abcdef --id 0a1b2c3d -- -srv get",
    );
    expect(listCommand("-srv", { full: true })).toBe("bouncer pins list --full -- -srv");
  });

  test("acceptCommand() names the identity with --id when one is given", () => {
    const hash = "0123456789abcdef".repeat(4);
    expect(acceptCommand("mail", { tool: "send", hash, id: "0a1b2c3d" })).toBe(
      "bouncer pins accept mail send --hash 0123456789abcdef --id 0a1b2c3d",
    );
  });
});
