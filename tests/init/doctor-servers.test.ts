import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { LaunchedServers } from "../../src/init/doctor-servers.ts";
import { GroupStdioTransport } from "../../src/init/group-transport.ts";
import { isAlive, waitUntil } from "../proxy/support/harness.ts";
import { REPO } from "../run-cli.ts";
import { tempDir } from "./run-helpers.ts";
import { trackProcesses } from "./support-pids.ts";

const { dirs, pidsIn } = trackProcesses();

describe("watchSignals", () => {
  test.if(process.platform !== "win32").each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)(
    "bouncer doctor on %s stops every server it started (one ignoring SIGTERM too) and exits %d",
    async (signal, status) => {
      const dir = tempDir("bouncer-doctor-");
      dirs.push(dir);
      const [first, second] = [path.join(dir, "h1"), path.join(dir, "h2")];
      const config = {
        mcpServers: {
          h1: { command: "sh", args: ["-c", 'echo $$ > "$0"; exec sleep 1011', first] },
          h2: { command: "sh", args: ["-c", `trap '' TERM; sleep 1012 & echo "$$ $!" > "$0"; wait`, second] },
        },
      };
      const file = path.join(dir, "f.json");
      writeFileSync(file, JSON.stringify(config));
      const doctor = Bun.spawn(
        [process.execPath, path.join(REPO, "src", "cli.ts"), "doctor", "--config", file],
        {
          cwd: dir,
          env: { ...process.env, NO_COLOR: "1", HOME: dir, BOUNCER_HOME: path.join(dir, "home") },
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      const stderr = new Response(doctor.stderr).text();
      const pids = [...(await pidsIn(first)), ...(await pidsIn(second))];
      expect(pids).toHaveLength(3);
      doctor.kill(signal);
      const code = await Promise.race([doctor.exited, Bun.sleep(20_000).then(() => "hang" as const)]);
      if (code === "hang") doctor.kill("SIGKILL");
      expect(code).toBe(status);
      await waitUntil(() => !pids.some(isAlive), 10_000, "no process of either server remains");
      // Nothing (a progress line of a server the stop failed) is printed after it.
      expect(await stderr).toEndWith(`doctor: stopped by ${signal}: the servers it started are stopped\n`);
    },
    60_000,
  );
});

describe("watchSignals with a wrapped entry", () => {
  test.if(process.platform !== "win32").each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
    ["SIGHUP", 129],
  ] as const)(
    "bouncer doctor on %s leaves no process of a wrapped entry's upstream tree (bouncer run stops it) and exits %d",
    async (signal, status) => {
      const dir = tempDir("bouncer-doctor-");
      dirs.push(dir);
      const pidFile = path.join(dir, "pids");
      const stubborn = path.join(REPO, "tests", "fixtures", "servers", "stubborn-tree.sh");
      const cli = path.join(REPO, "src", "cli.ts");
      // Wrapped as init writes it: the upstream and its grandchild ignore stdin EOF and SIGTERM, in a
      // process group of their own that only `bouncer run` knows.
      const args = [cli, "run", "--upstream-name", "wstub", "--", "sh", stubborn, pidFile];
      const file = path.join(dir, "f.json");
      writeFileSync(file, JSON.stringify({ mcpServers: { wstub: { command: process.execPath, args } } }));
      const doctor = Bun.spawn([process.execPath, cli, "doctor", "--config", file], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: "1", HOME: dir, BOUNCER_HOME: path.join(dir, "home") },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const stderr = new Response(doctor.stderr).text();
      const pids = await pidsIn(pidFile);
      expect(pids).toHaveLength(2);
      doctor.kill(signal);
      const code = await Promise.race([doctor.exited, Bun.sleep(20_000).then(() => "hang" as const)]);
      if (code === "hang") doctor.kill("SIGKILL");
      expect(code).toBe(status);
      // Gone when doctor has exited, not some time later.
      expect(pids.filter(isAlive)).toEqual([]);
      // Nothing (a progress line of a server the stop failed) is printed after it.
      expect(await stderr).toEndWith(`doctor: stopped by ${signal}: the servers it started are stopped\n`);
    },
    60_000,
  );
});

describe("LaunchedServers", () => {
  test("LaunchedServers.track closes a transport given after the stop began, so it never spawns", async () => {
    const servers = new LaunchedServers();
    await servers.stopAll();
    const dir = tempDir("bouncer-doctor-");
    dirs.push(dir);
    const marker = path.join(dir, "spawned");
    const transport = new GroupStdioTransport({
      command: "sh",
      args: ["-c", 'touch "$0"; exec sleep 1015', marker],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      cwd: dir,
    });
    servers.track(transport);
    expect(servers.stopped).toBe(true);
    await expect(transport.start()).rejects.toThrow("started or closed already");
    expect(existsSync(marker)).toBe(false);
  });
});
