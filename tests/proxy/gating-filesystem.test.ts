/**
 * `bouncer run` gating the real `@modelcontextprotocol/server-filesystem`, driven by the SDK's real
 * Client over real stdio through `bun src/cli.ts run` (issue 3 "Must show"; SPEC §2.2–§2.4, §3.2,
 * §3.5, §3.8). Every test has its own BOUNCER_HOME, allowed folder and folder outside it.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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
import type { AuditRecord } from "../../src/audit/index.ts";
import {
  bouncerCommand,
  type Connected,
  connect,
  FS_SERVER,
  initializeRequest,
  startLines,
  tempHome,
} from "./support/harness.ts";

const E2E_TIMEOUT = 120_000;

/** One test's world: an allowed folder (the server's root), a writable prefix inside it, a folder outside. */
interface World {
  readonly dir: string;
  readonly out: string;
  readonly outside: string;
  readonly home: string;
  readonly policy: string;
}

const clients: Connected[] = [];

function world(policyText: (w: { dir: string; out: string }) => string): World {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-gfs-")));
  const out = join(dir, "out");
  mkdirSync(out);
  writeFileSync(join(dir, "notes.txt"), "first line\nsecond line — ünïcode ✓\n");
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "bouncer-outside-")));
  const home = tempHome();
  const policy = join(home, "policy.yaml");
  writeFileSync(policy, policyText({ dir, out }));
  return { dir, out, outside, home, policy };
}

async function through(w: World, extra: readonly string[] = []): Promise<Connected> {
  const { command, args } = bouncerCommand("cli", [
    "--upstream-name",
    "fs",
    "--policy",
    w.policy,
    ...extra,
    "--",
    FS_SERVER,
    w.dir,
  ]);
  const connected = await connect(command, { args, env: { BOUNCER_HOME: w.home } });
  clients.push(connected);
  return connected;
}

function text(result: unknown): string {
  return JSON.stringify((result as { content?: unknown }).content ?? result);
}

function auditRecords(home: string): AuditRecord[] {
  return readFileSync(join(home, "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AuditRecord);
}

const confined = ({ out }: { out: string }): string =>
  `write_file:\n  allowed_path_prefixes: [${JSON.stringify(out)}]\n`;

let direct: Connected;
let directWorld: World;
beforeAll(async () => {
  directWorld = world(confined);
  direct = await connect(FS_SERVER, { args: [directWorld.dir] });
  clients.push(direct);
}, E2E_TIMEOUT);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.client.close()));
}, E2E_TIMEOUT);

describe("bouncer run gating the real filesystem server", () => {
  test(
    "bouncer run lists the same tools as a direct connection and pins exactly those definitions",
    async () => {
      const proxied = await through(directWorld);
      const listed = await proxied.client.listTools();
      const directList = await direct.client.listTools();
      expect(listed).toEqual(directList);
      const pinFiles = readdirSync(join(directWorld.home, "pins")).filter((name) => name.endsWith(".json"));
      expect(pinFiles).toHaveLength(1);
      const pinned = JSON.parse(readFileSync(join(directWorld.home, "pins", pinFiles[0]!), "utf8")) as {
        server: string;
        tools: { name: string; definition: unknown }[];
      };
      expect(pinned.server).toBe("fs");
      expect(pinned.tools.map((tool) => tool.definition)).toEqual(directList.tools);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run returns the same read result as a direct connection",
    async () => {
      const proxied = await through(directWorld);
      const call = { name: "read_text_file", arguments: { path: join(directWorld.dir, "notes.txt") } };
      const viaBouncer = await proxied.client.callTool(call);
      expect(viaBouncer).toEqual(await direct.client.callTool(call));
      expect(text(viaBouncer)).toContain("ünïcode ✓");
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run blocks write_file outside the allowed prefix and nothing is written",
    async () => {
      const w = world(confined);
      const proxied = await through(w);
      const target = join(w.dir, "not-in-out.txt");
      const result = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: target, content: "x" },
      });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("[bouncer blocked]");
      expect(existsSync(target)).toBe(false);
      const inside = join(w.out, "fine.txt");
      const allowed = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: inside, content: "ok" },
      });
      expect(allowed.isError).not.toBe(true);
      expect(readFileSync(inside, "utf8")).toBe("ok");
      const decisions = auditRecords(w.home).filter((record) => record.event === "decision");
      expect(decisions.map((record) => [record.tool, record.verdict, record.contract])).toEqual([
        ["write_file", "deny", "constraint"],
        ["write_file", "allow", "default"],
      ]);
      expect(decisions[0]?.seq).toBe(1);
      expect(decisions[1]?.seq).toBe(2);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run blocks the third write_file under max_calls: 2 and it never reaches the disk",
    async () => {
      const w = world(
        ({ out }) => `write_file:\n  max_calls: 2\n  allowed_path_prefixes: [${JSON.stringify(out)}]\n`,
      );
      const proxied = await through(w);
      const paths = [1, 2, 3].map((n) => join(w.out, `file-${n}.txt`));
      const results = [];
      for (const path of paths) {
        results.push(
          await proxied.client.callTool({ name: "write_file", arguments: { path, content: path } }),
        );
      }
      expect(results.map((result) => result.isError === true)).toEqual([false, false, true]);
      expect(text(results[2])).toContain("[bouncer blocked]");
      expect(paths.map((path) => existsSync(path))).toEqual([true, true, false]);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run blocks a write through a symlink, a dangling symlink, or a symlink followed by .., that leaves the allowed folder",
    async () => {
      const w = world(confined);
      symlinkSync(w.outside, join(w.out, "escape"));
      const danglingTarget = join(w.outside, "created-by-dangling.txt");
      symlinkSync(danglingTarget, join(w.out, "dangling"));
      // `out/deep/..` is the parent of the link's target (outside), not `out`, for any upstream that
      // opens the path as given: the check walks `..` after the link, as the kernel does.
      mkdirSync(join(w.outside, "inner"));
      symlinkSync(join(w.outside, "inner"), join(w.out, "deep"));
      const proxied = await through(w);
      const viaLink = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: join(w.out, "escape", "evil.txt"), content: "x" },
      });
      const viaDangling = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: join(w.out, "dangling"), content: "x" },
      });
      const viaParentOfLink = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: `${w.out}/deep/../evil.txt`, content: "x" },
      });
      for (const result of [viaLink, viaDangling, viaParentOfLink]) {
        expect(result.isError).toBe(true);
        expect(text(result)).toContain("[bouncer blocked]");
        expect(text(result)).toContain(w.outside);
      }
      expect(readdirSync(w.outside)).toEqual(["inner"]);
      expect(readdirSync(w.out).sort()).toEqual(["dangling", "deep", "escape"]);
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run --mode audit forwards a call the policy denies and logs the deny",
    async () => {
      const w = world(confined);
      const proxied = await through(w, ["--mode", "audit"]);
      const target = join(w.dir, "written-in-audit-mode.txt");
      const result = await proxied.client.callTool({
        name: "write_file",
        arguments: { path: target, content: "a" },
      });
      expect(result.isError).not.toBe(true);
      expect(readFileSync(target, "utf8")).toBe("a");
      const decision = auditRecords(w.home).find((record) => record.event === "decision");
      expect(decision).toMatchObject({
        tool: "write_file",
        verdict: "deny",
        contract: "constraint",
        mode: "audit",
      });
    },
    E2E_TIMEOUT,
  );

  test(
    "bouncer run answers initialize with the policy error and exits 2 when the policy is invalid",
    async () => {
      const w = world(() => 'write_file:\n  max_calls: "2"\n');
      const { command, args } = bouncerCommand("cli", [
        "--upstream-name",
        "fs",
        "--policy",
        w.policy,
        "--",
        FS_SERVER,
        w.dir,
      ]);
      const session = startLines(command, args, { BOUNCER_HOME: w.home });
      session.send(initializeRequest(7));
      const answer = await session.next((message) => message.id === 7, "initialize answer");
      expect(answer.result).toBeUndefined();
      const error = answer.error as { message: string; data: { code: string } };
      expect(error.message).toContain("policy.yaml");
      expect(error.message).toContain("max_calls");
      expect(error.data.code).toBe("POLICY_INVALID");
      expect((await session.exited).code).toBe(2);
    },
    E2E_TIMEOUT,
  );
});
