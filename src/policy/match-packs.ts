/**
 * Which curated packs apply to a server: patterns on the package or image in its command line and
 * on its `serverInfo.name`, with the `--upstream-name` as a fallback; and which directories its
 * command line names (the filesystem pack's default confinement).
 * Pure.
 *
 * Source: SPEC §4.3 (packs, `match:`), §5.9 (the `server` event gives command and serverInfo).
 * @module
 */

import { commandWords } from "./command-words.ts";
import type { MatchedPack, Pack, ServerFacts } from "./types.ts";

/**
 * The packs that match a server, strongest first (the order of `packs`). Packs matched by the
 * command line or `serverInfo.name` win; only when none matches that way are packs matched by the
 * `--upstream-name`.
 *
 * @param packs - The available packs, in precedence order.
 * @param facts - The server's command line, `serverInfo.name` and `--upstream-name`.
 * @returns Each matching pack with what matched it.
 * Source: SPEC §4.3.
 * @example
 * ```ts
 * matchPacks(builtinPacks(), { command: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"], upstreamName: "fs" });
 * // [{ pack: filesystem, by: "command", pattern: "@modelcontextprotocol/server-filesystem", value: "...", commandIndex: 2 }]
 * ```
 */
export function matchPacks(packs: readonly Pack[], facts: ServerFacts): MatchedPack[] {
  const direct: MatchedPack[] = [];
  for (const pack of packs) {
    const found = matchByCommand(pack, facts.command ?? []) ?? matchByServerName(pack, facts.serverInfoName);
    if (found) direct.push(found);
  }
  if (direct.length > 0) return direct;
  const fallback: MatchedPack[] = [];
  for (const pack of packs) {
    const pattern = pack.match.upstreamNames.find((p) => globMatches(p, facts.upstreamName));
    if (pattern !== undefined)
      fallback.push({ pack, by: "upstream_name", pattern, value: facts.upstreamName });
  }
  return fallback;
}

function matchByCommand(pack: Pack, command: readonly string[]): MatchedPack | undefined {
  for (const [index, token] of commandWords(command).entries()) {
    const forms = tokenForms(token);
    for (const pattern of pack.match.commands) {
      if (forms.some((form) => globMatches(pattern, form))) {
        return { pack, by: "command", pattern, value: token, commandIndex: index };
      }
    }
  }
  return undefined;
}

function matchByServerName(pack: Pack, name: string | undefined): MatchedPack | undefined {
  if (name === undefined) return undefined;
  const pattern = pack.match.serverNames.find((p) => globMatches(p, name));
  return pattern === undefined ? undefined : { pack, by: "server_name", pattern, value: name };
}

/**
 * The forms a command-line token is compared in: as written, without a version or tag
 * (`@scope/pkg@1.2` → `@scope/pkg`, `ghcr.io/o/img:tag` → `ghcr.io/o/img`), its base name without
 * a script or executable extension, and the package a `node_modules/...` path lies in.
 *
 * @param token - One command-line token.
 * @returns The distinct forms.
 */
export function tokenForms(token: string): string[] {
  const forms = new Set<string>([token, stripVersion(token)]);
  const slashed = token.replaceAll("\\", "/");
  const base = slashed.slice(slashed.lastIndexOf("/") + 1);
  if (base !== "") {
    forms.add(base);
    forms.add(stripVersion(base));
    forms.add(base.replace(/\.(?:exe|cmd|bat|js|mjs|cjs|ts|py)$/iu, ""));
  }
  const inModules = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/u.exec(slashed);
  if (inModules?.[1]) forms.add(inModules[1]);
  return [...forms].filter((form) => form !== "");
}

function stripVersion(token: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//iu.test(token) || /^[a-z]:[\\/]/iu.test(token)) return token;
  const digest = token.indexOf("@sha256:");
  if (digest > 0) return token.slice(0, digest);
  const at = token.lastIndexOf("@");
  if (at > 0 && !token.slice(at).includes("/")) return token.slice(0, at);
  const colon = token.lastIndexOf(":");
  if (colon > 0 && !token.slice(colon).includes("/")) return token.slice(0, colon);
  return token;
}

/**
 * Whether a glob (`*` = any run of characters, case-insensitive, whole value) matches a value.
 *
 * @param pattern - The glob from `match:`.
 * @param value - The value to test.
 * @returns True on a whole-value match.
 */
export function globMatches(pattern: string, value: string): boolean {
  const escaped = pattern
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&"))
    .join(".*");
  return new RegExp(`^${escaped}$`, "iu").test(value);
}

/** Script and package tokens that are never a directory argument. */
const NOT_A_DIRECTORY = /(?:\.(?:js|mjs|cjs|ts|py|exe|cmd|bat)$)|(?:^|[\\/])node_modules[\\/]/iu;

/**
 * The directories a command line gives its server: the arguments after the matched package token
 * that are not flags; without a matched token, the arguments shaped like paths (`/`, `./`, `../`,
 * `~`, `C:\`) that are not scripts. Both in the words `commandWords` gives (the command of a
 * `cmd /c`, `sh -c` or `powershell -Command`; the interpreter's switches are not directories).
 *
 * @param command - The upstream command line, command first.
 * @param options - `after`: the index of the matched package token in `commandWords` (from
 *   {@link MatchedPack}).
 * @returns The directories as written (relative ones are resolved later against the upstream's cwd).
 * Source: SPEC §4.3 (filesystem: "writes are confined to the directories given on the upstream's
 * command line").
 */
export function commandLineDirectories(
  command: readonly string[],
  options: { readonly after?: number } = {},
): string[] {
  const words = commandWords(command);
  if (options.after !== undefined) {
    return words.slice(options.after + 1).filter((arg) => arg !== "" && !arg.startsWith("-"));
  }
  return words
    .slice(1)
    .filter((arg) => /^(?:\/|\.{1,2}(?:[\\/]|$)|~(?:[\\/]|$)|[a-z]:[\\/]|\\\\)/iu.test(arg))
    .filter((arg) => !NOT_A_DIRECTORY.test(arg));
}
