/**
 * Bouncer's own files out of reach of the real `@modelcontextprotocol/server-filesystem`: started
 * on a folder that holds `$BOUNCER_HOME` and the policy file (a home folder often does), its pack
 * confines writes to that folder, and the agent could otherwise rewrite a pin file — accepting a
 * changed definition no person saw — move it away, or rewrite the policy. Driven by the SDK's real
 * Client over real stdio through `bun src/cli.ts run`.
 */

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bouncerCommand, type Connected, connect, FS_SERVER } from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;
const clients: Connected[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.client.close()));
}, E2E_TIMEOUT);

function text(result: unknown): string {
  return JSON.stringify((result as { content?: unknown }).content ?? result);
}

describe("bouncer run keeps the gated filesystem server out of Bouncer's own files", () => {
  test(
    "bouncer run denies writes, moves and folders that reach the pins, the home, the policy or a client config, and allows the rest",
    async () => {
      const w = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-own-")));
      const home = join(w, ".bouncer");
      const policy = join(w, "bouncer.yaml");
      writeFileSync(policy, "version: 1\n");
      const run = bouncerCommand("cli", ["--upstream-name", "fs", "--policy", policy, "--", FS_SERVER, w]);
      // The folder is the user's home too: its client configs are the user's (`~/.claude.json`).
      const connected = await connect(run.command, {
        args: run.args,
        cwd: w,
        env: { BOUNCER_HOME: home, HOME: w, USERPROFILE: w },
      });
      clients.push(connected);
      const { client } = connected;
      // The first walk pinned the server's tools on first sight.
      await client.listTools();
      const [pinName] = readdirSync(join(home, "pins")).filter((name) => name.endsWith(".json"));
      expect(pinName).toBeDefined();
      const pinFile = join(home, "pins", pinName!);
      const pins = readFileSync(pinFile, "utf8");

      const blocked = [
        { name: "write_file", arguments: { path: pinFile, content: "{}" } },
        { name: "edit_file", arguments: { path: pinFile, edits: [{ oldText: "write_file", newText: "x" }] } },
        { name: "move_file", arguments: { source: pinFile, destination: join(w, "away.json") } },
        { name: "write_file", arguments: { path: ".bouncer/pins/new.json", content: "{}" } },
        { name: "write_file", arguments: { path: policy, content: "write_file: {action: allow}\n" } },
        { name: "create_directory", arguments: { path: join(home, "sessions", "forged") } },
        // Client configs: an agent must not unwrap its servers for the next session.
        { name: "write_file", arguments: { path: join(w, ".mcp.json"), content: "{}" } },
        { name: "write_file", arguments: { path: ".vscode/mcp.json", content: "{}" } },
        { name: "write_file", arguments: { path: join(w, ".claude.json"), content: "{}" } },
        { name: "create_directory", arguments: { path: join(w, ".cursor") } },
      ];
      for (const call of blocked) {
        const result = await client.callTool(call);
        expect({ call, blocked: text(result).includes("reaches Bouncer's own files") }).toEqual({
          call,
          blocked: true,
        });
      }
      expect(readFileSync(pinFile, "utf8")).toBe(pins);
      expect(readFileSync(policy, "utf8")).toBe("version: 1\n");
      expect(existsSync(join(w, "away.json"))).toBe(false);
      expect(existsSync(join(home, "pins", "new.json"))).toBe(false);
      expect(existsSync(join(home, "sessions", "forged"))).toBe(false);
      expect(existsSync(join(w, ".mcp.json"))).toBe(false);
      expect(existsSync(join(w, ".claude.json"))).toBe(false);

      const inside = join(w, "notes.txt");
      const allowed = await client.callTool({
        name: "write_file",
        arguments: { path: inside, content: "ok" },
      });
      expect(allowed.isError).not.toBe(true);
      expect(readFileSync(inside, "utf8")).toBe("ok");
    },
    E2E_TIMEOUT,
  );
});
