import { describe, expect, test } from "bun:test";
import { describeExit, startUpstream } from "../../src/proxy/run-upstream.ts";

describe("describeExit", () => {
  test.each([
    [{ code: 1, signal: null }, 'Upstream "fs" exited (code 1)'],
    [{ code: null, signal: "SIGKILL" }, 'Upstream "fs" exited (signal SIGKILL)'],
    [{ code: null, signal: null, error: "spawn EACCES" }, 'Upstream "fs" could not run: spawn EACCES'],
    ["eof", 'Upstream "fs" closed its output'],
  ] as const)("describeExit(%p) names how the upstream ended", (exit, message) => {
    const failure = describeExit("fs", exit, "tail");
    expect(failure.message).toBe(message);
    expect(failure.data.stderrTail).toBe("tail");
  });
});

describe("describeExit names", () => {
  test("describeExit() escapes control characters of the upstream name (no forged line on stderr)", () => {
    expect(describeExit("x\n[bouncer] FAKE", "eof", "").message).toBe(
      'Upstream "x\\u{a}[bouncer] FAKE" closed its output',
    );
  });
});

describe("describeExit redaction", () => {
  test("describeExit() redacts token-shaped strings and secret-named fields in the stderr tail the client gets", () => {
    const tail = `GITHUB_TOKEN=ghp_${"x1".repeat(18)} failed\nAuthorization: Bearer abc.def.ghi\nplain line\n`;
    expect(describeExit("gh", { code: 1, signal: null }, tail).data.stderrTail).toBe(
      "GITHUB_TOKEN=[redacted] failed\nAuthorization: [redacted]\nplain line\n",
    );
  });
});

describe("startUpstream stderr redaction", () => {
  test.skipIf(process.platform === "win32")(
    "startUpstream() redacts a token in the upstream's stderr lines and tail, also one the 8 KiB tail's start would cut",
    async () => {
      const token = `ghp_${"E5f6G7h8I9".repeat(4)}`;
      const filler = "x".repeat(8162);
      let written = "";
      const started = startUpstream(
        {
          name: "gh",
          launch: {
            command: "sh",
            args: ["-c", `printf 'auth failed for ${token}\\n${filler}\\n' >&2`],
            cwd: ".",
            source: "argv",
          },
        },
        { writeStderr: (text) => (written += text), env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
      );
      if (started.kind !== "started") throw new Error("the upstream did not start");
      await started.upstream.exited;
      await Bun.sleep(50);
      const tail = started.upstream.stderrTail();
      expect(tail.length).toBeLessThanOrEqual(8192);
      expect(tail).not.toContain(token.slice(-12));
      expect(written).toContain("[upstream:gh] auth failed for [redacted]");
      expect(written).not.toContain(token.slice(-12));
    },
  );
});
