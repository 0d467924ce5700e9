import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { candidateFiles, findClientFiles } from "../../src/init/client-files.ts";
import { clientByName } from "../../src/init/client-table.ts";

const only = (name: string) => [clientByName(name)!];

describe("candidateFiles()", () => {
  test.each([
    ["claude-desktop", "darwin", ["/Users/me/Library/Application Support/Claude/claude_desktop_config.json"]],
    ["claude-desktop", "linux", ["/home/me/.config/Claude/claude_desktop_config.json"]],
    ["claude-code", "linux", ["/work/p/.mcp.json", "/home/me/.claude.json"]],
    ["cursor", "darwin", ["/work/p/.cursor/mcp.json", "/Users/me/.cursor/mcp.json"]],
    [
      "vscode",
      "darwin",
      [
        "/work/p/.vscode/mcp.json",
        "/Users/me/Library/Application Support/Code/User/mcp.json",
        "/Users/me/Library/Application Support/Code - Insiders/User/mcp.json",
      ],
    ],
    ["windsurf", "linux", ["/home/me/.codeium/windsurf/mcp_config.json"]],
    ["zed", "linux", ["/work/p/.zed/settings.json", "/home/me/.config/zed/settings.json"]],
    ["codex", "linux", ["/work/p/.codex/config.toml", "/home/me/.codex/config.toml"]],
    ["gemini", "darwin", ["/work/p/.gemini/settings.json", "/Users/me/.gemini/settings.json"]],
    [
      "cline",
      "linux",
      [
        "/home/me/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        "/home/me/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
      ],
    ],
  ] as const)("candidateFiles() for %s on %s", (client, platform, paths) => {
    const home = platform === "darwin" ? "/Users/me" : "/home/me";
    const files = candidateFiles({ home, platform, env: {}, cwd: "/work/p" }, only(client));
    expect(files.map((file) => file.path)).toEqual([...paths]);
  });

  test("candidateFiles() on Windows uses APPDATA, LOCALAPPDATA and the MSIX package of Claude Desktop", () => {
    const env = { APPDATA: "C:\\Users\\me\\AppData\\Roaming", LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local" };
    const context = { home: "C:\\Users\\me", platform: "win32" as const, env, cwd: "C:\\work\\p" };
    expect(candidateFiles(context, only("claude-desktop")).map((file) => file.path)).toEqual([
      "C:\\Users\\me\\AppData\\Local\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude\\claude_desktop_config.json",
      "C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
    ]);
    expect(candidateFiles(context, only("zed")).map((file) => file.path)).toEqual([
      "C:\\work\\p\\.zed\\settings.json",
      "C:\\Users\\me\\AppData\\Roaming\\Zed\\settings.json",
    ]);
    expect(candidateFiles(context, only("windsurf"))[0]?.path).toBe(
      "C:\\Users\\me\\.codeium\\windsurf\\mcp_config.json",
    );
  });

  test("candidateFiles() follows CODEX_HOME, CLAUDE_CONFIG_DIR and XDG_CONFIG_HOME", () => {
    const env = { CODEX_HOME: "/c", CLAUDE_CONFIG_DIR: "/cc", XDG_CONFIG_HOME: "/x" };
    const context = { home: "/home/me", platform: "linux" as const, env, cwd: "/p" };
    const paths = candidateFiles(context).map((file) => file.path);
    expect(paths).toContain("/c/config.toml");
    expect(paths).toContain("/cc/.claude.json");
    expect(paths).toContain("/x/zed/settings.json");
    expect(paths).toContain("/x/Claude/claude_desktop_config.json");
  });

  test("candidateFiles() reads an empty CODEX_HOME, CLAUDE_CONFIG_DIR or XDG_CONFIG_HOME as unset, not as the current folder", () => {
    const env = { CODEX_HOME: "", CLAUDE_CONFIG_DIR: " ", XDG_CONFIG_HOME: "", APPDATA: "" };
    const paths = candidateFiles({ home: "/home/me", platform: "linux", env, cwd: "/p" }).map((f) => f.path);
    expect(paths).toContain("/home/me/.codex/config.toml");
    expect(paths).toContain("/home/me/.claude.json");
    expect(paths).toContain("/home/me/.config/zed/settings.json");
    expect(paths).toContain("/home/me/.config/Claude/claude_desktop_config.json");
    expect(paths.filter((file) => !file.startsWith("/home/me/") && !file.startsWith("/p/"))).toEqual([]);
    expect(paths).not.toContain("/p/config.toml");
    const windows = candidateFiles(
      { home: "C:\\Users\\me", platform: "win32", env: { APPDATA: "" }, cwd: "C:\\p" },
      only("zed"),
    ).map((f) => f.path);
    expect(windows).toContain("C:\\Users\\me\\AppData\\Roaming\\Zed\\settings.json");
  });

  test("candidateFiles() ignores a relative XDG_CONFIG_HOME (the XDG rule) and resolves a relative CODEX_HOME against the working directory", () => {
    const env = { XDG_CONFIG_HOME: "cfg", CODEX_HOME: "codex-home" };
    const paths = candidateFiles({ home: "/home/me", platform: "linux", env, cwd: "/p" }).map((f) => f.path);
    expect(paths).toContain("/home/me/.config/zed/settings.json");
    expect(paths.some((file) => file.includes("cfg"))).toBe(false);
    expect(paths).toContain("/p/codex-home/config.toml");
  });

  test("candidateFiles() lists a file once when the working directory is the home directory", () => {
    const paths = candidateFiles({ home: "/h", platform: "linux", env: {}, cwd: "/h" }, only("cursor")).map(
      (f) => f.path,
    );
    expect(paths).toEqual(["/h/.cursor/mcp.json"]);
  });

  test("candidateFiles() counts a file that is both a project and a user file as the user's (the working directory is home)", () => {
    const files = candidateFiles({ home: "/h", platform: "linux", env: {}, cwd: "/h" });
    const scopes = Object.fromEntries(files.map((file) => [file.path, file.scope]));
    expect(scopes["/h/.cursor/mcp.json"]).toBe("user");
    expect(scopes["/h/.gemini/settings.json"]).toBe("user");
    expect(scopes["/h/.codex/config.toml"]).toBe("user");
    // Claude Code has no user file at ~/.mcp.json: it is a project file wherever it is.
    expect(scopes["/h/.mcp.json"]).toBe("project");
  });
});

describe("findClientFiles()", () => {
  const root = mkdtempSync(path.join(tmpdir(), "bouncer-discovery-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("findClientFiles() returns only the files that exist, project files first", () => {
    const home = path.join(root, "home");
    const cwd = path.join(root, "project");
    for (const file of [
      path.join(home, ".cursor", "mcp.json"),
      path.join(cwd, ".cursor", "mcp.json"),
      path.join(home, ".codex", "config.toml"),
    ]) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, "{}");
    }
    mkdirSync(path.join(cwd, ".vscode", "mcp.json"), { recursive: true });
    const found = findClientFiles({ home, platform: "linux", env: {}, cwd });
    expect(found.map((file) => [file.client.kind, path.relative(root, file.path), file.scope])).toEqual([
      ["cursor", "project/.cursor/mcp.json", "project"],
      ["cursor", "home/.cursor/mcp.json", "user"],
      ["codex", "home/.codex/config.toml", "user"],
    ]);
  });

  test("findClientFiles() on Windows searches every Claude_* MSIX package folder", () => {
    const env = { LOCALAPPDATA: "C:\\L", APPDATA: "C:\\R" };
    const seen: string[] = [];
    const found = findClientFiles(
      { home: "C:\\Users\\me", platform: "win32", env, cwd: "C:\\p" },
      {
        clients: only("claude-desktop"),
        listDir: (dir) =>
          dir === "C:\\L\\Packages" ? ["Claude_abc123", "Other_x", "Claude_pzs8sxrjxfjjc"] : [],
        isFile: (file) => {
          seen.push(file);
          return file.includes("Claude_abc123") || file.startsWith("C:\\R");
        },
      },
    );
    expect(found.map((file) => file.path)).toEqual([
      "C:\\L\\Packages\\Claude_abc123\\LocalCache\\Roaming\\Claude\\claude_desktop_config.json",
      "C:\\R\\Claude\\claude_desktop_config.json",
    ]);
    expect(seen).toContain(
      "C:\\L\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude\\claude_desktop_config.json",
    );
  });
});
