/**
 * The client config samples of `tests/fixtures/configs/` (copied from the shared cases, plus the
 * synthetic Codex, F11 and F12 files), each with its client, and helpers that parse a text with the
 * client's own format (independently of the code under test). Test helper, not a test.
 * @module
 */

import { readFileSync } from "node:fs";
import { type ParseError, parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { type ClientInfo, clientInfo, detectClient } from "../../src/init/client-table.ts";
import type { ClientKind, Launcher } from "../../src/init/types.ts";

/** One sample file. */
export interface Sample {
  readonly file: string;
  readonly kind: ClientKind | "detect";
}

/** Every sample, with the client whose file it is. */
export const SAMPLES: readonly Sample[] = [
  { file: "claude-code.mcp.json", kind: "claude-code" },
  { file: "claude-desktop.claude_desktop_config.json", kind: "claude-desktop" },
  { file: "cursor.mcp.json", kind: "cursor" },
  { file: "vscode.mcp.json", kind: "vscode" },
  { file: "codex.config.toml", kind: "codex" },
  { file: "edge/claude-desktop-windows.SYNTHETIC.json", kind: "claude-desktop" },
  { file: "edge/zed-settings.SYNTHETIC.jsonc", kind: "zed" },
  { file: "edge/cursor-remote-url-only.mcp.json", kind: "cursor" },
  { file: "edge/f12-commented-server.SYNTHETIC.jsonc", kind: "detect" },
  { file: "edge/f11-secrets.SYNTHETIC.mcp.json", kind: "claude-code" },
];

/** A launcher as installed by Homebrew. */
export const BREW_LAUNCHER: Launcher = { command: "/opt/homebrew/bin/bouncer", prefixArgs: [] };

/** A launcher running from source. */
export const SOURCE_LAUNCHER: Launcher = {
  command: "/usr/local/bin/bun",
  prefixArgs: ["/src/bouncer/src/cli.ts"],
};

/**
 * The absolute path of a fixture config.
 * @param file - Path under `tests/fixtures/configs/`.
 * @returns The absolute path.
 */
export function samplePath(file: string): string {
  return new URL(`../fixtures/configs/${file}`, import.meta.url).pathname;
}

/**
 * A sample's text.
 * @param file - Path under `tests/fixtures/configs/`.
 * @returns Its text.
 */
export function sampleText(file: string): string {
  return readFileSync(samplePath(file), "utf8");
}

/**
 * A sample's client.
 * @param sample - The sample.
 * @returns Its client info.
 */
export function sampleClient(sample: Sample): ClientInfo {
  return sample.kind === "detect"
    ? detectClient(sample.file, sampleText(sample.file))
    : clientInfo(sample.kind);
}

/**
 * Parses a text the way its client does: strict `JSON.parse` for JSON clients, JSONC (comments and
 * trailing commas) for VS Code, Zed and Gemini, smol-toml for Codex.
 * @param text - A config text.
 * @param client - Its client.
 * @returns The document.
 * @throws {Error} When the client could not read it.
 */
export function parseAsClient(text: string, client: ClientInfo): Record<string, unknown> {
  if (client.format === "toml") return parseToml(text) as Record<string, unknown>;
  if (client.format === "json") return JSON.parse(text) as Record<string, unknown>;
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false }) as Record<
    string,
    unknown
  >;
  if (errors.length > 0) throw new Error(`JSONC errors: ${JSON.stringify(errors)}`);
  return value;
}

/**
 * The server entries of a parsed document (every section the client uses, and Claude Code projects).
 * @param document - A parsed config.
 * @param client - Its client.
 * @returns Name → entry object.
 */
export function serversOf(
  document: Record<string, unknown>,
  client: ClientInfo,
): Map<string, Record<string, unknown>> {
  const servers = new Map<string, Record<string, unknown>>();
  for (const key of client.sections.keys) {
    const section = document[key];
    if (typeof section !== "object" || section === null) continue;
    for (const [name, entry] of Object.entries(section)) servers.set(name, entry as Record<string, unknown>);
  }
  return servers;
}
