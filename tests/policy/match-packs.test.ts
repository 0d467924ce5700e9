import { describe, expect, test } from "bun:test";
import {
  commandLineDirectories,
  globMatches,
  matchPacks,
  type Pack,
  parsePack,
} from "../../src/policy/index.ts";

const FS = parsePack(
  `match:
  commands: ["@modelcontextprotocol/server-filesystem", "mcp-server-filesystem", "mcp/filesystem"]
  server_names: ["secure-filesystem-server"]
  upstream_names: ["fs", "files*"]
`,
  "filesystem",
);
const GITHUB = parsePack(
  `match:
  commands: ["ghcr.io/github/github-mcp-server", "@modelcontextprotocol/server-github"]
  server_names: ["github-mcp-server"]
  upstream_names: ["github", "*github*"]
`,
  "github",
);
const PACKS: readonly Pack[] = [FS, GITHUB];

describe("matchPacks() (SPEC §4.3 match:)", () => {
  test.each([
    [
      "npx with the package",
      ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"],
      "filesystem",
      2,
    ],
    [
      "npx with a pinned version",
      ["npx", "@modelcontextprotocol/server-filesystem@2026.8.31", "/d"],
      "filesystem",
      1,
    ],
    ["the bin in node_modules", ["node_modules/.bin/mcp-server-filesystem", "/tmp/x"], "filesystem", 0],
    [
      "node on the package's script",
      ["node", "/opt/app/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "/d"],
      "filesystem",
      1,
    ],
    ["a Windows .cmd shim", ["C:\\npm\\mcp-server-filesystem.cmd", "C:\\data"], "filesystem", 0],
    [
      "a Docker image with a tag",
      ["docker", "run", "-i", "--rm", "mcp/filesystem:latest", "/projects"],
      "filesystem",
      4,
    ],
    [
      "a Docker image by digest",
      ["docker", "run", "-i", "ghcr.io/github/github-mcp-server@sha256:abc123"],
      "github",
      3,
    ],
    ["the package in other case", ["npx", "@ModelContextProtocol/Server-GitHub"], "github", 1],
  ])("matchPacks() matches %s by command", (_name, command, pack, index) => {
    const matched = matchPacks(PACKS, { command, upstreamName: "whatever" });
    expect(matched.map((m) => m.pack.name)).toEqual([pack]);
    expect(matched[0]?.by).toBe("command");
    expect(matched[0]?.commandIndex).toBe(index);
  });

  test("matchPacks() matches by serverInfo.name", () => {
    const matched = matchPacks(PACKS, {
      command: ["./my-server"],
      serverInfoName: "github-mcp-server",
      upstreamName: "x",
    });
    expect(matched.map((m) => [m.pack.name, m.by, m.value])).toEqual([
      ["github", "server_name", "github-mcp-server"],
    ]);
  });

  test("matchPacks() falls back to the upstream name only when nothing else matched", () => {
    expect(matchPacks(PACKS, { command: ["./custom"], upstreamName: "my-github" }).map((m) => m.by)).toEqual([
      "upstream_name",
    ]);
    const both = matchPacks(PACKS, {
      command: ["npx", "@modelcontextprotocol/server-filesystem"],
      upstreamName: "github",
    });
    expect(both.map((m) => m.pack.name)).toEqual(["filesystem"]);
  });

  test("matchPacks() keeps the packs' order when several match", () => {
    const matched = matchPacks([GITHUB, FS], {
      command: ["x", "mcp-server-filesystem", "@modelcontextprotocol/server-github"],
      upstreamName: "x",
    });
    expect(matched.map((m) => m.pack.name)).toEqual(["github", "filesystem"]);
  });

  test("matchPacks() matches nothing for an unknown server", () => {
    expect(matchPacks(PACKS, { command: ["python", "server.py"], upstreamName: "notes" })).toEqual([]);
  });

  test("matchPacks() does not match a package name that merely contains a pattern", () => {
    expect(
      matchPacks(PACKS, { command: ["npx", "@evil/server-filesystem-plus"], upstreamName: "x" }),
    ).toEqual([]);
  });
});

describe("globMatches()", () => {
  test.each([
    ["*github*", "my-github-server", true],
    ["github", "GitHub", true],
    ["github", "github2", false],
    ["a.b", "axb", false],
    ["files*", "files-home", true],
  ] as const)("globMatches(%p, %p) is %p", (pattern, value, expected) => {
    expect(globMatches(pattern, value)).toBe(expected);
  });
});

describe("commandLineDirectories() (SPEC §4.3 filesystem confinement)", () => {
  test("commandLineDirectories() takes the non-flag arguments after the matched package", () => {
    expect(
      commandLineDirectories(
        ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data", "--x", "./notes"],
        {
          after: 2,
        },
      ),
    ).toEqual(["/data", "./notes"]);
  });

  test("commandLineDirectories() without a matched token takes the path-shaped arguments that are not scripts", () => {
    expect(
      commandLineDirectories([
        "node",
        "/opt/srv/dist/index.js",
        "/data",
        "~/docs",
        "C:\\work",
        "verbose",
        "-v",
        ".",
      ]),
    ).toEqual(["/data", "~/docs", "C:\\work", "."]);
  });

  test("commandLineDirectories() finds nothing when the command line names no directory", () => {
    expect(commandLineDirectories(["npx", "@modelcontextprotocol/server-filesystem"], { after: 1 })).toEqual(
      [],
    );
  });
});

describe("matchPacks() and commandLineDirectories() through cmd /c", () => {
  const DESKTOP = "C:\\Users\\me\\Desktop";
  test.each<[string, readonly string[]]>([
    [
      "cmd /c with separate arguments",
      ["cmd", "/c", "npx", "-y", "@modelcontextprotocol/server-filesystem", DESKTOP],
    ],
    ["cmd /c with one string", ["cmd", "/c", `npx -y @modelcontextprotocol/server-filesystem ${DESKTOP}`]],
    [
      "cmd.exe /d /s /c with one string",
      ["cmd.exe", "/d", "/s", "/c", `npx -y @modelcontextprotocol/server-filesystem ${DESKTOP}`],
    ],
    [
      "a full path to cmd.exe with /v:off and a quoted directory",
      [
        "C:\\Windows\\System32\\CMD.EXE",
        "/D",
        "/V:OFF",
        "/C",
        `npx -y "@modelcontextprotocol/server-filesystem" "${DESKTOP}"`,
      ],
    ],
  ])(
    "matchPacks() matches the filesystem pack by command in %s, and its directories skip cmd's switches",
    (_name, command) => {
      const matched = matchPacks(PACKS, {
        command,
        serverInfoName: "secure-filesystem-server",
        upstreamName: "mydisk",
      });
      expect(matched.map((m) => [m.pack.name, m.by, m.value])).toEqual([
        ["filesystem", "command", "@modelcontextprotocol/server-filesystem"],
      ]);
      expect(commandLineDirectories(command, { after: matched[0]!.commandIndex! })).toEqual([DESKTOP]);
      expect(commandLineDirectories(command)).toEqual([DESKTOP]);
    },
  );

  test("commandLineDirectories() keeps a directory with spaces quoted in a cmd /c string whole", () => {
    expect(commandLineDirectories(["cmd", "/c", 'my-server "C:\\My Vault" ./notes'])).toEqual([
      "C:\\My Vault",
      "./notes",
    ]);
  });
});
