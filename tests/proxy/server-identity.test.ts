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

describe("identity recipe 1", () => {
  // The hash names a server's pin file: a rule that changes it gives existing servers new, empty
  // pins (their tools pinned again on first sight, a change since then accepted unseen). These are
  // the hashes of recipe 1 as first released; a new recipe needs a new IDENTITY_VERSION.
  test.each([
    [
      [
        "npx",
        "oauth-mcp",
        "--jwt-issuer",
        "https://a.example.com",
        "--recovery-code-file",
        "/x/y.txt",
        "--bearer",
        "b1",
        "--jwt=j1",
        "--seed-phrase",
        "s1",
      ],
      "316f7aa2ae22b9a62835cc791fa8c979e095f9c2daea2aabb4f9f53c12c70959",
    ],
    [
      ["npx", "srv", "--otp", "123456", "--pin", "1234", "--token", "t", "--api-key=k", "--db-pass", "p"],
      "ce11201b4f0bfc86469514152ace8923e82b42477ba460032e3c1b7a7a6271f8",
    ],
  ])("identityHash() of %j is what recipe 1 made", (command, hash) => {
    expect(identityHash({ name: "x", command, cwd: "/w" })).toBe(hash);
  });

  test("scrubCommand() keeps what only the audit log's later rules call secret (--bearer, --jwt, --seed-phrase)", () => {
    expect(scrubCommand(["srv", "--bearer", "b1", "--seed-phrase", "s1", "--token", "t"])).toEqual([
      "srv",
      "--bearer",
      "b1",
      "--seed-phrase",
      "s1",
      "--token",
      "[redacted]",
    ]);
  });
});
