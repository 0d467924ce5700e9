/**
 * A `file:` path value in front of the real `@modelcontextprotocol/server-filesystem`, which never
 * decodes one: it takes `file:///w/out/d` as the relative path `file:/w/out/d` below its first
 * directory. `bouncer run` must check that reading too, not only the decoded URI (SPEC §2.4,
 * stricter). Driven by the SDK's real Client over real stdio through `bun src/cli.ts run`.
 */

import { afterAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bouncerCommand, type Connected, connect, FS_SERVER, tempHome } from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;
const clients: Connected[] = [];
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.client.close()));
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}, E2E_TIMEOUT);

/** Connects to `command` from `cwd` with its own Bouncer home. */
async function open(
  command: { command: string; args: string[] },
  cwd: string,
  home: string,
): Promise<Connected> {
  const connected = await connect(command.command, { args: command.args, cwd, env: { BOUNCER_HOME: home } });
  clients.push(connected);
  return connected;
}

function text(result: unknown): string {
  return JSON.stringify((result as { content?: unknown }).content ?? result);
}

describe("bouncer run checks a file: path value as the relative path the real filesystem server reads", () => {
  test(
    "bouncer run denies create_directory and write_file with a file: URI of the prefix, which the server puts outside it",
    async () => {
      const w = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-file-uri-")));
      const home = tempHome();
      folders.push(w, home);
      const out = join(w, "out");
      mkdirSync(out);
      const uri = (...names: string[]): string => pathToFileURL(join(out, ...names)).href;
      const asPath = (...names: string[]): string => join(w, "file:", out, ...names);
      // The premise: the server, given w, creates and writes below w/file:, outside w/out.
      const direct = await open({ command: FS_SERVER, args: [w] }, w, home);
      await direct.client.callTool({ name: "create_directory", arguments: { path: uri("premise") } });
      expect(existsSync(asPath("premise"))).toBe(true);
      expect(existsSync(join(out, "premise"))).toBe(false);
      rmSync(join(w, "file:"), { recursive: true });

      const rule = `{allowed_path_prefixes: [${JSON.stringify(out)}]}`;
      const policy = join(home, "p.yaml");
      writeFileSync(policy, `create_directory: ${rule}\nwrite_file: ${rule}\n`);
      const run = bouncerCommand("cli", ["--upstream-name", "fs", "--policy", policy, "--", FS_SERVER, w]);
      const proxied = await open(run, out, home);
      const made = await proxied.client.callTool({ name: "create_directory", arguments: { path: uri("d") } });
      expect(made.isError).toBe(true);
      expect(text(made)).toContain("[bouncer blocked]");
      expect(text(made)).toContain("read as a relative path");
      expect(existsSync(join(w, "file:"))).toBe(false);
      const wrote = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: uri("evil.txt"), content: "x" },
      });
      expect(wrote.isError).toBe(true);
      expect(existsSync(join(w, "file:"))).toBe(false);
      const inside = join(out, "fine.txt");
      const allowed = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: inside, content: "ok" },
      });
      expect(allowed.isError).not.toBe(true);
      expect(readFileSync(inside, "utf8")).toBe("ok");
    },
    E2E_TIMEOUT,
  );
});
