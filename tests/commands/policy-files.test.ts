import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkPolicyPaths, formatIssueLine, loadPolicyPaths } from "../../src/commands/policy-files.ts";
import { BouncerError, exitCodeFor } from "../../src/platform/errors.ts";
import { readPolicyTexts } from "../../src/platform/policy-texts.ts";
import { REPO } from "../run-cli.ts";

const GOOD = "tests/fixtures/policies/worked-example.yaml";
const BAD = "tests/fixtures/policies/bad-keys.yaml";

describe("readPolicyTexts()", () => {
  test.each<[string, string]>([
    ["a missing file", "tests/fixtures/policies/nope.yaml"],
    ["a directory", "tests/fixtures/policies"],
  ])("readPolicyTexts() refuses %s with POLICY_UNREADABLE (exit 2)", async (_name, file) => {
    const error = await readPolicyTexts([file], REPO).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BouncerError);
    expect((error as BouncerError).code).toBe("POLICY_UNREADABLE");
    expect(exitCodeFor(error)).toBe(2);
  });

  test.each<[string, string, string]>([
    ["an empty name", "", "no file name given"],
    ["a directory", "tests/fixtures/policies", "it is a folder, not a file (EISDIR)"],
    ["a missing file", "tests/fixtures/policies/nope.yaml", "no such file"],
  ])("readPolicyTexts() says why it refuses %s", async (_name, file, why) => {
    const error = await readPolicyTexts([file], REPO).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain(why);
  });

  test.skipIf(process.platform === "win32")(
    "readPolicyTexts() refuses a FIFO at once instead of waiting for a writer",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "bouncer-fifo-"));
      const fifo = join(dir, "policy.yaml");
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
      const error = await readPolicyTexts([fifo], dir).catch((caught: unknown) => caught);
      expect((error as BouncerError).code).toBe("POLICY_UNREADABLE");
      expect((error as Error).message).toContain("it is not a regular file");
    },
    10_000,
  );
  test("readPolicyTexts() refuses bytes that are not UTF-8, naming where (a tool name would change silently)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-utf8-"));
    const file = join(dir, "policy.yaml");
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from("a: {}\nsend_"),
        Buffer.from([0xff]),
        Buffer.from("email: { action: deny }\n"),
      ]),
    );
    const error = await readPolicyTexts([file], dir).catch((caught: unknown) => caught);
    expect((error as BouncerError).code).toBe("POLICY_UNREADABLE");
    expect((error as Error).message).toContain("it is not UTF-8 text (line 2, column 6)");
  });

  test("readPolicyTexts() keeps a leading BOM, as before", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-bom-"));
    const file = join(dir, "policy.yaml");
    writeFileSync(file, "\uFEFFa: {}\n");
    expect((await readPolicyTexts([file], dir))[0]?.text).toBe("\uFEFFa: {}\n");
  });
});

describe("checkPolicyPaths() and loadPolicyPaths()", () => {
  test("checkPolicyPaths() keeps the files in command-line order with the built-in packs", async () => {
    const result = await checkPolicyPaths([GOOD, GOOD], { cwd: REPO });
    expect(result.ok && result.policy.files.map((file) => file.file)).toEqual([GOOD, GOOD]);
    expect(result.ok && result.policy.packs.length).toBeGreaterThan(0);
  });

  test("checkPolicyPaths() returns every issue of every file", async () => {
    const result = await checkPolicyPaths([BAD, GOOD], { cwd: REPO });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.issues.map(formatIssueLine)[0]).toStartWith(`${BAD}:3:3: unknown key "alow"`);
  });

  test("loadPolicyPaths() throws POLICY_INVALID (exit 2) naming the file, line and column", async () => {
    const error = await loadPolicyPaths([GOOD, BAD], { cwd: REPO }).catch((caught: unknown) => caught);
    expect(exitCodeFor(error)).toBe(2);
    expect((error as Error).message).toStartWith(`Cannot load policy "${BAD}": line 3, column 3`);
  });
});
