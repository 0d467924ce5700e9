/**
 * What Bouncer knows about each MCP client's config: its format, where the servers are, whether an
 * `x-bouncer-upstream` stash may be written into an entry, and whether the client can answer asks
 * (elicitation). Also recognises a config file's client from its name and content. Pure.
 *
 * Stash policy (SPEC §5.2 "in formats that tolerate extra keys"): written only where the client's
 * loader is known to ignore unknown entry keys (Claude Desktop, Claude Code, Cursor, Windsurf accept
 * keys such as `description` in practice). Not written for VS Code (its `mcp.json` schema flags
 * unknown keys), Zed (typed settings), Codex (its config schema denies unknown fields), Gemini CLI and
 * Cline (validated settings), nor for unrecognised files. `--undo` never needs the stash: it rebuilds
 * from the arguments after `--`; the stash only cross-checks and serves `bouncer run --config`.
 *
 * Source: SPEC §5.2, §5.3; elicitation table of the field cases (F23).
 * @module
 */

import { parseTree } from "jsonc-parser";
import type { JsonSections } from "./json-config.ts";
import type { ClientKind, ConfigFormat } from "./types.ts";

/** One client's config conventions. */
export interface ClientInfo {
  readonly kind: ClientKind;
  /** The client's name for people. */
  readonly title: string;
  /** The format of its config files (`json` = the client itself reads strict JSON). */
  readonly format: ConfigFormat;
  /** Where its servers are (for TOML: the `mcp_servers` table). */
  readonly sections: JsonSections;
  /** Whether `init` writes the `x-bouncer-upstream` stash into wrapped entries. */
  readonly stash: boolean;
  /** Whether the client can answer Bouncer's asks (elicitation), for `doctor`. */
  readonly asks: string;
}

const MCP_SERVERS: JsonSections = { keys: ["mcpServers"], projects: false };
// SPEC §3.4 channel 3 (out of band, `bouncer approve`) is not built: such a client gets a deny.
const OUT_OF_BAND = "no: asks deny (no elicitation; bouncer approve is not built yet)";

/** The known clients, in the order `init` lists them. */
export const CLIENTS: readonly ClientInfo[] = [
  {
    kind: "claude-desktop",
    title: "Claude Desktop",
    format: "json",
    sections: MCP_SERVERS,
    stash: true,
    asks: OUT_OF_BAND,
  },
  {
    kind: "claude-code",
    title: "Claude Code",
    format: "json",
    sections: { keys: ["mcpServers"], projects: true },
    stash: true,
    asks: "yes (form, since 2.1.76); auto-declined in print mode",
  },
  {
    kind: "cursor",
    title: "Cursor",
    format: "json",
    sections: MCP_SERVERS,
    stash: true,
    asks: "yes (since 1.5)",
  },
  {
    kind: "vscode",
    title: "VS Code",
    format: "jsonc",
    sections: { keys: ["servers"], projects: false },
    stash: false,
    asks: "yes (Copilot, since 1.102); the Claude extension declines",
  },
  {
    kind: "windsurf",
    title: "Windsurf",
    format: "json",
    sections: MCP_SERVERS,
    stash: true,
    asks: OUT_OF_BAND,
  },
  {
    kind: "zed",
    title: "Zed",
    format: "jsonc",
    sections: { keys: ["context_servers"], projects: false },
    stash: false,
    asks: OUT_OF_BAND,
  },
  {
    kind: "codex",
    title: "Codex",
    format: "toml",
    sections: { keys: ["mcp_servers"], projects: false },
    stash: false,
    asks: "partial: advertised, may decline on its own",
  },
  {
    kind: "gemini",
    title: "Gemini CLI",
    format: "jsonc",
    sections: MCP_SERVERS,
    stash: false,
    asks: OUT_OF_BAND,
  },
  { kind: "cline", title: "Cline", format: "json", sections: MCP_SERVERS, stash: false, asks: OUT_OF_BAND },
];

/** The `--client` flag's help of `init` and `doctor`: every client name, in the order of {@link CLIENTS}. */
export const CLIENT_FLAG_HELP = `Every config file of one client: ${CLIENTS.map((client) => client.kind).join(", ")}`;

/** Other spellings accepted by `--client`. */
const ALIASES: ReadonlyMap<string, ClientKind> = new Map<string, ClientKind>([
  ["claude", "claude-desktop"],
  ["claude-desktop", "claude-desktop"],
  ["claude-code", "claude-code"],
  ["cursor", "cursor"],
  ["vscode", "vscode"],
  ["vs-code", "vscode"],
  ["code", "vscode"],
  ["windsurf", "windsurf"],
  ["zed", "zed"],
  ["codex", "codex"],
  ["gemini", "gemini"],
  ["gemini-cli", "gemini"],
  ["cline", "cline"],
]);

/**
 * The client named on the command line.
 *
 * Source: SPEC §5.2.
 * @param name - A `--client` value (case-insensitive, aliases accepted).
 * @returns The client, or undefined for an unknown name.
 */
export function clientByName(name: string): ClientInfo | undefined {
  const kind = ALIASES.get(name.toLowerCase());
  return CLIENTS.find((client) => client.kind === kind);
}

/**
 * The info of a known client kind.
 *
 * Source: SPEC §5.2.
 * @param kind - A known kind (not `generic`).
 * @returns Its info.
 * @throws {RangeError} For `generic`.
 */
export function clientInfo(kind: ClientKind): ClientInfo {
  const found = CLIENTS.find((client) => client.kind === kind);
  if (found === undefined) throw new RangeError(`Unknown client "${kind}"`);
  return found;
}

/**
 * Recognises the client of a config file from its path, else from its content (`--config FILE`).
 *
 * Source: SPEC §5.2 ("format recognised from content and name").
 * @param path - The file's path (either separator).
 * @param text - Its text.
 * @returns The client (a `generic` one when neither name nor content says).
 */
export function detectClient(path: string, text: string): ClientInfo {
  const normal = path.replace(/\\/g, "/").toLowerCase();
  const base = normal.slice(normal.lastIndexOf("/") + 1);
  const parent = normal.split("/").at(-2) ?? "";
  const byName: ClientKind | undefined = base.endsWith("claude_desktop_config.json")
    ? "claude-desktop"
    : base === ".claude.json"
      ? "claude-code"
      : base.endsWith("cline_mcp_settings.json")
        ? "cline"
        : base === "mcp_config.json" && normal.includes("/windsurf/")
          ? "windsurf"
          : base === "mcp.json" && parent === ".cursor"
            ? "cursor"
            : base === "mcp.json" && (parent === ".vscode" || parent === "user")
              ? "vscode"
              : base === "settings.json" && (parent === "zed" || parent === ".zed")
                ? "zed"
                : base === "settings.json" && parent === ".gemini"
                  ? "gemini"
                  : base.endsWith(".toml")
                    ? "codex"
                    : undefined;
  if (byName !== undefined) return clientInfo(byName);
  return detectByContent(base, text);
}

/**
 * Recognises a JSON/JSONC client by its top-level keys.
 * @param base - The file's base name (lower case).
 * @param text - Its text.
 * @returns A known client or a `generic` one.
 */
function detectByContent(base: string, text: string): ClientInfo {
  let root: ReturnType<typeof parseTree>;
  try {
    root = parseTree(text, [], { allowTrailingComma: true });
  } catch {
    // Too deep for the parser: reading the file as a config refuses it with a position.
    root = undefined;
  }
  const keys = new Set(
    root?.type === "object"
      ? (root.children ?? []).map((property) => String(property.children?.[0]?.value))
      : [],
  );
  if (keys.has("context_servers")) return clientInfo("zed");
  if (keys.has("servers") && !keys.has("mcpServers")) return clientInfo("vscode");
  if (keys.has("mcpServers") && base.endsWith(".mcp.json")) return clientInfo("claude-code");
  return {
    kind: "generic",
    title: "MCP client",
    format: base.endsWith(".jsonc") ? "jsonc" : "json",
    sections: { keys: ["mcpServers", "servers", "context_servers"], projects: false },
    stash: false,
    asks: "unknown",
  };
}
