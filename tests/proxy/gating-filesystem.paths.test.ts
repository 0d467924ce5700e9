/**
 * Path confinement in front of the real `@modelcontextprotocol/server-filesystem`, which resolves a
 * relative path against its allowed directories (its command-line directories, or the roots the
 * client gave it), not its working directory: `bouncer run` must check a relative value against each
 * (SPEC §2.4, stricter); and which opens a missing name through an entry of the same name under
 * Unicode normalisation, so the walk must too. Driven by the SDK's real Client over real stdio
 * through `bun src/cli.ts run`.
 */

import { afterAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { bouncerCommand, type Connected, connect, deadline, FS_SERVER, tempHome } from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;
const clients: Connected[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.client.close()));
}, E2E_TIMEOUT);

/** A folder `w` with a project folder `w/proj` inside it. */
function world(): { readonly w: string; readonly proj: string; readonly home: string } {
  const w = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-rel-")));
  const proj = join(w, "proj");
  mkdirSync(proj);
  return { w, proj, home: tempHome() };
}

/** Connects, through Bouncer or directly, from `cwd`, offering `roots` when given. */
async function open(
  command: { command: string; args: string[] },
  options: { cwd: string; home: string; roots?: readonly string[] },
): Promise<Connected> {
  const { roots } = options;
  const connected = await connect(command.command, {
    args: command.args,
    cwd: options.cwd,
    env: { BOUNCER_HOME: options.home },
    ...(roots === undefined
      ? {}
      : {
          capabilities: { roots: { listChanged: true } },
          setup: (client: Client) =>
            client.setRequestHandler(ListRootsRequestSchema, () => ({
              roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href })),
            })),
        }),
  });
  clients.push(connected);
  return connected;
}

function text(result: unknown): string {
  return JSON.stringify((result as { content?: unknown }).content ?? result);
}

/** Waits until the server reports `dir` among its allowed directories (it applies roots on its own time). */
async function untilAllowed(client: Client, dir: string): Promise<void> {
  const poll = async (): Promise<void> => {
    for (;;) {
      const listed = await client.callTool({ name: "list_allowed_directories", arguments: {} });
      const [first] = (listed.content ?? []) as { text?: string }[];
      if ((first?.text ?? "").split("\n").includes(dir)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await deadline(poll(), 30_000, "the roots reaching the server");
}

describe("bouncer run checks a relative write against every base of the real filesystem server", () => {
  test(
    "bouncer run denies a relative write that the server's command-line directory puts outside the prefix",
    async () => {
      const { w, proj, home } = world();
      const policy = join(home, "p.yaml");
      writeFileSync(policy, 'write_file: {allowed_path_prefixes: ["."]}\n');
      // The premise: the server, started in proj with w on its command line, writes into w.
      const direct = await open({ command: FS_SERVER, args: [w] }, { cwd: proj, home });
      await direct.client.callTool({ name: "write_file", arguments: { path: "premise.txt", content: "x" } });
      expect(existsSync(join(w, "premise.txt"))).toBe(true);

      const run = bouncerCommand("cli", ["--upstream-name", "fs", "--policy", policy, "--", FS_SERVER, w]);
      const proxied = await open(run, { cwd: proj, home });
      const result = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: "evil-rel.txt", content: "x" },
      });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("[bouncer blocked]");
      expect(text(result)).toContain("on the upstream's command line");
      expect(existsSync(join(w, "evil-rel.txt"))).toBe(false);
      expect(existsSync(join(proj, "evil-rel.txt"))).toBe(false);
      const inside = join(proj, "fine.txt");
      const allowed = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: inside, content: "ok" },
      });
      expect(allowed.isError).not.toBe(true);
      expect(readFileSync(inside, "utf8")).toBe("ok");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run denies a relative write that a root the client gave the server puts outside the pack's confinement",
    async () => {
      const { w, proj, home } = world();
      const direct = await open({ command: FS_SERVER, args: [proj] }, { cwd: proj, home, roots: [w] });
      await untilAllowed(direct.client, w);
      await direct.client.callTool({ name: "write_file", arguments: { path: "premise.txt", content: "x" } });
      expect(existsSync(join(w, "premise.txt"))).toBe(true);

      // No policy of the user's: the filesystem pack confines writes to the command-line directory.
      const run = bouncerCommand("cli", ["--upstream-name", "fs", "--", FS_SERVER, proj]);
      const proxied = await open(run, { cwd: proj, home, roots: [w] });
      await untilAllowed(proxied.client, w);
      const result = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: "rel.txt", content: "x" },
      });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("the client gave the upstream");
      expect(existsSync(join(w, "rel.txt"))).toBe(false);
      const inside = join(proj, "fine.txt");
      const allowed = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: inside, content: "ok" },
      });
      expect(allowed.isError).not.toBe(true);
      expect(readFileSync(inside, "utf8")).toBe("ok");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run allows a relative write inside the pack's confinement when cwd, command-line directory and root are one folder",
    async () => {
      const { w, home } = world();
      const run = bouncerCommand("cli", ["--upstream-name", "fs", "--", FS_SERVER, w]);
      const proxied = await open(run, { cwd: w, home, roots: [w] });
      await untilAllowed(proxied.client, w);
      const result = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: "proj/rel.txt", content: "ok" },
      });
      expect(result.isError).not.toBe(true);
      expect(readFileSync(join(w, "proj", "rel.txt"), "utf8")).toBe("ok");
    },
    E2E_TIMEOUT,
  );
});

describe("bouncer run walks names equal under Unicode normalisation as the real filesystem server opens them", () => {
  test(
    "bouncer run denies a write through the NFD spelling of an NFC-named link that leads out of the prefix",
    async () => {
      const { w: u, home } = world();
      const out = join(u, "out");
      const secret = join(u, "secret");
      mkdirSync(out);
      mkdirSync(secret);
      symlinkSync(secret, join(out, "link\u00e9"));
      const nfdPath = (name: string): string => join(out, "linke\u0301", name);
      // The premise: the server opens the NFD name through the NFC link, into secret.
      const direct = await open({ command: FS_SERVER, args: [u] }, { cwd: u, home });
      await direct.client.callTool({
        name: "write_file",
        arguments: { path: nfdPath("premise.txt"), content: "x" },
      });
      expect(readdirSync(secret)).toEqual(["premise.txt"]);

      const policy = join(home, "p.yaml");
      writeFileSync(policy, `write_file: {allowed_path_prefixes: [${JSON.stringify(out)}]}\n`);
      const run = bouncerCommand("cli", ["--upstream-name", "fs", "--policy", policy, "--", FS_SERVER, u]);
      const proxied = await open(run, { cwd: u, home });
      const result = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: nfdPath("nfd.txt"), content: "x" },
      });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("[bouncer blocked]");
      expect(text(result)).toContain(join(secret, "nfd.txt"));
      expect(readdirSync(secret)).toEqual(["premise.txt"]);
      const inside = join(out, "fine-\u00e9.txt");
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
