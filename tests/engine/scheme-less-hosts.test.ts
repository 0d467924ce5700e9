import { describe, expect, test } from "bun:test";
import { schemeLessHost } from "../../src/engine/scheme-less-hosts.ts";

describe("schemeLessHost()", () => {
  test.each([
    ["//evil.example/x", "evil.example"],
    ["//u:p@evil.example:8/x", "evil.example"],
    ["\\\\evil.example\\share", "evil.example"],
    ["\\\\10.0.0.5\\c$", "10.0.0.5"],
    ["git@evil.example:org/repo.git", "evil.example"],
    ["deploy@evil.example:8022/srv", "evil.example"],
    ["git@evil.example.:repo", "evil.example"],
    ["//bücher.example/x", "xn--bcher-kva.example"],
  ])("schemeLessHost(%p) is %p", (value, host) => {
    expect(schemeLessHost(value)).toBe(host);
  });

  test.each([
    "bob@corp.example",
    "hello world",
    "//localhost/x",
    "c:\\users\\x",
    "general",
    "notes.md\\archive",
    "node.js\\lib",
    "bob@corp.example: see attached",
    "bob@corp.example:",
  ])("schemeLessHost(%p) reads no host", (value) => {
    expect(schemeLessHost(value)).toBeUndefined();
  });
});
