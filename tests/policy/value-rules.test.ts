import { describe, expect, test } from "bun:test";
import {
  isArgumentPath,
  isPathPrefix,
  isTildeUserPrefix,
  isTrustedDestination,
} from "../../src/policy/value-rules.ts";

describe("value grammars of policy strings (SPEC §2.4, §2.5, §4.2)", () => {
  test.each([
    ["to", true],
    ["message.to", true],
    ["files[].path", true],
    ["matrix[][]", true],
    ["", false],
    ["a..b", false],
    [".a", false],
    ["a[", false],
    ["a[0]", false],
    ["__proto__", false],
    ["a.constructor", false],
    ["prototype[]", false],
  ] as const)("isArgumentPath(%p) is %p", (path, expected) => {
    expect(isArgumentPath(path)).toBe(expected);
  });

  test.each([
    ["boss@corp.example", true],
    ["*@corp.example", true],
    ["*.corp.example", true],
    ["https://hooks.corp.example/bouncer/*", true],
    ["https://hooks.corp.example/*", true],
    ["+44 20 7946 0000", true],
    ["*", false],
    ["*@*", false],
    ["*.example", false],
    ["a*@corp.example", false],
    ["https://*.corp.example/*", false],
    ["https://hooks.corp.example/a*", false],
    ["   ", false],
  ] as const)("isTrustedDestination(%p) is %p", (entry, expected) => {
    expect(isTrustedDestination(entry)).toBe(expected);
  });

  test.each([
    ["./out", true],
    ["~/notes", true],
    ["/srv/data", true],
    ["$COMMAND_LINE_DIRS", true],
    ["$HOME/notes", false],
    ["", false],
  ] as const)("isPathPrefix(%p) is %p", (prefix, expected) => {
    expect(isPathPrefix(prefix)).toBe(expected);
  });

  test.each([
    ["~bob/notes", true],
    ["~bob", true],
    ["~~", true],
    ["~", false],
    ["~/notes", false],
    ["~\\notes", false],
    ["./~bob", false],
    ["/srv/~bob", false],
  ] as const)("isTildeUserPrefix(%p) is %p", (prefix, expected) => {
    expect(isTildeUserPrefix(prefix)).toBe(expected);
  });
});
