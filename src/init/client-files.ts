/**
 * Where each client keeps its MCP config, per operating system, and which of those files exist.
 * The home directory, platform, environment (`APPDATA`, `LOCALAPPDATA`, `XDG_CONFIG_HOME`,
 * `CODEX_HOME`, `CLAUDE_CONFIG_DIR`) and working directory are parameters, so discovery is tested with
 * temporary directories. Edge (the existence check reads the file system; {@link candidateFiles} is
 * pure).
 *
 * Paths (checked against each client's documentation):
 * - Claude Desktop: macOS `~/Library/Application Support/Claude/claude_desktop_config.json`; Windows
 *   `%APPDATA%\Claude\…` and the MSIX package `%LOCALAPPDATA%\Packages\Claude_<id>\LocalCache\Roaming\Claude\…`;
 *   Linux `$XDG_CONFIG_HOME/Claude/…`.
 * - Claude Code: `./.mcp.json`, `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`) with
 *   `projects.*.mcpServers`.
 * - Cursor: `./.cursor/mcp.json`, `~/.cursor/mcp.json`.
 * - VS Code: `./.vscode/mcp.json`, the user profile's `Code/User/mcp.json` (and Insiders).
 * - Windsurf: `~/.codeium/windsurf/mcp_config.json`.
 * - Zed: `./.zed/settings.json`, `$XDG_CONFIG_HOME/zed/settings.json` (`%APPDATA%\Zed\settings.json`).
 * - Codex: `./.codex/config.toml`, `$CODEX_HOME/config.toml` (default `~/.codex`).
 * - Gemini CLI: `./.gemini/settings.json`, `~/.gemini/settings.json`.
 * - Cline: VS Code's (and Cursor's) `globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`.
 *
 * Source: SPEC §5.2 ("Clients and files, per OS").
 * @module
 */

import { readdirSync, statSync } from "node:fs";
import { CLIENTS, type ClientInfo, clientInfo } from "./client-table.ts";
import { pathFor } from "./launcher.ts";

/** A client config file (found or candidate). */
export interface ClientFile {
  readonly client: ClientInfo;
  readonly path: string;
  /**
   * `project` files live under the working directory, `user` files under the home directory (or
   * where the environment points); a file that is both (the working directory is home) is `user`.
   */
  readonly scope: "project" | "user";
}

/** Where discovery looks. */
export interface DiscoveryContext {
  readonly home: string;
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** The package family of Claude Desktop's MSIX install (the id after `Claude_` may vary). */
const CLAUDE_MSIX_PACKAGE = "Claude_pzs8sxrjxfjjc";

/**
 * A folder an environment variable sets, or undefined when it sets none: unset or empty (read as
 * set, an empty `CODEX_HOME` would make `./config.toml` of the current folder the user's Codex
 * config, and `--check` would judge that file instead of the real one). A relative value is
 * resolved against the working directory, as a client started there reads it — except for the
 * XDG variables, whose specification calls a relative value invalid ("If `$XDG_CONFIG_HOME` is
 * either not set or empty, a default … should be used"; relative paths "should" be ignored).
 *
 * Source: SPEC §5.2 (discovery); the XDG Base Directory Specification.
 * @param context - The environment, platform and working directory.
 * @param name - The variable's name.
 * @returns The absolute folder, or undefined.
 */
function configuredDir(context: DiscoveryContext, name: string): string | undefined {
  const { env } = context;
  const p = pathFor(context.platform);
  const value = Object.hasOwn(env, name) ? env[name] : undefined;
  if (value === undefined || value.trim() === "") return undefined;
  if (p.isAbsolute(value)) return value;
  return name.startsWith("XDG_") ? undefined : p.resolve(context.cwd, value);
}

/**
 * Every place a client's config may be, project files first.
 *
 * Source: SPEC §5.2.
 * @param context - Home, platform, environment and working directory.
 * @param clients - Only these clients (default: all).
 * @returns Candidate files (not checked for existence), without duplicates.
 */
export function candidateFiles(
  context: DiscoveryContext,
  clients: readonly ClientInfo[] = CLIENTS,
): ClientFile[] {
  const p = pathFor(context.platform);
  const { home, cwd } = context;
  const fromEnv = (name: string): string | undefined => configuredDir(context, name);
  const appData = fromEnv("APPDATA") ?? p.join(home, "AppData", "Roaming");
  const localAppData = fromEnv("LOCALAPPDATA") ?? p.join(home, "AppData", "Local");
  const xdg = fromEnv("XDG_CONFIG_HOME") ?? p.join(home, ".config");
  const appConfig =
    context.platform === "darwin"
      ? p.join(home, "Library", "Application Support")
      : context.platform === "win32"
        ? appData
        : xdg;
  const byClient: Record<string, [ClientFile["scope"], string][]> = {
    "claude-desktop":
      context.platform === "win32"
        ? [
            [
              "user",
              p.join(
                localAppData,
                "Packages",
                CLAUDE_MSIX_PACKAGE,
                "LocalCache",
                "Roaming",
                "Claude",
                "claude_desktop_config.json",
              ),
            ],
            ["user", p.join(appData, "Claude", "claude_desktop_config.json")],
          ]
        : [["user", p.join(appConfig, "Claude", "claude_desktop_config.json")]],
    "claude-code": [
      ["project", p.join(cwd, ".mcp.json")],
      ["user", p.join(fromEnv("CLAUDE_CONFIG_DIR") ?? home, ".claude.json")],
    ],
    cursor: [
      ["project", p.join(cwd, ".cursor", "mcp.json")],
      ["user", p.join(home, ".cursor", "mcp.json")],
    ],
    vscode: [
      ["project", p.join(cwd, ".vscode", "mcp.json")],
      ["user", p.join(appConfig, "Code", "User", "mcp.json")],
      ["user", p.join(appConfig, "Code - Insiders", "User", "mcp.json")],
    ],
    windsurf: [["user", p.join(home, ".codeium", "windsurf", "mcp_config.json")]],
    zed: [
      ["project", p.join(cwd, ".zed", "settings.json")],
      [
        "user",
        context.platform === "win32"
          ? p.join(appData, "Zed", "settings.json")
          : p.join(xdg, "zed", "settings.json"),
      ],
    ],
    codex: [
      ["project", p.join(cwd, ".codex", "config.toml")],
      ["user", p.join(fromEnv("CODEX_HOME") ?? p.join(home, ".codex"), "config.toml")],
    ],
    gemini: [
      ["project", p.join(cwd, ".gemini", "settings.json")],
      ["user", p.join(home, ".gemini", "settings.json")],
    ],
    cline: ["Code", "Cursor"].map((editor): [ClientFile["scope"], string] => [
      "user",
      p.join(
        appConfig,
        editor,
        "User",
        "globalStorage",
        "saoudrizwan.claude-dev",
        "settings",
        "cline_mcp_settings.json",
      ),
    ]),
  };
  // Index of each path in `files`: a path listed twice (the working directory is the home
  // directory) is listed once, where it came first, and is a user file if either place is.
  const seen = new Map<string, number>();
  const files: ClientFile[] = [];
  for (const client of clients) {
    const places = Object.hasOwn(byClient, client.kind) ? (byClient[client.kind] ?? []) : [];
    for (const [scope, file] of places) {
      const at = seen.get(file);
      const earlier = at === undefined ? undefined : files[at];
      if (at !== undefined && earlier !== undefined) {
        if (scope === "user") files[at] = { ...earlier, scope };
        continue;
      }
      seen.set(file, files.length);
      files.push({ client, path: file, scope });
    }
  }
  return files;
}

/** File-system probes used by {@link findClientFiles} (real ones by default). */
export interface DiscoveryProbes {
  readonly isFile?: (file: string) => boolean;
  readonly listDir?: (dir: string) => readonly string[];
}

/**
 * The client config files that exist. On Windows, every `Claude_*` MSIX package folder is searched
 * too (the id after `Claude_` is not fixed).
 *
 * Source: SPEC §5.2 ("neither means every client file found, listed before anything is written").
 * @param context - Home, platform, environment and working directory.
 * @param options - Only these clients; file-system probes (for tests).
 * @returns The existing files, in the order of {@link candidateFiles}.
 */
export function findClientFiles(
  context: DiscoveryContext,
  options: { readonly clients?: readonly ClientInfo[] } & DiscoveryProbes = {},
): ClientFile[] {
  const isFile = options.isFile ?? defaultIsFile;
  const listDir = options.listDir ?? defaultListDir;
  const clients = options.clients ?? CLIENTS;
  const files = candidateFiles(context, clients);
  if (context.platform === "win32" && clients.some((client) => client.kind === "claude-desktop")) {
    const p = pathFor("win32");
    const packages = p.join(
      configuredDir(context, "LOCALAPPDATA") ?? p.join(context.home, "AppData", "Local"),
      "Packages",
    );
    for (const name of listDir(packages)) {
      if (!name.startsWith("Claude_") || name === CLAUDE_MSIX_PACKAGE) continue;
      const file = p.join(packages, name, "LocalCache", "Roaming", "Claude", "claude_desktop_config.json");
      files.unshift({ client: clientInfo("claude-desktop"), path: file, scope: "user" });
    }
  }
  return files.filter((file) => isFile(file.path));
}

/**
 * Whether a path is a regular file (following symlinks).
 * @param file - A path.
 * @returns True for an existing file.
 */
function defaultIsFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The names in a directory, or none when it cannot be read.
 * @param dir - A directory.
 * @returns Entry names.
 */
function defaultListDir(dir: string): readonly string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
