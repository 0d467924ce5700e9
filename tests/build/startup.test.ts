import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { summarise, timeCommandOnce, timeInitializeOnce } from "../../scripts/build/startup.ts";
import { FIXTURES } from "./harness.ts";

describe("summarise()", () => {
  test.each([
    { samples: [5], expected: { runs: 1, medianMs: 5, minMs: 5, maxMs: 5 } },
    { samples: [3, 1, 2], expected: { runs: 3, medianMs: 2, minMs: 1, maxMs: 3 } },
    { samples: [4, 1, 3, 2], expected: { runs: 4, medianMs: 2.5, minMs: 1, maxMs: 4 } },
    { samples: [1.04, 1.06], expected: { runs: 2, medianMs: 1.1, minMs: 1, maxMs: 1.1 } },
  ])("summarise($samples) gives $expected", ({ samples, expected }) => {
    expect(summarise(samples)).toEqual(expected);
  });
});

describe("timeInitializeOnce()", () => {
  test("timeInitializeOnce() returns once the fixture server answers initialize", async () => {
    const ms = await timeInitializeOnce([process.execPath, join(FIXTURES, "mail-server.ts")], {});
    expect(ms).toBeGreaterThan(0);
  });

  test("timeInitializeOnce() rejects a server that exits without answering", async () => {
    const silent = [process.execPath, "-e", "process.exit(0)"];
    await expect(timeInitializeOnce(silent, {})).rejects.toThrow("closed stdout before answering");
  });

  test("timeInitializeOnce() ignores lines that are not the answer to initialize", async () => {
    const script =
      'console.log("noise"); console.log(JSON.stringify({jsonrpc:"2.0",id:2,result:{}})); setTimeout(() => {}, 100)';
    await expect(timeInitializeOnce([process.execPath, "-e", script], {})).rejects.toThrow("closed stdout");
  });
});

describe("timeCommandOnce()", () => {
  test("timeCommandOnce() reports wall and CPU time of a finished command", async () => {
    const sample = await timeCommandOnce([process.execPath, "--version"], {});
    expect(sample.wallMs).toBeGreaterThan(0);
    expect(sample.cpuMs).toBeGreaterThan(0);
  });

  test("timeCommandOnce() rejects a command that exits non-zero", async () => {
    await expect(timeCommandOnce([process.execPath, "-e", "process.exit(3)"], {})).rejects.toThrow(
      "exited with 3",
    );
  });
});
