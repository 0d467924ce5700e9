import { describe, expect, test } from "bun:test";
import { CLIENTS, clientByName, detectClient } from "../../src/init/client-table.ts";
import type { ClientKind } from "../../src/init/types.ts";

describe("detectClient()", () => {
  test.each<[string, string, ClientKind]>([
    ["/Users/me/Library/Application Support/Claude/claude_desktop_config.json", "{}", "claude-desktop"],
    ["C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json", "{}", "claude-desktop"],
    ["/home/me/.claude.json", "{}", "claude-code"],
    ["/p/.mcp.json", '{"mcpServers": {}}', "claude-code"],
    ["/p/.cursor/mcp.json", "{}", "cursor"],
    ["/p/.vscode/mcp.json", "{}", "vscode"],
    ["/home/me/.config/Code/User/mcp.json", "{}", "vscode"],
    ["/home/me/.codeium/windsurf/mcp_config.json", "{}", "windsurf"],
    ["/home/me/.config/zed/settings.json", "{}", "zed"],
    ["/p/.gemini/settings.json", "{}", "gemini"],
    ["/home/me/.codex/config.toml", "", "codex"],
    [".../globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "{}", "cline"],
    ["/x/settings.jsonc", '{"context_servers": {}}', "zed"],
    ["/x/mcp.json", '{"servers": {}, "inputs": []}', "vscode"],
    ["/x/other.json", '{"mcpServers": {}}', "generic"],
  ])("detectClient(%j) is %s", (path, text, kind) => {
    expect(detectClient(path, text).kind).toBe(kind);
  });

  test("detectClient() reads a generic JSONC file as JSONC with every usual server key", () => {
    const client = detectClient("/x/servers.jsonc", "{}");
    expect(client).toMatchObject({ kind: "generic", format: "jsonc", stash: false });
    expect(client.sections.keys).toEqual(["mcpServers", "servers", "context_servers"]);
  });
});

describe("clientByName()", () => {
  test.each([
    ["claude-desktop", "claude-desktop"],
    ["Claude", "claude-desktop"],
    ["code", "vscode"],
    ["gemini-cli", "gemini"],
  ])("clientByName(%j) is %s", (name, kind) => {
    expect(clientByName(name)?.kind).toBe(kind as ClientKind);
  });

  test.each(["constructor", "__proto__", "emacs"])("clientByName(%j) is undefined", (name) => {
    expect(clientByName(name)).toBeUndefined();
  });

  test("CLIENTS writes a stash only for clients that tolerate extra keys", () => {
    expect(CLIENTS.filter((client) => client.stash).map((client) => client.kind)).toEqual([
      "claude-desktop",
      "claude-code",
      "cursor",
      "windsurf",
    ]);
  });
});
