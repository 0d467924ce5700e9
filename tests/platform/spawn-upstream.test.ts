import { describe, expect, test } from "bun:test";
import { readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnUpstream, upstreamEnvironment } from "../../src/platform/spawn-upstream.ts";

/** Hang guard per test (bunfig has no effect on per-test timeouts here). */
const E2E_TIMEOUT = 120_000;

function output(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    text += chunk;
  });
  return new Promise((resolve) => stream.on("end", () => resolve(text)));
}

describe("spawnUpstream", () => {
  test("spawnUpstream() refuses a working folder that does not exist, naming it (no stray error event)", () => {
    const cwd = `${tmpdir()}/bouncer-no-such-folder-${process.pid}`;
    expect(() =>
      spawnUpstream(
        { name: "x", command: process.execPath, args: ["-e", "1"], cwd },
        { writeStderr: () => {} },
      ),
    ).toThrow(`its working folder "${cwd}" does not exist or is not a folder`);
  });

  test(
    "spawnUpstream() gives the full inherited environment plus overrides, and the configured cwd (F10, F15)",
    async () => {
      let stderr = "";
      const upstream = spawnUpstream(
        {
          name: "env",
          command: "sh",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
          args: ["-c", 'echo "$INHERITED|$OVERRIDDEN|${REMOVED-unset}"; pwd; echo oops >&2'],
          cwd: tmpdir(),
          envOverrides: { OVERRIDDEN: "new", REMOVED: undefined },
        },
        {
          writeStderr: (text) => {
            stderr += text;
          },
          baseEnv: { PATH: process.env.PATH, INHERITED: "kept", OVERRIDDEN: "old", REMOVED: "x" },
        },
      );
      const text = await output(upstream.stdout);
      expect(await upstream.exited).toEqual({ code: 0, signal: null });
      expect(text.split("\n").slice(0, 2)).toEqual(["kept|new|unset", realpathSync(tmpdir())]);
      expect(stderr).toContain("[upstream:env] oops");
      expect(upstream.executable).toMatch(/\/sh$/);
    },
    E2E_TIMEOUT,
  );

  test(
    "spawnUpstream() starts the upstream as the leader of its own process group",
    async () => {
      const upstream = spawnUpstream(
        { name: "g", command: "sh", args: ["-c", "cat >/dev/null"], cwd: tmpdir() },
        { writeStderr: () => {} },
      );
      const stat = readFileSync(`/proc/${upstream.pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      expect(Number(fields[2])).toBe(upstream.pid);
      upstream.stdin.end();
      expect((await upstream.exited).code).toBe(0);
    },
    E2E_TIMEOUT,
  );

  test(
    "spawnUpstream() throws UPSTREAM_NOT_FOUND naming the command and the PATH searched",
    () => {
      expect(() =>
        spawnUpstream(
          { name: "x", command: "surely-not-installed-mcp", args: [], cwd: tmpdir() },
          { writeStderr: () => {}, baseEnv: { PATH: "/nowhere:/also-not" } },
        ),
      ).toThrow('Cannot start upstream "surely-not-installed-mcp": not found in PATH "/nowhere:/also-not"');
    },
    E2E_TIMEOUT,
  );

  test(
    "upstreamEnvironment() never lets an override key become a prototype",
    () => {
      const env = upstreamEnvironment(
        { A: "1" },
        JSON.parse('{"__proto__": "x", "B": "2"}') as Record<string, string>,
      );
      expect(Object.getPrototypeOf(env)).toBeNull();
      expect(env.B).toBe("2");
    },
    E2E_TIMEOUT,
  );
});
