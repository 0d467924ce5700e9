/**
 * Which config files `bouncer doctor` starts the servers of without being told: the user's own
 * configs, and a file named with `--config`. A project file that discovery found in the working
 * directory (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`, `.zed/settings.json`,
 * `.codex/config.toml`, `.gemini/settings.json`), with or without `--client`, is not started: its
 * commands are those of whoever wrote the folder (a freshly cloned repository), and a client asks
 * the user to trust a project before it starts them. Naming the file with `--config` is that
 * consent; naming the client is not (it chooses the client, not the folder). A project file that is
 * the same file as one of the user's configs (a symlink either way) is the user's. Edge (resolves
 * the real paths of the user's files).
 *
 * Source: SPEC §5.3 ("launched exactly as the client would": a client does not start an untrusted
 * project's servers without asking); the review of doctor starting a cloned repository's servers.
 * @module
 */

import { realpathSync } from "node:fs";
import path from "node:path";
import type { LoadedTarget, Target } from "./targets.ts";

/**
 * A reader of why doctor does not start the servers of a config it loaded.
 *
 * Source: SPEC §5.3.
 * @param targets - Every target of the run, as found (the user's files among them are resolved to
 *   their real paths here, once).
 * @param cwd - The working directory, which the note's paths are relative to.
 * @returns For a loaded target: the note for a project file not named (`project config ./.mcp.json
 *   is not started unless you name it …: bouncer doctor --config .mcp.json`), else undefined (its
 *   servers are started).
 */
export function unnamedProjectFiles(
  targets: readonly Target[],
  cwd: string,
): (target: LoadedTarget) => string | undefined {
  const userFiles = new Set<string>();
  for (const target of targets) {
    if (target.scope !== "user") continue;
    try {
      userFiles.add(realpathSync(target.path));
    } catch {
      // Gone since discovery: then it is not the same file as any project file either.
    }
  }
  return (target) => {
    if (target.scope !== "project" || userFiles.has(target.read.realPath)) return undefined;
    const relative = path.relative(cwd, target.path);
    return (
      `project config .${path.sep}${relative} is not started unless you name it ` +
      `(a client asks you to trust a project before it starts its servers): bouncer doctor --config ${relative}`
    );
  };
}
