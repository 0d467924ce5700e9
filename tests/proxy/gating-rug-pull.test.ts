/**
 * A rug pull through the real `bouncer run` (SDK Client over real stdio, fixture upstream): after the
 * upstream rewrites a tool's description and sends `list_changed`, the client keeps seeing the pinned
 * description and a call to that tool asks — denied naming `bouncer pins accept` when the client
 * cannot answer, forwarded after `bouncer pins accept` from a terminal (a pty), or after an approved
 * elicitation, and blocked (asked again next time) when that approval's re-pin cannot be written
 * (SPEC §2.2 "Changed tool", §3.4; issue 3).
 */

import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { memoryIo } from "../../src/commands/io.ts";
import { parsePinFile } from "../../src/proxy/pin-file.ts";
import { runPinsAccept } from "../../src/proxy/pins-accept.ts";
import { runPinsForget } from "../../src/proxy/pins-forget.ts";
import { HONEST, POISONED } from "../fixtures/servers/rug-pull-upstream.ts";
import {
  BUN,
  bouncerCommand,
  type Connected,
  connect,
  deadline,
  ROOT,
  tempHome,
  waitUntil,
} from "./support/harness.ts";
import { fakeTerminal, HAS_SCRIPT, pinsUnderPty } from "./support/terminal.ts";

const E2E_TIMEOUT = 120_000;
const FIXTURE = join(ROOT, "tests/fixtures/servers/rug-pull-upstream.ts");
const clients: Connected[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.client.close()));
}, E2E_TIMEOUT);

/** A client through Bouncer that counts `list_changed` notifications. */
async function through(
  home: string,
  options: { readonly flags?: readonly string[]; readonly elicitation?: boolean } = {},
): Promise<{
  connected: Connected;
  changes: () => number;
  nextChange: () => Promise<void>;
  asks: () => number;
}> {
  const { command, args } = bouncerCommand("cli", [
    "--upstream-name",
    "rug",
    ...(options.flags ?? []),
    "--",
    BUN,
    FIXTURE,
  ]);
  let count = 0;
  let asks = 0;
  let waiting: (() => void)[] = [];
  const connected = await connect(command, {
    args,
    env: { BOUNCER_HOME: home },
    ...(options.elicitation === true ? { capabilities: { elicitation: {} } } : {}),
    setup: (client) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        count++;
        for (const resolve of waiting) resolve();
        waiting = [];
      });
      if (options.elicitation === true) {
        client.setRequestHandler(ElicitRequestSchema, (request) => {
          expect(request.params.message).toContain("get_forecast");
          asks++;
          return { action: "accept", content: { remember: true } };
        });
      }
    },
  });
  clients.push(connected);
  return {
    connected,
    changes: () => count,
    asks: () => asks,
    nextChange: () => deadline(new Promise<void>((resolve) => waiting.push(resolve)), 20_000, "list_changed"),
  };
}

function description(list: {
  tools: { name: string; description?: string | undefined }[];
}): string | undefined {
  return list.tools.find((tool) => tool.name === "get_forecast")?.description;
}

function text(result: unknown): string {
  return JSON.stringify((result as { content?: unknown }).content);
}

function pinsCli(
  home: string,
  args: readonly string[],
): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(BUN, [join(ROOT, "src/cli.ts"), "pins", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, BOUNCER_HOME: home },
  });
}

describe("bouncer run against a rug pull", () => {
  test(
    "bouncer run serves the pinned description after a rug pull, blocks the changed tool naming bouncer pins accept, and forwards it once accepted",
    async () => {
      const home = tempHome();
      const { connected, nextChange, changes } = await through(home);
      const { client } = connected;
      expect(description(await client.listTools())).toBe(HONEST);
      const pulled = nextChange();
      expect(text(await client.callTool({ name: "pull_rug", arguments: {} }))).toContain("done");
      await pulled;
      expect(description(await client.listTools())).toBe(HONEST);
      const blocked = await client.callTool({ name: "get_forecast", arguments: { city: "Paris" } });
      expect(blocked.isError).toBe(true);
      expect(text(blocked)).toContain("[bouncer blocked]");
      // The command named is bound to the definition the question showed (its hash).
      const hash = /bouncer pins accept rug get_forecast --hash ([0-9a-f]{16})/.exec(text(blocked))?.[1];
      expect(hash).toBeDefined();

      const listed = pinsCli(home, ["list", "rug", "--json"]);
      expect(listed.status).toBe(0);
      const [pins] = JSON.parse(listed.stdout) as {
        pending: { name: string; kind: string; hash: string }[];
      }[];
      expect(pins?.pending).toEqual([expect.objectContaining({ name: "get_forecast", kind: "changed" })]);
      expect(pins?.pending[0]?.hash.startsWith(hash ?? "-")).toBe(true);
      // Accepted from a terminal: the real CLI under a pty where `script` is there, else the function.
      const args = ["rug", "get_forecast", "--hash", hash ?? ""];
      if (HAS_SCRIPT) {
        const accepted = pinsUnderPty(home, ["accept", ...args], "y\n");
        expect(accepted.screen).toContain("Accepted changed tool get_forecast of server rug");
        expect(accepted.status).toBe(0);
      } else {
        const { terminal } = fakeTerminal(["y"]);
        const options = { home, server: "rug", tool: "get_forecast", hash: hash ?? "", terminal };
        expect(await runPinsAccept(options, memoryIo().io)).toBe(0);
      }

      const before = changes();
      const forwarded = await client.callTool({ name: "get_forecast", arguments: { city: "Paris" } });
      expect(forwarded.isError).not.toBe(true);
      expect(text(forwarded)).toContain("Sunny in Paris");
      expect(changes()).toBe(before + 1);
      expect(description(await client.listTools())).toBe(POISONED);
      // The accept the instance noticed is audited (SPEC §3.5 `pin` records: accepted).
      const records = readFileSync(join(home, "audit.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map(
          (line) => JSON.parse(line) as { event: string; tool?: string; outcome?: string; reason?: string },
        );
      const pinRecords = records.filter((record) => record.event === "pin" && record.tool === "get_forecast");
      expect(pinRecords.map((record) => record.outcome)).toEqual(["pinned", "changed", "accepted"]);
      expect(pinRecords[2]?.reason).toContain(`hash ${hash}`);
      expect(pinRecords[2]?.reason).toContain("accepted outside this session");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run --mode audit shows the rug-pulled description as listed now, forwards the changed tool, and audits what enforce would have done",
    async () => {
      const home = tempHome();
      const { connected, nextChange } = await through(home, { flags: ["--mode", "audit"] });
      const { client } = connected;
      expect(description(await client.listTools())).toBe(HONEST);
      const pulled = nextChange();
      await client.callTool({ name: "pull_rug", arguments: {} });
      await pulled;
      expect(description(await client.listTools())).toBe(POISONED);
      const forwarded = await client.callTool({ name: "get_forecast", arguments: { city: "Paris" } });
      expect(text(forwarded)).toContain("Sunny in Paris");
      const records = readFileSync(join(home, "audit.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const changed = records.find((record) => record.event === "pin" && record.outcome === "changed");
      expect(changed).toMatchObject({ tool: "get_forecast", mode: "audit" });
      expect(String(changed?.reason)).toContain("enforce mode would show its pinned definition");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run keeps deciding on the pins it knew when pins forget removes the file mid-session: the changed tool stays blocked saying so, nothing is re-pinned",
    async () => {
      const home = tempHome();
      const { connected, nextChange } = await through(home);
      const { client } = connected;
      expect(description(await client.listTools())).toBe(HONEST);
      const pulled = nextChange();
      await client.callTool({ name: "pull_rug", arguments: {} });
      await pulled;
      // Forgotten from a terminal: the real CLI under a pty where `script` is there, else the function.
      if (HAS_SCRIPT) {
        const forgot = pinsUnderPty(home, ["forget", "rug"], "y\n");
        expect(forgot.screen).toContain("running sessions keep the pins they had until they restart");
        expect(forgot.status).toBe(0);
      } else {
        const { terminal } = fakeTerminal(["y"]);
        expect(await runPinsForget({ home, server: "rug", terminal }, memoryIo().io)).toBe(0);
      }
      const blocked = await client.callTool({ name: "get_forecast", arguments: { city: "Paris" } });
      expect(blocked.isError).toBe(true);
      expect(text(blocked)).toContain("changed since it was pinned");
      // Nothing is kept for pins accept any more: the deny says so, and names no accept command.
      expect(text(blocked)).toContain(
        "the pins of this server were forgotten (bouncer pins forget) while this session runs",
      );
      expect(text(blocked)).not.toContain("--hash");
      expect(description(await client.listTools())).toBe(HONEST);
      // Nothing was written back: the next session pins again on first sight.
      expect(pinsCli(home, ["list", "rug"]).stdout).toBe("No pins for server rug\n");
      expect(connected.stderr()).toContain("were removed while this session runs");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run asks about a changed tool by elicitation and re-pins it when the person accepts",
    async () => {
      const home = tempHome();
      const { connected, nextChange } = await through(home, {
        flags: ["--human-min-ms", "0"],
        elicitation: true,
      });
      const { client } = connected;
      expect(description(await client.listTools())).toBe(HONEST);
      const pulled = nextChange();
      await client.callTool({ name: "pull_rug", arguments: {} });
      await pulled;
      const repinned = nextChange();
      const result = await client.callTool({ name: "get_forecast", arguments: { city: "Oslo" } });
      expect(text(result)).toContain("Sunny in Oslo");
      await repinned;
      expect(description(await client.listTools())).toBe(POISONED);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run blocks an approved changed tool whose re-pin cannot be written, says the approval is not kept, and asks again on the next call",
    async () => {
      const home = tempHome();
      const { connected, nextChange, asks } = await through(home, {
        flags: ["--human-min-ms", "0"],
        elicitation: true,
      });
      const { client } = connected;
      expect(description(await client.listTools())).toBe(HONEST);
      const pulled = nextChange();
      await client.callTool({ name: "pull_rug", arguments: {} });
      await pulled;
      // Once the walk's pending definition is written (and its lock released), a folder where the
      // pin file's lock goes, old enough to be taken over: the lock cannot be taken (EISDIR), so the
      // pins cannot be written, even by root (whom chmod would not stop).
      const [file] = readdirSync(join(home, "pins")).filter((name) => name.endsWith(".json"));
      const path = join(home, "pins", file ?? "");
      await waitUntil(
        () => {
          if (parsePinFile(readFileSync(path, "utf8"), path).pending.length === 0) return false;
          try {
            mkdirSync(`${path}.lock`);
            return true;
          } catch {
            return false;
          }
        },
        20_000,
        "the pending definition written",
      );
      const lock = `${path}.lock`;
      utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      const first = await client.callTool({ name: "get_forecast", arguments: { city: "Oslo" } });
      expect(first.isError).toBe(true);
      expect(text(first)).toContain(
        'Cannot keep the approval of tool \\"get_forecast\\", so its next call asks again: Cannot write pins',
      );
      const second = await client.callTool({ name: "get_forecast", arguments: { city: "Lima" } });
      expect(second.isError).toBe(true);
      expect(text(second)).not.toContain("Sunny");
      expect(asks()).toBe(2);
      expect(description(await client.listTools())).toBe(HONEST);
    },
    E2E_TIMEOUT,
  );
});
