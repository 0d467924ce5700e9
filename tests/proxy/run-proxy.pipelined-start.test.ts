/**
 * A client that sends `initialize`, `notifications/initialized` and `tools/list` without waiting for
 * the `initialize` answer (field case F08's pipelined start) still gets the packs the upstream's
 * `serverInfo.name` selects (SPEC §4.3): through the real `bouncer run` (the CLI entry, whose gate is
 * built while the upstream answers, SPEC §3.2) and the real filesystem server started through a
 * symlink, under a name no pack knows: neither its command line nor its upstream name matches the
 * filesystem pack, only its `serverInfo.name` (`secure-filesystem-server`) does.
 */

import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bouncerCommand,
  cleanedAfterEach,
  initializeRequest,
  ROOT,
  startLines,
  tempHome,
} from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;
const home = tempHome();
const { sessions } = cleanedAfterEach(E2E_TIMEOUT);

describe("bouncer run with a pipelined start", () => {
  test(
    "bouncer run applies a pack matched by serverInfo.name when tools/list is sent before the initialize answer",
    async () => {
      const allowed = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-pipelined-")));
      const outside = join(realpathSync(tmpdir()), "bouncer-pipelined-outside.txt");
      const aside = join(mkdtempSync(join(tmpdir(), "bouncer-pipelined-srv-")), "srv");
      symlinkSync(join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem"), aside);
      const upstream = ["node", join(aside, "dist/index.js"), allowed];
      const { command, args } = bouncerCommand("cli", ["--upstream-name", "notes", "--", ...upstream]);
      const session = startLines(command, args, { BOUNCER_HOME: home });
      sessions.push(session);
      session.send(initializeRequest(1));
      session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      session.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      await session.next((m) => m.id === 2, "tools/list answered", 60_000);
      session.send({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "write_file", arguments: { path: outside, content: "x" } },
      });
      const answer = await session.next((m) => m.id === 3, "write_file answered", 60_000);
      const text = JSON.stringify(answer);
      expect(text).toContain("[bouncer blocked]");
      expect(text).toContain("allowed_path_prefixes");
    },
    E2E_TIMEOUT,
  );
});
