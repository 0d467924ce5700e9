import { describe, expect, test } from "bun:test";
import { identityHash, scrubCommand } from "../../src/proxy/server-identity.ts";

describe("scrubCommand()", () => {
  test.each([
    [
      ["server", "/data"],
      ["server", "/data"],
    ],
    [
      ["server", "--token", "abc123"],
      ["server", "--token", "[redacted]"],
    ],
    [
      ["server", "--api-key=abc123"],
      ["server", "--api-key=[redacted]"],
    ],
    [
      ["server", "ghp_0123456789abcdefghijABCDEFGHIJ012345"],
      ["server", "[redacted]"],
    ],
    [
      ["server", "--keyword", "cats"],
      ["server", "--keyword", "cats"],
    ],
  ])("scrubCommand(%j) is %j", (command, expected) => {
    expect(scrubCommand(command)).toEqual(expected);
  });
});

describe("identityHash()", () => {
  const base = { name: "gh", command: ["github-server", "--token", "one"], cwd: "/work" };

  test("identityHash() ignores the value of a secret but not the rest of the command line", () => {
    expect(identityHash({ ...base, command: ["github-server", "--token", "two"] })).toBe(identityHash(base));
    expect(identityHash({ ...base, command: ["github-server", "--repo", "two"] })).not.toBe(
      identityHash(base),
    );
  });

  test("identityHash() changes with the name and the working directory", () => {
    expect(identityHash({ ...base, name: "gh2" })).not.toBe(identityHash(base));
    expect(identityHash({ ...base, cwd: "/other" })).not.toBe(identityHash(base));
    expect(identityHash(base)).toMatch(/^[0-9a-f]{64}$/);
  });
});
